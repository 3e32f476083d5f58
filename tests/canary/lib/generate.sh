# Shared by tests/canary/<flavor>/generate: arguments, the npm install, the private network
# namespace, the mock API and the scenario bookkeeping. Sourced, not run.
#
# A flavor's generate script sets, before sourcing this file:
#   FLAVOR        the flavor name (claude, codex, grok)
#   NPM_PACKAGE   the CLI's npm package
#   SCENARIOS     the scenarios it knows, in order
# and defines, after sourcing it:
#   cli_path PKGDIR          prints the CLI binary inside an npm install prefix
#   scenario_<name>          runs one scenario (see the helpers below)
# then calls `generate_main "$@"`.
#
# The generated tree (DIR = --out):
#   DIR/home/              the fake HOME the CLI wrote into (its session files are what Helix reads)
#   DIR/work/<scenario>/   each scenario's project directory
#   DIR/mock/<scenario>.jsonl  every request the mock API answered, with the usage it returned
#   DIR/stdout/<step>.out  the CLI's stdout per step;  DIR/logs/<step>.err its stderr
#   DIR/runs.tsv           step, scenario, exit code, session id, arguments
#   DIR/CLI_VERSION        what `<cli> --version` printed

set -euo pipefail
CANARY_LIB="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
FLAVOR_DIR="$(cd "$(dirname "$0")" && pwd)"
EXIT_SKIP=77

die() { echo "$FLAVOR generate: $*" >&2; exit 2; }
note() { echo "$FLAVOR generate: $*" >&2; }

usage() {
  cat >&2 <<EOF
usage: $0 --version V --out DIR [--scenario NAME]... [--cache DIR] [--bin PATH]
  Runs the real $NPM_PACKAGE@V against a loopback mock API and leaves its files under DIR/home.
  scenarios: ${SCENARIOS[*]}
  --cache DIR   npm installs are kept in DIR/<package>@<version> (default \$HELIX_CANARY_CACHE,
                else \${XDG_CACHE_HOME:-~/.cache}/helix-canary)
  --bin PATH    use this CLI binary instead of installing one (--version is still recorded)
  exit 77 when npm or its registry is unreachable
EOF
  exit 2
}

parse_args() {
  VERSION="" OUT="" BIN="" CHOSEN=()
  CACHE="${HELIX_CANARY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/helix-canary}"
  while [ $# -gt 0 ]; do
    case "$1" in
      --version) VERSION="${2:?}"; shift 2 ;;
      --out) OUT="${2:?}"; shift 2 ;;
      --scenario) CHOSEN+=("${2:?}"); shift 2 ;;
      --cache) CACHE="${2:?}"; shift 2 ;;
      --bin) BIN="${2:?}"; shift 2 ;;
      -h|--help) usage ;;
      *) echo "$FLAVOR generate: unknown argument $1" >&2; usage ;;
    esac
  done
  [ -n "$VERSION" ] && [ -n "$OUT" ] || usage
  [ ${#CHOSEN[@]} -gt 0 ] || CHOSEN=("${SCENARIOS[@]}")
  local s
  for s in "${CHOSEN[@]}"; do
    declare -F "scenario_$s" >/dev/null || die "unknown scenario '$s' (known: ${SCENARIOS[*]})"
  done
}

# Installs $NPM_PACKAGE@$VERSION under $CACHE once; sets BIN. Exit 77 when npm cannot reach the
# registry: the canary then has nothing to test, which is not a failure of Helix.
install_cli() {
  [ -n "$BIN" ] && return 0
  local prefix="$CACHE/${NPM_PACKAGE//\//+}@$VERSION"
  if [ ! -f "$prefix/.installed" ]; then
    command -v npm >/dev/null || { note "npm is not installed: skipping"; exit $EXIT_SKIP; }
    mkdir -p "$CACHE"
    # one quick question first: npm's own retries take a minute to give up on a dead registry
    local found
    if ! found="$(timeout 60 npm view "$NPM_PACKAGE@$VERSION" version --fetch-retries=0 \
        --cache "$CACHE/npm-cache" 2>"$CACHE/npm-view.log")"; then
      if grep -qiE 'E404|404 Not Found' "$CACHE/npm-view.log"; then
        die "npm has no $NPM_PACKAGE@$VERSION"
      fi
      note "the npm registry is unreachable: skipping ($(grep -m1 -iE 'code|error' "$CACHE/npm-view.log"))"
      exit $EXIT_SKIP
    fi
    [ -n "$found" ] || die "npm has no $NPM_PACKAGE@$VERSION"
    rm -rf "$prefix.tmp"
    note "installing $NPM_PACKAGE@$VERSION into $prefix"
    # the version is explicit: with a bare name, npm may pick an older release whose engines fit
    if ! npm install --prefix "$prefix.tmp" --no-audit --no-fund --loglevel=error \
        --cache "$CACHE/npm-cache" "$NPM_PACKAGE@$VERSION" >"$CACHE/npm-install.log" 2>&1; then
      if grep -qiE 'ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ENETUNREACH|network|socket' \
          "$CACHE/npm-install.log"; then
        note "the npm registry is unreachable: skipping ($(grep -m1 -iE 'ENOTFOUND|EAI_AGAIN|ECONN|ETIMEDOUT|ENETUNREACH|network|socket' "$CACHE/npm-install.log"))"
        exit $EXIT_SKIP
      fi
      cat "$CACHE/npm-install.log" >&2
      die "npm install $NPM_PACKAGE@$VERSION failed"
    fi
    rm -rf "$prefix"
    mv "$prefix.tmp" "$prefix"
    touch "$prefix/.installed"
  fi
  BIN="$(cli_path "$prefix")"
  [ -x "$BIN" ] || die "no CLI binary at $BIN after installing $NPM_PACKAGE@$VERSION"
}

# Re-runs this script inside a network namespace that has only loopback, when we may (root and
# unshare): the CLI can then reach nothing but the mock, whatever it tries.
enter_private_network() {
  if [ -n "${CANARY_IN_NETNS:-}" ]; then
    ip link set lo up 2>/dev/null || true
    return 0
  fi
  if [ -z "${CANARY_NO_NETNS:-}" ] && [ "$(id -u)" = 0 ] && command -v unshare >/dev/null \
     && unshare -n true 2>/dev/null; then
    CANARY_IN_NETNS=1 exec unshare -n "$0" "${ORIGINAL_ARGS[@]}" --bin "$BIN"
  fi
  note "no private network namespace (needs root and unshare): the CLI runs on the host network"
}

generate_main() {
  ORIGINAL_ARGS=("$@")
  parse_args "$@"
  install_cli
  enter_private_network
  mkdir -p "$OUT"
  OUT="$(cd "$OUT" && pwd)"
  FAKE_HOME="$OUT/home"
  mkdir -p "$FAKE_HOME" "$OUT/work" "$OUT/mock" "$OUT/stdout" "$OUT/logs" "$OUT/tmp"
  [ -f "$OUT/runs.tsv" ] || printf 'step\tscenario\texit\tsession\targs\n' >"$OUT/runs.tsv"
  "$BIN" --version >"$OUT/CLI_VERSION" 2>/dev/null || echo "$VERSION" >"$OUT/CLI_VERSION"
  trap stop_mock EXIT
  local s
  for s in "${CHOSEN[@]}"; do
    note "scenario $s"
    SCENARIO="$s"
    "scenario_$s"
    stop_mock
  done
}

# make_project DIR: a small git repository the scenarios work in.
make_project() {
  local dir="$1"
  rm -rf "$dir"
  mkdir -p "$dir/src"
  printf '# Demo project\n\nHelo wrold! A small project for transcript tests.\n' >"$dir/README.md"
  printf 'def main():\n    print("hello")\n\n\nif __name__ == "__main__":\n    main()\n' >"$dir/src/app.py"
  printf 'alpha\nbeta\ngamma\n' >"$dir/notes.txt"
  (cd "$dir" && export HOME="$FAKE_HOME" GIT_CONFIG_NOSYSTEM=1 \
     && git -c init.defaultBranch=main init -q && git add -A \
     && git -c user.name=canary -c user.email=canary@example.invalid commit -qm "initial commit")
}

# start_mock PROJECT_DIR: the mock for $SCENARIO, with {{PROJECT_DIR}} filled; sets PORT.
MOCK_PID=""
start_mock() {
  rm -f "$OUT/tmp/port"
  python3 "$CANARY_LIB/mock_api.py" --script "$FLAVOR_DIR/script.json" --scenario "$SCENARIO" \
    --log "$OUT/mock/$SCENARIO.jsonl" ${CANARY_LOG_BODIES:+--log-bodies} \
    --port-file "$OUT/tmp/port" --var "PROJECT_DIR=$1" >"$OUT/logs/mock-$SCENARIO.err" 2>&1 &
  MOCK_PID=$!
  local i
  for i in $(seq 100); do [ -s "$OUT/tmp/port" ] && break; sleep 0.1; done
  [ -s "$OUT/tmp/port" ] || { cat "$OUT/logs/mock-$SCENARIO.err" >&2; die "the mock API did not start"; }
  PORT="$(cat "$OUT/tmp/port")"
}

stop_mock() {
  [ -n "$MOCK_PID" ] || return 0
  kill "$MOCK_PID" 2>/dev/null || true
  wait "$MOCK_PID" 2>/dev/null || true
  MOCK_PID=""
}

# wait_for_rule NAME SECONDS: until the mock has answered with that rule.
wait_for_rule() {
  local i
  for i in $(seq $(($2 * 10))); do
    grep -q "\"matched\": \"$1\"" "$OUT/mock/$SCENARIO.jsonl" 2>/dev/null && return 0
    sleep 0.1
  done
  note "timed out waiting for the mock to answer rule $1"
  return 1
}

# record_run STEP EXIT SESSION ARGS...: one line of runs.tsv.
record_run() {
  local step="$1" rc="$2" session="$3"
  shift 3
  printf '%s\t%s\t%s\t%s\t%s\n' "$step" "$SCENARIO" "$rc" "$session" "$*" >>"$OUT/runs.tsv"
  note "  $step: exit $rc${session:+, session $session}"
  if [ -s "$OUT/logs/$step.err" ]; then sed -n '1,5s/^/    stderr: /p' "$OUT/logs/$step.err" >&2; fi
}

# The base environment of every CLI run: nothing from the caller's but PATH and the locale.
base_env() {
  echo PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME="$FAKE_HOME" \
    TMPDIR="$OUT/tmp" LANG=C.UTF-8 SHELL=/bin/bash TERM=dumb
}

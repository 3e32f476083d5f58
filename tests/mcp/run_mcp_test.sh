#!/usr/bin/env bash
# The MCP server against the official MCP TypeScript client and conformance suite:
#   tests/mcp/run_mcp_test.sh <build dir> client|conformance
# Installs the packages pinned in tests/mcp/package-lock.json from npm into a temporary folder,
# sweeps the bundled fixtures of every flavor into a fresh store, then
#   client:      runs mcp_client_test.mjs (node --test) against `helix-host mcp`;
#   conformance: runs @modelcontextprotocol/conformance's server scenarios against
#                `helix-host mcp --all-repos` behind stdio_http_relay.mjs, and compares the
#                outcome with conformance-baseline.yml (the scenarios that need the suite's own
#                test tools, prompts and resources, which Helix does not have).
# Exits 0 when everything passes, 1 on a failure, 77 when node or npm is missing or the npm
# registry cannot be reached (CTest reports a skip).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:?usage: run_mcp_test.sh <build dir> client|conformance}
mode=${2:?usage: run_mcp_test.sh <build dir> client|conformance}
build=$(cd "$build" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

skip() { echo "run_mcp_test: $*; skipped" >&2; exit 77; }
command -v node >/dev/null || skip "node is not installed"
command -v npm >/dev/null || skip "npm is not installed"
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 18 ] || skip "node $(node --version) is older than the SDK's node 18"

mkdir -p "$work/npm"
cp "$here/package.json" "$here/package-lock.json" "$work/npm/"
if ! (cd "$work/npm" && npm ci --silent --no-audit --no-fund >"$work/npm.log" 2>&1); then
  tail -5 "$work/npm.log" >&2
  skip "npm cannot install the pinned @modelcontextprotocol packages (offline?)"
fi
export NODE_PATH="$work/npm/node_modules"

# The fixtures as agent homes; codex:01a2029b's working directory made real, so it can resume.
"$root/scripts/make-sample-home" "$root/tests/fixtures" "$work/home"
mkdir -p "$work/repos/cli" "$work/repos/codemie-code" "$work/repos/mockworkA" "$work/xdg"
grep -rl '/tmp/mockworkA' "$work/home/codex" | while read -r f; do
  sed -i "s|/tmp/mockworkA|$work/repos/mockworkA|g" "$f"
done
export CLAUDE_CONFIG_DIR="$work/home/claude" CODEX_HOME="$work/home/codex"
export GROK_HOME="$work/home/grok" XDG_CONFIG_HOME="$work/xdg" TZ=UTC
host="$build/bin/helix-host"
"$host" --plugins "$build/plugins" --store "$work/store" sweep --quiet

export HELIX_HOST="$host" HELIX_PLUGINS="$build/plugins" HELIX_STORE_DIR="$work/store"
export HELIX_XDG="$work/xdg" HELIX_REPOS="$work/repos"

case "$mode" in
  client)
    # The test files must sit beside node_modules for their imports to resolve.
    cp "$here/mcp_client_test.mjs" "$work/npm/"
    cd "$work/npm" && node --test --test-timeout=60000 --test-reporter=spec mcp_client_test.mjs
    ;;
  conformance)
    cp "$here/stdio_http_relay.mjs" "$work/npm/"
    cd "$work/npm"
    node stdio_http_relay.mjs "$host" --plugins "$build/plugins" --store "$work/store" mcp \
      --all-repos >"$work/relay.url" 2>"$work/relay.log" &
    relay=$!
    trap 'kill $relay 2>/dev/null || true; rm -rf "$work"' EXIT
    for _ in $(seq 100); do [ -s "$work/relay.url" ] && break; sleep 0.1; done
    [ -s "$work/relay.url" ] || { cat "$work/relay.log" >&2; echo "the relay did not start" >&2; exit 1; }
    status=0
    node node_modules/@modelcontextprotocol/conformance/dist/index.js server \
      --url "$(cat "$work/relay.url")" --expected-failures "$here/conformance-baseline.yml" \
      -o "$work/results" >"$work/conformance.log" 2>&1 || status=$?
    # One line per scenario: what passed, what failed and why.
    node -e '
      const fs = require("fs"), path = require("path");
      const dir = process.argv[1];
      for (const run of fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []) {
        const file = path.join(dir, run, "checks.json");
        if (!fs.existsSync(file)) continue;
        const checks = JSON.parse(fs.readFileSync(file, "utf8"));
        const failed = checks.filter((c) => c.status === "FAILURE");
        const passed = checks.filter((c) => c.status === "SUCCESS");
        const name = run.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT.*$/, "");
        console.log(`${failed.length ? "FAIL" : "pass"}  ${name}: ${passed.length} passed, ` +
                    `${failed.length} failed${failed.length ? " (" + failed.map((c) =>
                      (c.errorMessage || c.id).slice(0, 120)).join("; ") + ")" : ""}`);
      }' "$work/results" | sort -k2 | tee "$work/summary.txt"
    sed -n '/=== SUMMARY ===/,$p' "$work/conformance.log" | tail -4
    exit "$status"
    ;;
  *) echo "run_mcp_test: unknown mode '$mode' (client or conformance)" >&2; exit 2 ;;
esac

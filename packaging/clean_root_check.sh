#!/usr/bin/env bash
# The packages on a clean Debian 12, as a user installs them: `apt-get install ./helix_*.deb`
# in a bookworm minbase root (chroot) resolves the dependencies the package declares, then the
# installed host loads every plugin, sweeps a sample home, `man helix-host` renders and
# `helix-host se<TAB>` completes; `apt-get purge` and `autoremove` leave the root as it was.
#   packaging/clean_root_check.sh <build dir> [pristine root]
# A pristine root (e.g. from `debootstrap --variant=minbase --include=man-db,bash-completion
# bookworm DIR`) is copied, never changed; without one, the script makes one with debootstrap.
# Needs root (chroot, mount) and Debian's mirror (apt). Exits 77 (skipped) without them, or
# unless HELIX_CLEAN_ROOT_CHECK=1 or a root is given: it takes minutes and downloads packages.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: clean_root_check.sh <build dir> [pristine root]}
pristine=${2:-}
skip() { echo "clean_root_check: $*; skipped" >&2; exit 77; }
[ -n "$pristine" ] || [ "${HELIX_CLEAN_ROOT_CHECK:-}" = 1 ] ||
  skip "set HELIX_CLEAN_ROOT_CHECK=1 or pass a pristine root to run it"
[ "$(id -u)" = 0 ] || skip "not root (chroot and mount need it)"
for tool in cpack chroot mount; do command -v "$tool" >/dev/null || skip "no $tool"; done
work=$(mktemp -d)
root="$work/root"
cleanup() {
  mountpoint -q "$root/proc" 2>/dev/null && umount "$root/proc"
  rm -rf "$work"
}
trap cleanup EXIT

if [ -n "$pristine" ]; then
  cp -a "$pristine" "$root"
else
  command -v debootstrap >/dev/null || skip "no debootstrap (scripts/bootstrap installs it)"
  debootstrap --variant=minbase --include=man-db,bash-completion bookworm "$root" \
    http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 ||
    skip "debootstrap failed (is deb.debian.org reachable?): $(tail -1 "$work/debootstrap.log")"
fi
grep -q '^12\.' "$root/etc/debian_version" || { echo "clean_root_check: not Debian 12" >&2; exit 1; }

(cd "$build" && cpack -G DEB -B "$work/pkg" >/dev/null)
host_deb=$(basename "$(ls "$work"/pkg/helix_*.deb)")
dev_deb=$(basename "$(ls "$work"/pkg/helix-dev_*.deb)")
cp "$work/pkg/$host_deb" "$work/pkg/$dev_deb" "$root/tmp/"
cp /etc/resolv.conf "$root/etc/resolv.conf"
"$here/scripts/make-sample-home" "$here/tests/fixtures" "$root/tmp/home" >/dev/null
mount -t proc proc "$root/proc"
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
files() { (cd "$root" && find . -xdev \( -path ./proc -o -path ./tmp -o -path ./var/lib/apt \
  -o -path ./var/lib/dpkg -o -path ./var/cache -o -path ./var/log \) -prune -o -print | sort); }
files >"$work/before.txt"

in_root apt-get update -qq >"$work/apt.log" 2>&1 || skip "apt-get update failed in the root"
in_root apt-get install -y -qq --no-install-recommends "/tmp/$host_deb" "/tmp/$dev_deb" \
  >>"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; exit 1; }
echo "clean_root_check: apt-get install ./$host_deb ./$dev_deb on Debian" \
  "$(cat "$root/etc/debian_version"): $(grep -c '^Setting up' "$work/apt.log" || true) packages set up"
in_root helix-host --version | head -1
in_root helix-host plugins --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
names = sorted(p["name"] for p in d["loaded"])
assert not d["refused"] and {"claude", "codex", "grok", "session_digest"} <= set(names), d
print("clean_root_check: helix-host plugins: " + " ".join(names))'
sweep=$(in_root env CLAUDE_CONFIG_DIR=/tmp/home/claude CODEX_HOME=/tmp/home/codex \
  GROK_HOME=/tmp/home/grok GEMINI_CLI_HOME=/tmp/home/gemini helix-host sweep --json 2>/dev/null)
sessions=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["sessions_touched"])' <<<"$sweep")
[ "$sessions" -gt 0 ] || { echo "clean_root_check: the sweep stored no session: $sweep" >&2; exit 1; }
echo "clean_root_check: helix-host sweep stored $sessions sessions"
in_root env MANWIDTH=80 man helix-host 2>/dev/null | grep -q "helix-host search" ||
  { echo "clean_root_check: man helix-host does not render" >&2; exit 1; }
echo "clean_root_check: man helix-host renders"
completions=$(in_root bash -c 'source /usr/share/bash-completion/bash_completion
  _completion_loader helix-host; COMP_WORDS=(helix-host se); COMP_CWORD=1; COMP_LINE="helix-host se"
  COMP_POINT=${#COMP_LINE}; _helix_host helix-host se helix-host; echo "${COMPREPLY[*]}"')
[ "$completions" = "sessions search" ] ||
  { echo "clean_root_check: helix-host se<TAB> gives '$completions'" >&2; exit 1; }
echo "clean_root_check: helix-host se<TAB> completes to: $completions"

in_root apt-get purge -y -qq helix-dev helix >>"$work/apt.log" 2>&1
in_root apt-get autoremove --purge -y -qq >>"$work/apt.log" 2>&1
rm -rf "$root/root/.local" "$root/root/.config"  # the sweep's store and config: the user's data
files >"$work/after.txt"
if ! diff -u "$work/before.txt" "$work/after.txt" >"$work/left.txt"; then
  echo "clean_root_check: purge left the root changed:" >&2
  head -40 "$work/left.txt" >&2
  exit 1
fi
echo "clean_root_check: apt-get purge helix-dev helix && apt-get autoremove --purge leave the root as it was"

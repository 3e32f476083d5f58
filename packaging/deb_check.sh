#!/usr/bin/env bash
# The install as a user gets it: the host, installed anywhere, finds its plugins beside itself
# whatever the libdir; `cpack -G DEB` packages install into a fresh dpkg database (dpkg --root)
# and work there (plugins, man page, completion of `helix-host se<TAB>`); `dpkg -r` leaves no
# file behind.
#   packaging/deb_check.sh <build dir>
# Exits 77 (skipped) without cpack, dpkg or man.
set -euo pipefail
build=${1:?usage: deb_check.sh <build dir>}
for tool in cpack dpkg dpkg-deb man; do
  command -v "$tool" >/dev/null || { echo "deb_check: no $tool; skipped" >&2; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")

expect_plugins() {  # <helix-host> : every installed plugin loads, with no --plugins option
  "$1" plugins --json | python3 -c '
import glob, json, os, sys
d = json.load(sys.stdin)
assert not d["refused"], d["refused"]
here = os.path.dirname(os.path.dirname(sys.argv[1]))
installed = glob.glob(here + "/lib*/**/helix/plugins/libhelix_*.so", recursive=True)
names = sorted(p["name"] for p in d["loaded"])
assert len(names) == len(installed) and "claude" in names and "session_digest" in names, (names, installed)
print(" ".join(names))' "$1" >"$work/plugins.txt" ||
    { echo "deb_check: $1 does not load every installed plugin" >&2; exit 1; }
}

# 1. A plain install (DESTDIR), run from where it landed.
DESTDIR="$work/dest" cmake --install "$build" --component host >/dev/null
expect_plugins "$work/dest$prefix/bin/helix-host"
echo "deb_check: installed under $prefix, the host finds its plugins: $(cat "$work/plugins.txt")"

# 2. The packages, which install under /usr whatever the build's prefix
# (CPACK_PACKAGING_INSTALL_PREFIX).
prefix=/usr
(cd "$build" && cpack -G DEB -B "$work/pkg" >/dev/null)
host_deb=$(ls "$work"/pkg/helix_*.deb)
dev_deb=$(ls "$work"/pkg/helix-dev_*.deb)
host_files=$(dpkg-deb -c "$host_deb")
dev_files=$(dpkg-deb -c "$dev_deb")
has() { grep -q "$2" <<<"$1" || { echo "deb_check: no $2 in the package" >&2; exit 1; }; }
has "$host_files" "$prefix/bin/helix-host$"
has "$host_files" "/helix/plugins/libhelix_claude.so$"
has "$host_files" "/man1/helix-host.1"
has "$host_files" "/bash-completion/completions/helix-host$"
has "$host_files" "/zsh/vendor-completions/_helix-host$"
has "$host_files" "/fish/vendor_completions.d/helix-host.fish$"
has "$host_files" "/lib/systemd/user/helix-sweep.timer$"
has "$host_files" "/lib/systemd/user/helix-watch.service$"
has "$dev_files" "/include/helix/helix_plugin.h$"
has "$dev_files" "/cmake/HelixSDK/HelixSDKConfig.cmake$"
has "$(dpkg-deb -f "$host_deb" Depends)" libsqlite3
echo "deb_check: $(basename "$host_deb") and $(basename "$dev_deb") hold what they should"

root="$work/root"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
# The libraries come from this system, not the empty root: their dependencies are not checked.
dpkg --root="$root" --force-depends --log=/dev/null -i "$host_deb" "$dev_deb" \
  >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log" >&2; exit 1; }
expect_plugins "$root$prefix/bin/helix-host"
MANWIDTH=80 man -l "$root$prefix/share/man/man1/helix-host.1" 2>/dev/null | grep -q "helix-host search"
completions=$(bash -c "source '$root$prefix/share/bash-completion/completions/helix-host'
  COMP_WORDS=(helix-host se); COMP_CWORD=1; _helix_host; echo \"\${COMPREPLY[*]}\"")
[ "$completions" = "sessions search" ] ||
  { echo "deb_check: helix-host se<TAB> gives '$completions'" >&2; exit 1; }
echo "deb_check: dpkg -i: plugins load, man page renders, se<TAB> completes to: $completions"
dpkg --root="$root" --log=/dev/null -r helix-dev helix >/dev/null
left=$(find "$root" -mindepth 1 -not -path "$root/var/lib/dpkg*" -type f | head)
[ -z "$left" ] || { echo "deb_check: dpkg -r left: $left" >&2; exit 1; }
echo "deb_check: dpkg -r leaves nothing"

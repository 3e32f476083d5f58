#!/usr/bin/env bash
# The SDK as a third party sees it: install the SDK and helix-host from a build tree, build
# examples/keiseikit out of tree against the installed HelixSDK package only, check that the
# installed helix-host loads the plugin from a directory holding nothing else, that it exports
# one symbol and passes the installed helix-plugin-check, and sweep the example's sample trace
# with it.
# Usage: sdk_out_of_tree.sh <helix build dir> <helix source dir>   (registered with CTest)
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 <helix build dir> <helix source dir>" >&2; exit 2; }
build=$(realpath "$1")
source=$(realpath "$2")
work=$(mktemp -d "${TMPDIR:-/tmp}/helix-sdk-oot.XXXXXX")
prefix="$work/prefix"
step="setup"

on_exit() {
  local status=$?
  if [ "$status" -eq 0 ]; then
    rm -rf "$work"
  else
    echo "sdk_out_of_tree: FAILED while: $step (exit $status); files kept in $work" >&2
  fi
}
trap on_exit EXIT

run() {
  echo "+ $*" >&2
  "$@"
}
fail() {
  echo "sdk_out_of_tree: FAILED: $*" >&2
  exit 1
}

step="installing $build into $prefix (the build must be complete: cmake --build $build)"
run cmake --install "$build" --prefix "$prefix" >"$work/install.log" ||
  { cat "$work/install.log" >&2; fail "$step"; }
[ -x "$prefix/bin/helix-host" ] || fail "no bin/helix-host in the installed prefix"
[ -f "$prefix/include/helix/helix_plugin.h" ] || fail "no include/helix/helix_plugin.h installed"

step="configuring examples/keiseikit out of tree against $prefix"
run cmake -S "$source/examples/keiseikit" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
  -DCMAKE_COMPILE_WARNING_AS_ERROR=ON
sdk_dir=$(sed -n 's/^HelixSDK_DIR:PATH=//p' "$work/build/CMakeCache.txt")
[[ "$sdk_dir" == "$prefix"/* ]] || fail "HelixSDK was found at '$sdk_dir', not in $prefix"

step="building examples/keiseikit out of tree"
run cmake --build "$work/build"
plugin="$work/build/libhelix_keiseikit.so"
[ -f "$plugin" ] || fail "the build produced no $plugin"

step="checking the plugin's exported symbols"
# helix_add_plugin's version script exports helix_plugin_query alone, also the weak and unique
# symbols (template and inline statics, Boost.System's error categories) that headers mark
# visible and -fvisibility=hidden alone lets through.
nm -D --defined-only "$plugin" | grep -q ' T helix_plugin_query$' ||
  fail "$plugin does not export helix_plugin_query"
extra=$(nm -D --defined-only "$plugin" | awk '$3 != "helix_plugin_query"')
[ -z "$extra" ] || fail "$plugin exports more than helix_plugin_query:"$'\n'"$extra"

step="checking the plugin with the installed helix-plugin-check"
[ -x "$prefix/bin/helix-plugin-check" ] || fail "no bin/helix-plugin-check in the installed prefix"
run "$prefix/bin/helix-plugin-check" "$plugin" --sample "$source/examples/keiseikit/sample" ||
  fail "helix-plugin-check failed the example"

step="loading the plugin with the installed helix-host"
mkdir "$work/plugins" "$work/home"
cp "$plugin" "$work/plugins/"
host=(env HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config"
  XDG_DATA_HOME="$work/home/.local/share" "$prefix/bin/helix-host" --plugins "$work/plugins")
output=$(run "${host[@]}" plugins)
echo "$output"
expected_path="$work/plugins/libhelix_keiseikit.so"
# One line per loaded plugin: name, kind, version, ABI, path (tab- or space-separated, after an
# optional header); refusals start with "refused".
echo "$output" | awk -v path="$expected_path" '
  $1 == "keiseikit" && $2 == "adapter" && $3 == "0.1.0" && $4 ~ /^1\.[0-9]+$/ && $5 == path {ok = 1}
  END {exit !ok}' || fail "helix-host did not list keiseikit as a loaded adapter from $expected_path"
if echo "$output" | grep -q '^refused'; then fail "helix-host refused a plugin"; fi

step="sweeping the example's sample trace with the installed helix-host and the plugin"
host=(env HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config"
  XDG_DATA_HOME="$work/home/.local/share" KEISEIKIT_HOME="$source/examples/keiseikit/sample"
  "$prefix/bin/helix-host" --plugins "$work/plugins" --store "$work/store")
run "${host[@]}" sweep
sessions=$(run "${host[@]}" sessions --json)
echo "$sessions"
grep -Eq '"session_uid": *"keiseikit:bf053cbd-a6f8-47a6-a80f-11b829d63980"' <<<"$sessions" ||
  fail "the sweep stored no session keiseikit:bf053cbd-a6f8-47a6-a80f-11b829d63980"
grep -Eq '"event_count": *6[,}]' <<<"$sessions" ||
  fail "the sample's session does not hold its 6 events"

step="done"
echo "sdk_out_of_tree: OK (SDK installed, example built out of tree, loaded, sample swept)"

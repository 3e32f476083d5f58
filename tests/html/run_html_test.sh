#!/usr/bin/env bash
# `export --format html` and `report --html` read in a real browser and checked by a validator:
#   tests/html/run_html_test.sh <build dir> [screenshot dir]
# Sweeps the bundled fixtures of every flavor (one prompt given a made-up AWS access key, so that
# a redaction shows), exports pages chosen for subagents, compaction, failed tool calls and each
# flavor, writes the report of the fixtures' range, then:
#   - tidy (Debian's HTML Tidy 5) must report nothing, warnings included, for every page;
#   - headless Chromium (browser_check.py) must load each page with no console error and no
#     request beyond the page itself, find the session's prompts in the DOM, the structures
#     each page was chosen for, the report's SVG charts, its working sort and its links;
#   - the planted key is nowhere in the output, its redaction marker is;
#   - a broken page must fail the same checks (the checker can fail).
# Screenshots and the report's PDF print go to the screenshot dir (default <build>/html-check).
# Exits 0 when all pass, 1 otherwise, 77 when chromium is not installed (scripts/bootstrap).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:?usage: run_html_test.sh <build dir> [screenshot dir]}" && pwd)
shots=${2:-$build/html-check}
command -v "${CHROMIUM:-chromium}" >/dev/null ||
  { echo "run_html_test: chromium is not installed (scripts/bootstrap installs it); skipped" >&2; exit 77; }
command -v tidy >/dev/null ||
  { echo "run_html_test: tidy is missing: run scripts/bootstrap" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$shots"

"$root/scripts/make-sample-home" "$root/tests/fixtures" "$work/home"
key="AKIA$(head -c 256 /dev/urandom | tr -dc 'A-Z2-7' | head -c 16)"  # made up, never real
sed -i "s|can you add a standard MIT license?|can you add a standard MIT license? my key is $key|" \
  "$work/home/claude/projects/-samples-entire-2.0.76-tool-errors/"*.jsonl
export CLAUDE_CONFIG_DIR="$work/home/claude" CODEX_HOME="$work/home/codex"
export GROK_HOME="$work/home/grok" XDG_CONFIG_HOME="$work/xdg" TZ=UTC
helix=("$build/bin/helix-host" --plugins "$build/plugins" --store "$work/store")
"${helix[@]}" sweep --quiet

failures=0
fail() { echo "run_html_test: $*" >&2; failures=$((failures + 1)); }

validate() {  # tidy in its strictest reporting: any warning is a failure
  local report
  report=$(tidy -q -e --show-warnings yes --show-info yes "$1" 2>&1) || true
  [ -z "$report" ] || fail "tidy on $(basename "$1"):"$'\n'"$report"
}

# The session's prompts (main conversation and subagents), as --text arguments.
prompts() {
  "${helix[@]}" show "$1" --json | python3 -c '
import json, sys
doc = json.load(sys.stdin)
texts = [e["text"] for e in doc["events"] if e["kind"] == "user_msg" and e.get("text", "").strip()]
for t in texts[:6]:
    print("--text"); print(t.strip().splitlines()[0][:120])'
}

check_page() {  # <uid> <name> [browser_check options...]
  local uid=$1 name=$2
  shift 2
  "${helix[@]}" export "$uid" --format html --out "$work/$name.html"
  validate "$work/$name.html"
  mapfile -t texts < <(prompts "$uid")
  [ ${#texts[@]} -gt 0 ] || fail "$uid has no prompt to look for"
  python3 "$here/browser_check.py" "$work/$name.html" "${texts[@]}" "$@" \
    --screenshot "$shots/$name.png" --first-screen || fail "$name.html in Chromium"
}

check_page claude:29ccd257-68b1-427f-ae5f-6524b7cb6f20 subagents \
  --selector "details.tool .subagent" --text "subagent a2271d1"
check_page claude:198393f2-22db-477b-ac77-1825bea883ae compaction --selector ".compaction" \
  --selector "details.thinking"
check_page codex:01a2029b-bd0f-7b52-b27b-ba8d4ea361c8 failed-call --selector "details.tool.failed"
check_page grok:01a2029c-db54-7f63-8de6-3e496b22d736 grok --selector "details.tool"
check_page claude:cf564e14-9b07-42ad-8d9a-4faa1b79a0ed redaction \
  --selector "mark.redacted" --text "[REDACTED:aws-access-token]"

"${helix[@]}" report --html --since 2025-07-01 --until 2026-11-30 --out "$work/report"
for page in "$work"/report/index.html "$work"/report/sessions/*.html; do validate "$page"; done
python3 "$here/browser_check.py" "$work/report/index.html" --min-svg 7 --links-exist --sort-table \
  --text "Cost per month" --text "Most frequent errors" --text "can you add a standard MIT license?" \
  --screenshot "$shots/report.png" --pdf "$shots/report.pdf" || fail "the report in Chromium"
python3 "$here/browser_check.py" "$work/report/index.html" \
  --screenshot "$shots/report-first-screen.png" --first-screen || fail "the report's first screen"
[ "$(head -c 4 "$shots/report.pdf")" = "%PDF" ] || fail "the report did not print to PDF"

if grep -rl -- "$key" "$work"/*.html "$work/report" >/dev/null; then
  fail "the planted key is in the HTML"
fi

# The checker itself: a page with a console error, a request for another file and no prompt.
cat >"$work/broken.html" <<'EOF'
<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>broken</title></head>
<body><img src="elsewhere.png" alt=""><script>console.error("broken on purpose")</script></body></html>
EOF
if python3 "$here/browser_check.py" "$work/broken.html" --text "a prompt" 2>"$work/broken.log"; then
  fail "browser_check passed a broken page"
fi
for expected in "console error" "network request" "text not in the DOM"; do
  grep -q "$expected" "$work/broken.log" || fail "browser_check did not report: $expected"
done

[ "$failures" -eq 0 ] || { echo "run_html_test: $failures failures" >&2; exit 1; }
echo "run_html_test: all pages valid and clean in Chromium; screenshots in $shots"

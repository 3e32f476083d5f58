#!/usr/bin/env bash
# Compares `helix-host usage --by day --json` with ccusage@20.0.24 (`--offline --json`, days in
# UTC) on the same Claude Code and Codex data: token totals and costs per day must be equal
# (costs to a millionth of a dollar: the two add the same products in another order).
#   bench/ccusage_compare.sh <build dir> [fixtures dir] [results file]
# Without a fixtures dir it uses tests/fixtures laid out by scripts/make-sample-home. Installs
# ccusage from npm into a temporary prefix; exits 0 when every figure matches or differs
# exactly as bench/ccusage_known_differences.tsv lists (each explained in
# bench/ccusage_results.md), 1 otherwise, 77 when ccusage cannot be installed (npm missing or
# offline).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: ccusage_compare.sh <build dir> [fixtures dir] [results file]}
fixtures=${2:-$here/tests/fixtures}
results=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! command -v npm >/dev/null ||
   ! npm install --silent --prefix "$work/npm" ccusage@20.0.24 >"$work/npm.log" 2>&1; then
  echo "ccusage_compare: cannot install ccusage@20.0.24 from npm; skipped" >&2
  exit 77
fi
ccusage="$work/npm/node_modules/.bin/ccusage"

"$here/scripts/make-sample-home" "$fixtures" "$work/home"
# ccusage's de-duplication cases, one day each (tests/fixtures/ccusage-dedup/SOURCES.md):
# 2027-01-01 a subagent file repeating its parent's record (same message.id and requestId: one
# call), 2027-01-02 two lines with one message.id and no requestId (two calls), 2027-01-03 lines
# ccusage drops although they are valid (a space after "usage":, "costUSD": null).
cp -r "$fixtures/ccusage-dedup/claude-projects/." "$work/home/claude/projects/"
export CLAUDE_CONFIG_DIR="$work/home/claude" CODEX_HOME="$work/home/codex"
export GROK_HOME="$work/home/grok" XDG_CONFIG_HOME="$work/xdg" HOME="$work/fakehome" TZ=UTC
mkdir -p "$HOME"
helix=("$build/bin/helix-host" --plugins "$build/plugins" --store "$work/store")
"${helix[@]}" sweep --quiet 2>/dev/null
"${helix[@]}" usage --by day --flavor claude --json >"$work/helix-claude.json"
"${helix[@]}" usage --by day --flavor codex --json >"$work/helix-codex.json"
"$ccusage" claude daily --offline --json --timezone UTC >"$work/ccusage-claude.json"
"$ccusage" codex daily --offline --json --timezone UTC >"$work/ccusage-codex.json"

python3 - "$work" "$results" "$here/bench/ccusage_known_differences.tsv" <<'PY'
import json, sys
work, results, known_file = sys.argv[1], sys.argv[2], sys.argv[3]
known = {tuple(l.rstrip("\n").split("\t")) for l in open(known_file)
         if l.strip() and not l.startswith("#")}

def helix(flavor):
    doc = json.load(open(f"{work}/helix-{flavor}.json"))
    return {r["day"]: r for r in doc["rows"]}

def ccusage(flavor):
    return {d["date"]: d for d in json.load(open(f"{work}/ccusage-{flavor}.json"))["daily"]}

# ccusage's fields in Helix's convention (input excludes cache reads and writes).
fields = [("input_tokens", "inputTokens"), ("output_tokens", "outputTokens"),
          ("cache_creation_tokens", "cacheCreationTokens"), ("cache_read_tokens", "cacheReadTokens")]
lines, differ, unexplained = [], 0, []
for flavor in ("claude", "codex"):
    ours, theirs = helix(flavor), ccusage(flavor)
    lines.append(f"## {flavor}\n")
    lines.append("| day | field | helix | ccusage | diff |\n|---|---|---|---|---|\n")
    for day in sorted(set(ours) | set(theirs)):
        o, t = ours.get(day, {}), theirs.get(day, {})
        if not any(o.get(f, 0) for f, _ in fields) and day not in theirs:
            continue  # a day with zero-token records only: ccusage lists no such day
        for f, g in fields:
            a, b = o.get(f, 0), t.get(g, 0)
            mark = "" if a == b else " **differs**"
            differ += a != b
            if a != b and (flavor, day, f, str(a), str(b)) not in known:
                unexplained.append(f"{flavor} {day} {f}: helix {a}, ccusage {b}")
            lines.append(f"| {day} | {f} | {a} | {b} | {a - b}{mark} |\n")
        if flavor == "codex":
            a, b = o.get("reasoning_tokens", 0), t.get("reasoningOutputTokens", 0)
            differ += a != b
            if a != b and (flavor, day, "reasoning_tokens", str(a), str(b)) not in known:
                unexplained.append(f"{flavor} {day} reasoning_tokens: helix {a}, ccusage {b}")
            lines.append(f"| {day} | reasoning_tokens | {a} | {b} | {a - b}{'' if a == b else ' **differs**'} |\n")
        a, b = o.get("cost_usd", 0), t.get("totalCost", t.get("costUSD")) or 0
        same = abs(a - b) <= 1e-6
        differ += not same
        if not same and (flavor, day, "cost_usd", f"{a:.6f}", f"{b:.6f}") not in known:
            unexplained.append(f"{flavor} {day} cost_usd: helix {a:.6f}, ccusage {b:.6f}")
        lines.append(f"| {day} | cost_usd | {a:.6f} | {b:.6f} | {a - b:.6f}{'' if same else ' **differs**'} |\n")
text = "".join(lines) + f"\n{differ} figures differ, {len(unexplained)} of them unexplained.\n"
print(text)
for u in unexplained:
    print("unexplained difference:", u, file=sys.stderr)
if results:
    open(results, "w").write("# helix-host usage vs ccusage@20.0.24 (UTC days, tests/fixtures)\n\n" + text)
sys.exit(1 if unexplained else 0)
PY

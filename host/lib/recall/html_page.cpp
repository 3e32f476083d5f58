// The HTML page shell (see html_page.hpp).
#include "recall/html_page.hpp"

#include <fmt/format.h>

#include <cctype>

#include "recall/session_json.hpp"

namespace helix {
namespace {

// One style sheet for transcripts and reports: system fonts only, light and dark, and a print
// form that opens folded sections and keeps blocks whole.
constexpr std::string_view kStyle = R"css(
:root { --fg: #1d232a; --muted: #5d6875; --bg: #ffffff; --panel: #f5f7f9; --line: #d9dee4;
  --user: #2563eb; --assistant: #64748b; --tool: #0f766e; --sub: #7c3aed; --error: #b91c1c;
  --error-bg: #fef2f2; --mark: #fde68a; --ok: #15803d; --warn: #b45309; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e5e7eb; --muted: #9aa4b2; --bg: #111418; --panel: #1a1f25; --line: #2c333b;
    --user: #60a5fa; --assistant: #94a3b8; --tool: #2dd4bf; --sub: #a78bfa; --error: #f87171;
    --error-bg: #2a1414; --mark: #854d0e; --ok: #4ade80; --warn: #fbbf24; } }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 72rem; padding: 1.5rem; color: var(--fg); background: var(--bg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
h1 { font-size: 1.5rem; margin: .2rem 0 .8rem; overflow-wrap: anywhere; }
h2 { font-size: 1.15rem; margin: 2rem 0 .6rem; padding-bottom: .3rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1rem; margin: 1.2rem 0 .4rem; }
a { color: var(--user); }
code, pre, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "Liberation Mono", monospace; font-size: 13px; }
pre { margin: .4rem 0; padding: .6rem .8rem; background: var(--panel); border: 1px solid var(--line);
  border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere; }
.kicker { color: var(--muted); margin: 0; font-size: .9rem; }
.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr) max-content minmax(0, 1fr);
  gap: .35rem 1rem; align-items: baseline; margin: 0 0 1rem; padding: .8rem 1rem;
  background: var(--panel); border-radius: 8px; }
@media (max-width: 48rem) { .facts { grid-template-columns: max-content minmax(0, 1fr); } }
.facts dt { color: var(--muted); font-size: .8rem; text-transform: uppercase; letter-spacing: .04em; }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.badge { display: inline-block; padding: 0 .5rem; border-radius: 999px; font-size: .8rem;
  border: 1px solid currentColor; }
.outcome-success { color: var(--ok); } .outcome-fail { color: var(--error); }
.outcome-abandoned { color: var(--warn); } .outcome-unknown { color: var(--muted); }
.turn-head { display: flex; justify-content: space-between; align-items: baseline; gap: 1rem; }
.turn-head time { color: var(--muted); font-size: .85rem; font-weight: normal; }
.msg { margin: .6rem 0; padding: .5rem .9rem; border-left: 4px solid var(--assistant);
  background: var(--panel); border-radius: 0 6px 6px 0; break-inside: avoid; }
.msg > .who { font-size: .8rem; font-weight: 600; color: var(--muted); text-transform: uppercase;
  letter-spacing: .04em; }
.msg > .text { white-space: pre-wrap; overflow-wrap: anywhere; }
.msg.user { border-left-color: var(--user); }
.msg.error, details.tool.failed > summary { background: var(--error-bg); border-left-color: var(--error); }
.msg.error .who { color: var(--error); }
details { margin: .4rem 0; border: 1px solid var(--line); border-radius: 6px; padding: 0 .7rem; }
details > summary { cursor: pointer; padding: .35rem 0; overflow-wrap: anywhere; }
details[open] > summary { border-bottom: 1px solid var(--line); margin-bottom: .4rem; }
details.thinking { color: var(--muted); font-style: italic; border-style: dashed; }
details.tool > summary .name { font-weight: 600; color: var(--tool); }
details.tool.failed { border-color: var(--error); }
.flag { color: var(--error); font-weight: 600; }
.label { color: var(--muted); font-size: .8rem; margin: .5rem 0 0; }
.subagent { margin: .6rem 0 .6rem .5rem; padding: .2rem 0 .2rem .9rem; border-left: 3px solid var(--sub); }
.subagent > .label { color: var(--sub); font-weight: 600; }
.compaction { margin: 1.2rem 0; text-align: center; color: var(--warn); border-top: 2px dashed var(--warn);
  line-height: 0; }
.compaction span { background: var(--bg); padding: 0 .6rem; font-size: .85rem; font-weight: 600; }
mark.redacted { background: var(--mark); color: inherit; border-radius: 3px; padding: 0 .15rem; }
.note { color: var(--muted); font-size: .9rem; }
footer { margin-top: 2.5rem; color: var(--muted); font-size: .8rem; border-top: 1px solid var(--line); padding-top: .6rem; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
th, td { padding: .3rem .5rem; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
th button { all: inherit; cursor: pointer; font-weight: 600; }
th[aria-sort=ascending] button::after { content: " \25B2"; }
th[aria-sort=descending] button::after { content: " \25BC"; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(11rem, 1fr)); gap: .8rem; margin: 1rem 0; }
.card { background: var(--panel); border-radius: 8px; padding: .7rem 1rem; }
.card .value { font-size: 1.4rem; font-weight: 600; }
.card .what { color: var(--muted); font-size: .8rem; text-transform: uppercase; letter-spacing: .04em; }
.grid2 { display: grid; grid-template-columns: repeat(auto-fit, minmax(22rem, 1fr)); gap: 1.5rem; }
figure { margin: 0 0 1.2rem; }
figcaption { color: var(--muted); font-size: .85rem; margin-top: .3rem; }
svg.chart { width: 100%; height: auto; }
svg.chart.bars { max-width: 40rem; display: block; }
svg.chart text { fill: var(--fg); font: 11px system-ui, sans-serif; }
svg.chart .axis { stroke: var(--line); }
.legend { display: flex; flex-wrap: wrap; gap: .3rem 1rem; font-size: .85rem; margin: .3rem 0; padding: 0; list-style: none; }
.legend .swatch { margin-right: .3rem; }
@media print {
  body { max-width: none; padding: 0; font-size: 11pt; color: #000; background: #fff; }
  details { border-color: #999; }
  details::details-content { content-visibility: visible; display: block; }
  .msg, details, figure, .card, tr { break-inside: avoid; }
  h2 { break-after: avoid; }
  th button::after { content: none; }
  a { color: #000; }
}
)css";

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string html_text(std::string_view text) {
  static constexpr std::string_view kMarker = "[REDACTED:";
  std::string out;
  std::size_t from = 0;
  for (auto at = text.find(kMarker); at != std::string_view::npos; at = text.find(kMarker, from)) {
    const auto end = text.find(']', at);
    if (end == std::string_view::npos) break;
    const std::string_view marker = text.substr(at, end + 1 - at);
    const std::string_view rule = marker.substr(kMarker.size(), marker.size() - kMarker.size() - 1);
    out += html_escape(text.substr(from, at - from));
    out += fmt::format(
        R"html(<mark class="redacted" title="a secret was removed here (rule {})">{}</mark>)html",
        html_escape(rule), html_escape(marker));
    from = end + 1;
  }
  return out + html_escape(text.substr(from));
}

std::string html_time(int64_t unix_ms) {
  const std::string iso = iso8601(unix_ms);
  if (iso.empty()) return "unknown";
  return fmt::format(R"(<time datetime="{}">{} {} UTC</time>)", iso, iso.substr(0, 10),
                     iso.substr(11, 5));
}

std::string html_document(std::string_view title, std::string_view body, std::string_view script) {
  std::string doc = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta name=\"generator\" content=\"helix-host\">\n<title>{}</title>\n<style>{}</style>\n"
      "</head>\n<body>\n{}",
      html_escape(title), kStyle, body);
  if (!script.empty()) doc += fmt::format("<script>{}</script>\n", script);
  return doc + "</body>\n</html>\n";
}

std::string session_page_name(std::string_view uid) {
  std::string name;
  for (char c : uid)
    name +=
        (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_') ? c : '_';
  return name + ".html";
}

std::string thousands(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

}  // namespace helix

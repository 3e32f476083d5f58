// HTML transcripts (see html_transcript.hpp).
#include "recall/html_transcript.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>

#include "base/text.hpp"
#include "recall/conversation.hpp"
#include "recall/html_page.hpp"
#include "recall/session_json.hpp"

namespace helix {
namespace {

constexpr std::size_t kSummaryChars = 100;
constexpr int kMaxDepth = 8;

std::string block(std::string_view text) {
  if (text.empty()) return "<p class=\"note\">(empty)</p>";
  return fmt::format("<pre>{}</pre>", html_text(truncated(text, kHtmlMaxBlockBytes)));
}

std::string fact(std::string_view name, const std::string& value_html) {
  return fmt::format("<dt>{}</dt><dd>{}</dd>", name, value_html);
}

std::string duration(int64_t ms) {
  if (ms <= 0) return "unknown";
  const int64_t s = ms / 1000;
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{} min", s / 60);
  return fmt::format("{} h {} min", s / 3600, (s % 3600) / 60);
}

std::string outcome_badge(const std::string& outcome) {
  const std::string o = outcome.empty() ? "unknown" : outcome;
  return fmt::format(R"(<span class="badge outcome-{0}">{0}</span>)", html_escape(o));
}

std::string header(const SessionRow& s, double cost_usd) {
  std::string facts;
  facts += fact("Session", fmt::format("<code>{}</code>", html_escape(s.uid)));
  facts += fact("Repository", s.repo.empty() ? "unknown" : html_text(s.repo));
  if (!s.cwd.empty()) facts += fact("Directory", fmt::format("<code>{}</code>", html_text(s.cwd)));
  if (!s.git_branch.empty()) facts += fact("Branch", html_text(s.git_branch));
  std::string agent = html_escape(s.flavor);
  if (!s.agent_version.empty()) agent += " " + html_escape(s.agent_version);
  if (!s.model.empty()) agent += fmt::format(" · <code>{}</code>", html_escape(s.model));
  facts += fact("Agent", agent);
  facts += fact("Started", html_time(s.started_at_ms));
  facts += fact("Ended", html_time(s.ended_at_ms));
  facts += fact("Duration", s.started_at_ms > 0 && s.ended_at_ms > 0
                                ? duration(s.ended_at_ms - s.started_at_ms)
                                : "unknown");
  facts +=
      fact("Tokens", fmt::format("{} in · {} out · {} cache read · {} cache write",
                                 thousands(s.usage.input_tokens), thousands(s.usage.output_tokens),
                                 thousands(s.usage.cache_read_tokens),
                                 thousands(s.usage.cache_creation_tokens)));
  facts += fact("Cost", fmt::format("${:.4f}", cost_usd));
  facts += fact("Outcome", outcome_badge(s.outcome));
  facts += fact("Redactions", s.redactions == 0
                                  ? std::string("none")
                                  : fmt::format("{} secret{} replaced by <mark class=\"redacted\">"
                                                "[REDACTED:rule]</mark> markers",
                                                s.redactions, s.redactions == 1 ? "" : "s"));
  return fmt::format(
      "<header>\n<p class=\"kicker\">Helix · {} session</p>\n<h1>{}</h1>\n<dl class=\"facts\">{}"
      "</dl>\n</header>\n",
      html_escape(s.flavor), html_text(s.title.empty() ? "Untitled session" : s.title), facts);
}

// The first string argument of a JSON object input, else the input: for a summary line.
std::string first_argument(const std::string& input) {
  boost::system::error_code ec;
  const auto v =
      !input.empty() && input.front() == '{' ? boost::json::parse(input, ec) : boost::json::value();
  if (!ec && v.is_object())
    for (const auto& [key, value] : v.as_object())
      if (value.is_string()) return std::string(value.as_string());
  return input;
}

// A JSON object input as "name: value" lines; anything else as it is.
std::string input_lines(const std::string& input) {
  boost::system::error_code ec;
  const auto v =
      !input.empty() && input.front() == '{' ? boost::json::parse(input, ec) : boost::json::value();
  if (ec || !v.is_object()) return input;
  std::string out;
  for (const auto& [key, value] : v.as_object())
    out += fmt::format(
        "{}: {}\n", std::string_view(key),
        value.is_string() ? std::string(value.as_string()) : boost::json::serialize(value));
  return out;
}

class Renderer {
 public:
  Renderer(const Conversation& c, const std::vector<EventRow>& events) : c_(c), events_(events) {}

  std::string turns() {
    for (const auto& t : c_.turns) {
      const int64_t started = t.steps.empty() ? 0 : events_[t.steps.front().event].ts_ms;
      out_ += fmt::format(
          "<section class=\"turn\" id=\"turn-{0}\">\n<h2 class=\"turn-head\">Turn {0} {1}</h2>\n",
          t.number, html_time(started));
      steps(t.steps, 0);
      for (std::size_t th : t.threads) thread(th, 1, " (not linked to a call)");
      out_ += "</section>\n";
    }
    return std::move(out_);
  }

 private:
  void steps(const std::vector<Step>& list, int depth) {
    for (const Step& s : list) step(s, depth);
  }

  void step(const Step& s, int depth) {
    const EventRow& e = events_[s.event];
    const std::string& text = e.text.empty() ? e.summary : e.text;
    switch (s.kind) {
      case StepKind::prompt:
        message("user", depth > 0 ? "Subagent task" : "User", e, text);
        break;
      case StepKind::answer:
        message("assistant", depth > 0 ? "Subagent" : "Assistant", e, text);
        break;
      case StepKind::interruption:
        message("user", "User interrupted", e, text);
        break;
      case StepKind::decision:
        message("user", "Decision", e, text);
        break;
      case StepKind::thinking:
        out_ += fmt::format("<details class=\"thinking\"><summary>Thinking</summary>{}</details>\n",
                            block(text));
        break;
      case StepKind::error:
        out_ += fmt::format(
            "<div class=\"msg error\" role=\"alert\"><div class=\"who\">Error{} · "
            "{}</div>{}</div>\n",
            e.tool.empty() ? "" : " of " + html_escape(e.tool), html_time(e.ts_ms), block(text));
        break;
      case StepKind::tool_call:
        tool_call(s, depth);
        break;
      case StepKind::tool_result:
        out_ += fmt::format(
            "<details class=\"tool{}\"><summary>{} of <span class=\"name\">{}"
            "</span></summary>{}</details>\n",
            e.kind == "error" ? " failed" : "", e.kind == "error" ? "Error" : "Result",
            html_escape(e.tool.empty() ? "a tool call" : e.tool), block(text));
        break;
      case StepKind::compaction:
        out_ += fmt::format(
            "<div class=\"compaction\" role=\"separator\"><span>Context compacted"
            " · {}</span></div>\n",
            html_time(e.ts_ms));
        if (s.summary != SIZE_MAX)
          out_ += fmt::format(
              "<details class=\"thinking\"><summary>The summary the compaction "
              "left</summary>{}</details>\n",
              block(events_[s.summary].text.empty() ? events_[s.summary].summary
                                                    : events_[s.summary].text));
        break;
    }
  }

  void message(const char* css, const char* who, const EventRow& e, const std::string& text) {
    out_ += fmt::format(
        "<div class=\"msg {}\"><div class=\"who\">{} · {}</div><div "
        "class=\"text\">{}</div></div>\n",
        css, who, html_time(e.ts_ms), html_text(text));
  }

  void tool_call(const Step& s, int depth) {
    const EventRow& e = events_[s.event];
    const std::string& input = e.text.empty() ? e.summary : e.text;
    std::string line = one_line(first_argument(input), kSummaryChars);
    if (!e.summary.empty()) line = one_line(e.summary, kSummaryChars);
    std::string summary =
        fmt::format("<span class=\"name\">{}</span> {}",
                    html_escape(e.tool.empty() ? e.kind : e.tool), html_text(line));
    const auto shown = std::count_if(s.threads.begin(), s.threads.end(),
                                     [&](std::size_t t) { return !c_.threads[t].steps.empty(); });
    if (shown > 0)
      summary +=
          fmt::format(" <span class=\"note\">· {} subagent{}</span>", shown, shown == 1 ? "" : "s");
    if (s.failed) summary += " <span class=\"flag\">failed</span>";
    out_ += fmt::format("<details class=\"tool{}\"{}><summary>{}</summary>\n",
                        s.failed ? " failed" : "", s.failed ? " open" : "", summary);
    out_ += "<p class=\"label\">Input</p>" + block(input_lines(input)) + "\n";
    if (depth < kMaxDepth)
      for (std::size_t th : s.threads) thread(th, depth + 1, "");
    for (std::size_t r : s.results) {
      const EventRow& res = events_[r];
      out_ += fmt::format("<p class=\"label\">{}</p>{}\n",
                          res.kind == "error" ? "<span class=\"flag\">Error</span>" : "Result",
                          block(res.text.empty() ? res.summary : res.text));
    }
    out_ += "</details>\n";
  }

  void thread(std::size_t t, int depth, const char* note) {
    const Thread& th = c_.threads[t];
    if (th.steps.empty()) return;  // bookkeeping only
    out_ += fmt::format("<div class=\"subagent\"><p class=\"label\">{}{}</p>\n",
                        html_escape(th.label), note);
    steps(th.steps, depth);
    out_ += "</div>\n";
  }

  const Conversation& c_;
  const std::vector<EventRow>& events_;
  std::string out_;
};

std::string footer(std::size_t hidden) {
  return fmt::format(
      "<footer>Written by helix-host from its store, where secrets were redacted as the "
      "transcript was read. {} bookkeeping record{} (lifecycle, progress, metadata) not shown."
      "</footer>\n",
      hidden, hidden == 1 ? " is" : "s are");
}

}  // namespace

std::string html_transcript(const SessionRow& session, const std::vector<EventRow>& events,
                            double cost_usd) {
  const Conversation c = build_conversation(events);
  std::string body = header(session, cost_usd) + "<main>\n";
  if (c.turns.empty()) body += "<p class=\"note\">The session has no conversation to show.</p>\n";
  body += Renderer(c, events).turns() + "</main>\n" + footer(c.hidden);
  return html_document(session.title.empty() ? session.uid : session.title, body);
}

std::string html_evicted_session(const SessionRow& session,
                                 const std::vector<StoredDigest>& digests, double cost_usd) {
  std::string body = header(session, cost_usd) + "<main>\n";
  body += fmt::format(
      "<p class=\"note\">The raw transcript of this session was evicted from the store on {} "
      "(retention); what remains is its digest.</p>\n",
      html_time(session.evicted_at_ms));
  for (const auto& d : digests) {
    body +=
        fmt::format("<h2>Digest by {} {}</h2>\n", html_escape(d.digester), html_escape(d.version));
    boost::system::error_code ec;
    const auto v = boost::json::parse(d.json, ec);
    if (!ec && v.is_object()) {
      const auto& o = v.as_object();
      for (const auto& [key, who] : {std::pair{"first_prompt", "User (first prompt)"},
                                     std::pair{"last_assistant", "Assistant (last answer)"}})
        if (const auto* t = o.if_contains(key); t && t->is_string())
          body += fmt::format(
              "<div class=\"msg {}\"><div class=\"who\">{}</div><div "
              "class=\"text\">{}</div></div>\n",
              std::string_view(key) == "first_prompt" ? "user" : "assistant", who,
              html_text(t->as_string()));
    }
    body += fmt::format("<details><summary>Digest JSON</summary>{}</details>\n", block(d.json));
  }
  if (digests.empty()) body += "<p class=\"note\">No digest of this session is stored.</p>\n";
  body += "</main>\n" + footer(0);
  return html_document(session.title.empty() ? session.uid : session.title, body);
}

}  // namespace helix

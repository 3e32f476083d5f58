// Markdown transcripts (see transcript.hpp).
#include "recall/transcript.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <map>

#include <helix/json.hpp>
#include "base/text.hpp"
#include "recall/session_json.hpp"
#include "recall/session_tree.hpp"
#include "store/digest_store.hpp"

namespace helix {
namespace {

constexpr std::size_t kSummaryChars = 80;

std::string when(int64_t ms) {
  std::string t = iso8601(ms);
  return t.empty() ? "unknown" : t.substr(0, 10) + " " + t.substr(11, 8) + " UTC";
}

// For text inside <summary>: HTML would otherwise swallow tags and entities.
std::string html_escape(std::string_view in) {
  std::string out;
  for (char c : in) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

// A fenced block whose fence is longer than any backtick run inside it.
std::string fenced(std::string_view body) {
  std::size_t longest = 0, run = 0;
  for (char c : body) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(std::max<std::size_t>(3, longest + 1), '`');
  std::string out = fence + "\n" + std::string(body);
  if (!body.empty() && body.back() != '\n') out += "\n";
  return out + fence + "\n";
}

// A tool's input: a JSON object (Claude, Grok) becomes one line per argument, multi-line
// values in blocks of their own; anything else is one block.
std::string tool_input(std::string_view input) {
  boost::system::error_code ec;
  const boost::json::value v =
      !input.empty() && input.front() == '{' ? boost::json::parse(input, ec) : boost::json::value();
  if (input.empty() || ec || !v.is_object() || v.as_object().empty())
    return input.empty() ? "" : fenced(truncated(input, kTranscriptMaxOutputBytes)) + "\n";
  std::string out;
  for (const auto& [key, value] : v.as_object()) {
    const std::string text =
        value.is_string() ? std::string(value.as_string()) : boost::json::serialize(value);
    if (text.find('\n') == std::string::npos && text.size() <= kSummaryChars * 2)
      out += fmt::format("- {}: `{}`\n", std::string_view(key), text);
    else
      out += fmt::format("- {}:\n\n{}", std::string_view(key),
                         fenced(truncated(text, kTranscriptMaxOutputBytes)));
  }
  return out + "\n";
}

// For a summary line: the first string argument of a JSON object input, else the input.
std::string first_argument(const std::string& input) {
  boost::system::error_code ec;
  const boost::json::value v =
      !input.empty() && input.front() == '{' ? boost::json::parse(input, ec) : boost::json::value();
  if (!ec && v.is_object())
    for (const auto& [key, value] : v.as_object())
      if (value.is_string()) return std::string(value.as_string());
  return input;
}

bool is_call(const EventRow& e) {
  return e.kind == "tool_call" || e.kind == "test_run" || e.kind == "edit";
}
bool is_result(const EventRow& e) {
  return !e.call_id.empty() && (e.kind == "tool_result" || (e.kind == "error" && e.role == "tool"));
}

std::string session_header(const SessionRow& s) {
  std::string out = fmt::format("# {}\n\n", s.title.empty() ? "Untitled session" : s.title);
  out += fmt::format("- Session: `{}`\n", s.uid);
  std::string agent = s.flavor;
  if (!s.agent_version.empty()) agent += " " + s.agent_version;
  if (!s.model.empty()) agent += ", model " + s.model;
  out += fmt::format("- Agent: {}\n", agent);
  if (!s.cwd.empty()) {
    std::string where = fmt::format("- Directory: `{}`", s.cwd);
    if (!s.repo.empty()) where += fmt::format(" (repo {}", s.repo);
    if (!s.repo.empty() && !s.git_branch.empty()) where += fmt::format(", branch {}", s.git_branch);
    if (!s.repo.empty()) where += ")";
    out += where + "\n";
  }
  out += fmt::format("- Started: {} · Ended: {}\n", when(s.started_at_ms), when(s.ended_at_ms));
  return out;
}

class Renderer {
 public:
  explicit Renderer(const std::vector<EventRow>& events) : events_(events) {
    for (std::size_t i = 0; i < events.size(); ++i)
      if (is_result(events[i])) results_[events[i].call_id].push_back(i);
    const std::vector<std::ptrdiff_t> owners = subagent_owners(events);
    for (std::size_t i = 0; i < events.size(); ++i)
      if (owners[i] != kNoOwner)
        subagent_[static_cast<std::size_t>(owners[i])].push_back(i);
      else
        top_.push_back(i);
  }

  std::string render() {
    for (std::size_t i : top_) event(i);
    return out_;
  }

 private:
  void event(std::size_t i) {
    const EventRow& e = events_[i];
    if (is_call(e))
      call(i);
    else if (is_result(e))
      orphan_result(i);
    else if (e.kind == "user_msg")
      turn(e, e.is_sidechain ? "Subagent prompt" : "User");
    else if (e.kind == "assistant_msg")
      turn(e, e.is_sidechain ? "Subagent" : "Assistant");
    else if (e.kind == "human_intervention")
      turn(e, "User (interrupting)", /*or_summary=*/true);
    else if (e.kind == "decision")
      turn(e, "Decision");
    else if (e.kind == "thinking")
      folded("Thinking", e.text);
    else if (e.kind == "error")
      error(e);
    else if (e.kind == "lifecycle")
      lifecycle(e);
    // completion (repeats the last answer), retry and other records are left out.
  }

  // An interruption may have no text of its own (Codex's turn_aborted): its summary says it.
  void turn(const EventRow& e, std::string_view who, bool or_summary = false) {
    const std::string& text = e.text.empty() && or_summary ? e.summary : e.text;
    if (text.empty()) return;
    out_ += fmt::format("**{}**: {}\n\n", who, text);
  }

  // Lifecycle events with a text are what a reader of the session saw happen: a compaction and
  // the summary the agent went on from, a subagent's task. Folded, titled by their summary.
  void lifecycle(const EventRow& e) {
    if (e.text.empty()) return;
    std::string title = one_line(e.summary, kSummaryChars);
    if (title.empty()) title = "Session event";
    title[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(title[0])));
    folded(html_escape(title), e.text);
  }

  void folded(std::string_view summary, const std::string& text) {
    if (text.empty()) return;
    out_ += fmt::format("<details>\n<summary>{}</summary>\n\n{}\n</details>\n\n", summary,
                        fenced(truncated(text, kTranscriptMaxOutputBytes)));
  }

  void error(const EventRow& e) {
    const std::string& text = e.text.empty() ? e.summary : e.text;
    if (text.empty()) return;
    out_ += fmt::format("**Error**{}:\n\n{}\n", e.tool.empty() ? "" : " (" + e.tool + ")",
                        fenced(truncated(text, kTranscriptMaxOutputBytes)));
  }

  void call(std::size_t index) {
    const EventRow& e = events_[index];
    const std::string& input = e.text.empty() ? e.summary : e.text;
    auto found = results_.find(e.call_id);
    bool failed = false;
    if (found != results_.end())
      for (auto i : found->second) failed = failed || events_[i].kind == "error";
    // The adapter's one-line summary ("Write: /path"), else the tool and its input.
    std::string summary = one_line(e.summary, kSummaryChars);
    if (summary.empty()) summary = e.tool.empty() ? "Tool call" : e.tool;
    if (e.summary.empty())
      if (const std::string line = one_line(first_argument(input), kSummaryChars); !line.empty())
        summary += ": " + line;
    if (failed) summary += " (failed)";
    if (e.is_sidechain) summary = "Subagent · " + summary;
    out_ += fmt::format("<details>\n<summary>{}</summary>\n\n", html_escape(summary));
    out_ += tool_input(input);
    if (found != results_.end() && !e.call_id.empty()) {
      for (auto i : found->second) {
        const EventRow& r = events_[i];
        out_ += r.kind == "error" ? "Error:\n\n" : "Result:\n\n";
        out_ += fenced(truncated(r.text.empty() ? r.summary : r.text, kTranscriptMaxOutputBytes)) +
                "\n";
        done_.push_back(i);
      }
    }
    // The subagent this call launched, nested under it in its own time order.
    if (auto sub = subagent_.find(index); sub != subagent_.end()) {
      out_ += "Subagent:\n\n";
      for (std::size_t i : sub->second) event(i);
    }
    out_ += "</details>\n\n";
  }

  // A result whose call is not in the session (or came later): folded on its own.
  void orphan_result(std::size_t i) {
    if (std::find(done_.begin(), done_.end(), i) != done_.end()) return;
    const EventRow& r = events_[i];
    bool has_call = std::any_of(events_.begin(), events_.end(), [&](const EventRow& c) {
      return is_call(c) && c.call_id == r.call_id;
    });
    if (has_call) return;  // rendered with its call
    folded(html_escape(fmt::format("{}{}", r.kind == "error" ? "Error of " : "Result of ",
                                   r.tool.empty() ? "a tool call" : r.tool)),
           r.text.empty() ? r.summary : r.text);
  }

  const std::vector<EventRow>& events_;
  std::map<std::string, std::vector<std::size_t>> results_;   // call id -> result events
  std::map<std::size_t, std::vector<std::size_t>> subagent_;  // call -> its subagent's events
  std::vector<std::size_t> top_;                              // events of no subagent
  std::vector<std::size_t> done_;
  std::string out_;
};

}  // namespace

std::string truncated(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  std::size_t end = max_bytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;  // UTF-8
  return fmt::format("{}\n[… {} more bytes truncated]", text.substr(0, end), text.size() - end);
}

std::string markdown_transcript(const SessionRow& session, const std::vector<EventRow>& events) {
  return session_header(session) + "\n---\n\n" + Renderer(events).render();
}

namespace {

// A digest's error snippets (`error_snippets`: {sample, count}) as fenced blocks.
std::string digest_errors(const boost::json::object& digest) {
  std::string out;
  const boost::json::array* errors = json::arr(digest, "error_snippets");
  if (!errors) return out;
  for (const auto& err : *errors) {
    const boost::json::object* e = json::obj(&err);
    const boost::json::value* sample = e ? e->if_contains("sample") : nullptr;
    if (!sample) continue;
    const boost::json::value* count = e->if_contains("count");
    out += fmt::format("**Error**{}:\n\n{}\n",
                       count ? fmt::format(" (×{})", boost::json::serialize(*count)) : "",
                       fenced(sample->is_string() ? std::string(sample->as_string())
                                                  : boost::json::serialize(*sample)));
  }
  return out;
}

// What a reader wants first from a digest: the first prompt, the last answer, the outcome and
// the errors, for the digest fields every digester of this project writes.
std::string digest_highlights(std::string_view digest_json) {
  boost::system::error_code ec;
  const boost::json::value v = boost::json::parse(digest_json, ec);
  if (ec || !v.is_object()) return {};
  const auto& o = v.as_object();
  std::string out;
  if (auto t = json::str(o, "first_prompt"); !t.empty())
    out += fmt::format("**User** (first prompt): {}\n\n", t);
  if (auto t = json::str(o, "last_assistant"); !t.empty())
    out += fmt::format("**Assistant** (last answer): {}\n\n", t);
  if (auto t = json::str(o, "outcome"); !t.empty()) out += fmt::format("Outcome: {}\n\n", t);
  return out + digest_errors(o);
}

}  // namespace

std::string markdown_digest(const SessionRow& session, const std::vector<StoredDigest>& digests) {
  std::string out = session_header(session);
  out += fmt::format(
      "\n> The raw transcript of this session was evicted from the store on {}; "
      "what remains is its digest.\n\n---\n\n",
      when(session.evicted_at_ms));
  if (digests.empty()) return out + "No digest of this session is stored.\n";
  for (const auto& d : digests) {
    out += fmt::format("## Digest by {} {}\n\n", d.digester, d.version);
    out += digest_highlights(d.json);
    out += fmt::format("<details>\n<summary>Digest JSON</summary>\n\n{}\n</details>\n\n",
                       fenced(d.json));
  }
  return out;
}

std::vector<StoredDigest> stored_digests(Store& store, const std::string& uid) {
  std::vector<StoredDigest> out;
  for (auto& d : session_digests(store, uid)) out.push_back({d.digester, d.version, d.json});
  return out;
}

}  // namespace helix

// gemini_adapter.cpp: the Gemini CLI adapter: where sessions live, probe, and the two eras.
//
// ChatRecordingService (google-gemini/gemini-cli packages/core/src/services/) writes one file
// per session under $GEMINI_CLI_HOME/.gemini (default ~/.gemini) in tmp/<project>/chats/:
//   session-<time>-<id8>.jsonl  since 0.39 (2026-04): an append-only log of a metadata line,
//                               messages (re-appended whole when updated), {"$set": {...}}
//                               patches and {"$rewindTo": id} records
//   session-<time>-<id8>.json   up to 0.38: the whole ConversationRecord, rewritten in place on
//                               every change (kept when a later CLI migrates it to .jsonl)
//   <parent session id>/<id>.jsonl (or .json): a subagent's own session
// docs/formats/gemini.md describes both and the mapping.
#include <helix/adapter.hpp>
#include <helix/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "gemini_ledger.hpp"
#include "gemini_messages.hpp"
#include "json_spans.hpp"

namespace gemini {
namespace {

namespace bj = boost::json;
using helix::json::arr;
using helix::json::obj;
using helix::json::str;

// The CLI's own override names the home that holds .gemini, so the root is the home.
const char* const kRoots[] = {"~", nullptr};
const helix_source_pattern kPatterns[] = {
    {".gemini/tmp/*/chats/session-*.jsonl", HELIX_LAYOUT_LINES},
    {".gemini/tmp/*/chats/*/*.jsonl", HELIX_LAYOUT_LINES},
    {".gemini/tmp/*/chats/session-*.json", HELIX_LAYOUT_DOCUMENT},
    {".gemini/tmp/*/chats/*/*.json", HELIX_LAYOUT_DOCUMENT},
    {nullptr, 0}};

// `gemini --resume <session uuid>` (docs/cli/session-management.md of google-gemini/gemini-cli)
// looks the id up among the sessions of the project it runs in, so it runs in the session's cwd;
// a subagent's conversation has no session of its own to resume.
const char* const kResumeArgv[] = {"gemini", "--resume", "{session_id}", nullptr};
constexpr helix_resume_ext kResume = helix::resume_command(
    "Gemini CLI", kResumeArgv, HELIX_RESUME_IN_CWD | HELIX_RESUME_NOT_SUBAGENTS);

// Every Gemini CLI hook (SessionStart, AfterAgent, SessionEnd, ...) gets these base fields on
// stdin (docs/hooks/reference.md). Session file names carry only the id's first 8 characters
// (session-<date>-<id8>.jsonl); a subagent's files sit in a directory named by the full id.
const char* const kHookSessionKeys[] = {"session_id", nullptr};
const char* const kHookTranscriptKeys[] = {"transcript_path", nullptr};
const char* const kHookEventKeys[] = {"hook_event_name", nullptr};
constexpr helix_hook_ext kHook = helix::hook_events({.session_id_keys = kHookSessionKeys,
                                                     .transcript_keys = kHookTranscriptKeys,
                                                     .event_name_keys = kHookEventKeys,
                                                     .id_chars_in_file_names = 8});

// Where a session file sits: its session id as far as the name tells (main sessions keep only
// the first 8 characters) and, for a subagent, its parent session's id.
struct SourcePath {
  std::string_view stem, parent_id;
};

SourcePath split_path(std::string_view path) {
  SourcePath out;
  const auto slash = path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  name = name.substr(0, name.rfind('.'));
  out.stem = name;
  if (name.starts_with("session-")) {
    out.stem = name.substr(name.rfind('-') + 1);
  } else if (slash != std::string_view::npos && slash > 0) {
    const auto up = path.rfind('/', slash - 1);
    const std::string_view dir = path.substr(up + 1, slash - up - 1);
    if (up != std::string_view::npos && path.substr(0, up).ends_with("/chats")) out.parent_id = dir;
  }
  return out;
}

bool is_metadata(const bj::object& o) {
  return o.contains("sessionId") && o.contains("projectHash") && str(o, "sessionId").size() > 0;
}

// One parse call of a .jsonl log: routes each record and keeps the ledger and session facts.
class LogParser {
 public:
  LogParser(helix::ParseContext& ctx, helix::json::LineParser& parser)
      : ctx_(ctx),
        parser_(parser),
        source_(split_path(ctx.path())),
        ledger_(Ledger::load(ctx.state())),
        mapper_(ctx, ledger_, facts_) {
    if (ledger_.session_id.empty()) ledger_.session_id = std::string(source_.stem);
  }

  void run() {
    const std::string_view data = ctx_.data();
    if (data.empty()) return;
    for (std::size_t pos = 0; pos < data.size();) {
      const std::size_t end = std::min(data.find('\n', pos), data.size());
      line(data.substr(pos, end - pos), ctx_.base_offset() + pos);
      pos = end + 1;
    }
    facts_.emit(ctx_, ledger_.session_id, source_.parent_id, ledger_.model);
    ctx_.save_state(ledger_.save());
  }

 private:
  void line(std::string_view text, uint64_t offset) {
    std::size_t error_at = 0;
    const std::string error = parser_.parse(
        text,
        [&](const bj::value& value, std::size_t at) {
          const std::string_view raw = text.substr(at, parser_.value_end() - at);
          if (const auto* o = value.if_object())
            record(*o, raw, offset + at);
          else
            ctx_.warn(offset + at, "not_an_object", "a session log line that is not an object");
        },
        &error_at);
    if (!error.empty()) ctx_.warn(offset + error_at, "invalid_json", error);
  }

  void record(const bj::object& o, std::string_view raw, uint64_t offset) {
    if (const auto* target = o.if_contains("$rewindTo"); target && target->is_string())
      return rewind(str(target), raw, offset);
    if (const auto* set = obj(o, "$set")) return patch(*set, raw, offset);
    if (const auto* id = o.if_contains("id"); id && id->is_string())
      return mapper_.map(o, raw, offset);
    if (is_metadata(o)) return metadata(o, raw, offset);
    std::string summary = "unknown session log record";
    if (!o.empty() && o.begin()->key().starts_with("$"))
      summary.append(" ").append(o.begin()->key());  // not " " + string: GCC 12 -Wrestrict at -O3
    emit({.kind = "other", .summary = summary}, raw, offset);
    ctx_.warn(offset, "unknown_type", summary);
  }

  // The first metadata line opens the log; the CLI writes another each time a later process
  // resumes the session (and when it migrates a .json session, the original's).
  void metadata(const bj::object& meta, std::string_view raw, uint64_t offset) {
    if (!ledger_.metadata_seen) ledger_.session_id = std::string(str(meta, "sessionId"));
    const bool subagent = facts_.read_record(meta);
    std::string summary = ledger_.metadata_seen ? "session resumed" : "session started";
    if (subagent) summary += " (subagent)";
    ledger_.metadata_seen = true;
    emit({.ts_ms = helix::json::iso8601_ms(str(meta, "startTime")),
          .kind = "lifecycle",
          .role = "system",
          .summary = summary},
         raw, offset);
  }

  // {"$set": {...}}: lastUpdated after every message, summary (the title), directories, and
  // `messages`, a checkpoint that replaces the history the model sees.
  void patch(const bj::object& set, std::string_view raw, uint64_t offset) {
    facts_.saw_time(helix::json::iso8601_ms(str(set, "lastUpdated")));
    if (auto summary = str(set, "summary"); !summary.empty()) facts_.title = summary;
    if (const auto* messages = arr(set, "messages"))
      checkpoint(*messages, raw, offset, helix::json::iso8601_ms(str(set, "lastUpdated")));
  }

  // A checkpoint restates history: at startup only the <session_context> message, on resume the
  // whole conversation, after an error the history without the failed prompt, after /compress
  // or /rewind a rewritten history with new ids. Its messages are not the conversation again:
  // the context message is kept once (it names the project directory), and the checkpoint is
  // one lifecycle event whose text holds the messages never recorded before (a compression
  // summary, restated turns).
  void checkpoint(const bj::array& messages, std::string_view raw, uint64_t offset, int64_t ts) {
    const std::vector<Span> spans = array_element_spans(raw, {"$set", "messages"});
    std::size_t contexts = 0, fresh = 0;
    std::string fresh_text;
    const MessageProgress latest = ledger_.latest;  // a checkpoint is no update of it
    for (std::size_t i = 0; i < messages.size(); ++i) {
      const auto* m = messages[i].if_object();
      if (!m) continue;
      const std::string_view id = str(*m, "id");
      if (MessageMapper::is_session_context(*m)) {
        ++contexts;
        if (!ledger_.messages.contains(id) && i < spans.size())
          mapper_.map(*m, raw.substr(spans[i].begin, spans[i].end - spans[i].begin),
                      offset + spans[i].begin);
      } else if (!ledger_.messages.contains(id) && !restates_tool_responses(*m)) {
        ledger_.messages.insert(id);
        ++fresh;
        const std::string text = content_text(m->if_contains("content"));
        if (text.empty()) continue;
        if (!fresh_text.empty()) fresh_text += "\n\n";
        fresh_text.append(str(*m, "type")).append(": ").append(text);
      }
    }
    ledger_.latest = latest;
    if (contexts == messages.size()) return;  // the startup context alone
    std::string summary = "history checkpoint: " + std::to_string(messages.size()) + " messages";
    if (fresh) summary += ", " + std::to_string(fresh) + " not recorded before";
    emit({.ts_ms = ts,
          .kind = "lifecycle",
          .role = "system",
          .summary = summary,
          .text = fresh_text},
         raw, offset);
  }

  // A history turn of tool responses (given an id of its own, "<message id>_response") whose
  // outcomes were all recorded already.
  bool restates_tool_responses(const bj::object& m) const {
    const auto* parts = arr(m, "content");
    if (!parts || parts->empty()) return false;
    for (const auto& part : *parts) {
      const auto* p = part.if_object();
      const auto* response = p ? obj(*p, "functionResponse") : nullptr;
      if (!response || !ledger_.results.contains(str(*response, "id"))) return false;
    }
    return true;
  }

  void rewind(std::string_view target, std::string_view raw, uint64_t offset) {
    std::string summary = "rewound: message " + std::string(target) + " and all after it dropped";
    emit({.kind = "lifecycle", .role = "user", .summary = summary}, raw, offset);
  }

  void emit(helix::Event event, std::string_view raw, uint64_t offset) const {
    event.session_id = ledger_.session_id;
    event.source_offset = offset;
    event.payload = raw;
    ctx_.event(event);
  }

  helix::ParseContext& ctx_;
  helix::json::LineParser& parser_;
  SourcePath source_;
  Ledger ledger_;
  SessionFacts facts_;
  MessageMapper mapper_;
};

// A .json session: the whole ConversationRecord, each message at its own offset.
void parse_conversation_document(helix::ParseContext& ctx) {
  const std::string_view doc = ctx.data();
  boost::system::error_code ec;
  const bj::value value = bj::parse(doc, ec);
  // The CLI rewrote these files in place (fs.writeFileSync), so a sweep can read one half
  // written. Failing the call keeps the events of the last complete read; the next sweep retries.
  if (ec)
    throw std::runtime_error("the session document is not complete JSON (" + ec.message() +
                             "), perhaps caught while the CLI rewrote it; kept the previous read");
  const bj::object* root = value.if_object();
  if (!root || !is_metadata(*root))
    throw std::runtime_error("not a Gemini CLI session document (no sessionId and projectHash)");
  const SourcePath source = split_path(ctx.path());
  Ledger ledger;
  ledger.session_id = std::string(str(*root, "sessionId"));
  SessionFacts facts;
  const bool subagent = facts.read_record(*root);
  helix::Event started;
  started.session_id = ledger.session_id;
  started.source_offset = ctx.base_offset();
  started.ts_ms = helix::json::iso8601_ms(str(*root, "startTime"));
  started.kind = "lifecycle";
  started.role = "system";
  started.summary = subagent ? "session started (subagent)" : "session started";
  ctx.event(started);
  MessageMapper mapper(ctx, ledger, facts);
  if (const auto* messages = arr(*root, "messages")) {
    const std::vector<Span> spans = array_element_spans(doc, {"messages"});
    if (spans.size() != messages->size())
      throw std::runtime_error("could not locate the messages of the session document");
    for (std::size_t i = 0; i < messages->size(); ++i)
      if (const auto* m = (*messages)[i].if_object())
        mapper.map(*m, doc.substr(spans[i].begin, spans[i].end - spans[i].begin),
                   ctx.base_offset() + spans[i].begin);
  }
  facts.emit(ctx, ledger.session_id, source.parent_id, ledger.model);
}

// The first line of a log, or the start of a document: a ConversationRecord's metadata.
int probe_head(std::string_view head, bool document) {
  if (document)
    return head.find("\"sessionId\"") != std::string_view::npos &&
                   head.find("\"projectHash\"") != std::string_view::npos
               ? 100
               : 0;
  const std::size_t end = head.find('\n');
  if (end == std::string_view::npos) return 0;  // not even one whole line yet
  boost::system::error_code ec;
  const bj::value first = bj::parse(head.substr(0, end), ec);
  return !ec && first.is_object() && is_metadata(first.get_object()) ? 100 : 0;
}

class GeminiAdapter final : public helix::Adapter {
 public:
  int probe(const helix::Probe& p) override {
    if (p.path.find("/chats/") == std::string_view::npos) return 0;
    const bool document = p.path_ends_with(".json");
    if (!document && !p.path_ends_with(".jsonl")) return 0;
    if (p.size == 0) return p.file_name().starts_with("session-") ? 40 : 0;  // being created
    return probe_head(p.head, document);
  }

  void parse(helix::ParseContext& ctx) override {
    if (ctx.layout() == HELIX_LAYOUT_DOCUMENT) return parse_conversation_document(ctx);
    LogParser(ctx, parser_).run();
  }

 private:
  helix::json::LineParser parser_;
};

}  // namespace
}  // namespace gemini

HELIX_ADAPTER(
    gemini::GeminiAdapter, .name = "gemini", .version = "0.1.0",
    .description = "Google Gemini CLI sessions (~/.gemini/tmp/*/chats, .jsonl and .json eras)",
    .flavor = "gemini", .root_env = "GEMINI_CLI_HOME", .roots = gemini::kRoots,
    .patterns = gemini::kPatterns, .resume = &gemini::kResume, .hook = &gemini::kHook)

// claude_adapter.cpp: the Claude Code adapter plugin: where transcripts live, probe, and the
// parse loop (lines -> JSON records -> RecordMapper; agent .meta.json sidecars).
#include <algorithm>
#include <cctype>
#include <helix/adapter.hpp>
#include <helix/json.hpp>
#include <string>

#include "claude_records.hpp"

namespace {

namespace bj = boost::json;
using helix::claude::RecordMapper;
using helix::claude::SourceInfo;

const char* const kRoots[] = {"~/.claude", "~/.config/claude", nullptr};

// Main sessions and legacy flat agent-*.jsonl; >=2.1.2 subagents (workflow runs included, whose
// journal.jsonl no pattern matches); the subagent sidecars.
const helix_source_pattern kPatterns[] = {
    {"projects/*/*.jsonl", HELIX_LAYOUT_LINES},
    {"projects/*/*/subagents/**/agent-*.jsonl", HELIX_LAYOUT_LINES},
    {"projects/*/*/subagents/**/agent-*.meta.json", HELIX_LAYOUT_DOCUMENT},
    {nullptr, 0}};

constexpr int kCertain = 95;    // Claude records under a projects/ directory
constexpr int kLikely = 85;     // Claude records elsewhere
constexpr int kTruncated = 70;  // the first line does not fit the head but reads like Claude's
constexpr int kEmptyLog = 40;   // a 0-byte .jsonl in a projects/ directory
constexpr std::size_t kProbeRecords = 8;

std::string_view file_name(std::string_view path) {
  auto slash = path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (name.ends_with(".zst")) name.remove_suffix(4);
  return name;
}

bool is_uuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? s[i] != '-' : !std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

// ".../<session-uuid>/subagents/..." -> "<session-uuid>"; empty when the path has no subagents dir.
// Looked for below the last "/projects/", so that a directory named "subagents" above the root
// (in the home's path, say) is not taken for the session's.
std::string_view subagent_session_dir(std::string_view path) {
  auto projects = path.rfind("/projects/");
  auto at = path.find("/subagents/", projects == std::string_view::npos ? 0 : projects);
  if (at == std::string_view::npos) return {};
  auto start = path.rfind('/', at - 1);
  return start == std::string_view::npos ? path.substr(0, at)
                                         : path.substr(start + 1, at - start - 1);
}

// agent-<hex id>.jsonl next to the sessions (legacy) or any agent-*.jsonl under subagents/.
bool is_agent_file(std::string_view path, std::string_view stem) {
  if (!stem.starts_with("agent-")) return false;
  if (!subagent_session_dir(path).empty()) return true;
  std::string_view id = stem.substr(6);
  return !id.empty() && std::all_of(id.begin(), id.end(), [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c));
  });
}

SourceInfo source_info(std::string_view path) {
  std::string_view name = file_name(path);
  std::string_view stem = name.substr(0, name.rfind('.'));
  SourceInfo info;
  info.fallback_session_id = is_uuid(stem) ? stem : subagent_session_dir(path);
  info.agent_file = is_agent_file(path, stem);
  if (info.agent_file) info.agent_id = stem.substr(6);
  return info;
}

bool looks_like_claude_record(const bj::object& record) {
  if (!helix::claude::is_known_type(helix::json::str(record, "type"))) return false;
  for (std::string_view key : {"sessionId", "uuid", "leafUuid", "messageId"})
    if (record.contains(key)) return true;
  return false;
}

class ClaudeAdapter final : public helix::Adapter {
 public:
  int probe(const helix::Probe& p) override {
    std::string_view name = file_name(p.path);
    if (name.ends_with(".meta.json")) return probe_agent_meta(p);
    if (!name.ends_with(".jsonl") || name == "journal.jsonl") return 0;
    const bool in_projects = p.path.find("/projects/") != std::string_view::npos;
    if (p.head.find_first_not_of(" \t\r\n") == std::string_view::npos)
      return in_projects && p.size == p.head.size() ? kEmptyLog : 0;
    std::size_t complete = p.head.rfind('\n');
    if (complete == std::string_view::npos)  // one line longer than the head (e.g. an image)
      return in_projects && first_line_reads_like_claude(p.head) ? kTruncated : 0;
    return claude_records_in(p.head.substr(0, complete)) ? (in_projects ? kCertain : kLikely) : 0;
  }

  void parse(helix::ParseContext& ctx) override {
    if (ctx.layout() == HELIX_LAYOUT_DOCUMENT) return parse_agent_meta(ctx);
    RecordMapper mapper(ctx, source_info(ctx.path()));
    std::string_view data = ctx.data();
    for (std::size_t pos = 0; pos < data.size();) {
      std::size_t end = std::min(data.find('\n', pos), data.size());
      parse_records(ctx, mapper, data.substr(pos, end - pos), ctx.base_offset() + pos);
      pos = end + 1;
    }
    mapper.finish();
  }

 private:
  // Every object on the line (concatenated records included) with its own slice and offset.
  void parse_records(helix::ParseContext& ctx, RecordMapper& mapper, std::string_view line,
                     uint64_t offset) {
    std::size_t error_at = 0;
    std::string error = parser_.parse(
        line,
        [&](const bj::value& value, std::size_t at) {
          std::string_view payload = line.substr(at, parser_.value_end() - at);
          if (auto* record = value.if_object())
            mapper.map(*record, payload, offset + at);
          else
            ctx.warn(offset + at, "not_an_object", "a JSON value that is not a record object");
        },
        &error_at);
    if (!error.empty()) ctx.warn(offset + error_at, "invalid_json", error);
  }

  bool claude_records_in(std::string_view lines) {
    std::size_t seen = 0;
    bool claude = false;
    for (std::size_t pos = 0; pos < lines.size() && seen < kProbeRecords && !claude;) {
      std::size_t end = std::min(lines.find('\n', pos), lines.size());
      parser_.parse(lines.substr(pos, end - pos), [&](const bj::value& value, std::size_t) {
        ++seen;
        if (auto* record = value.if_object()) claude = claude || looks_like_claude_record(*record);
      });
      pos = end + 1;
    }
    return claude;
  }

  static bool first_line_reads_like_claude(std::string_view head) {
    return head.starts_with("{") && head.find("\"sessionId\":\"") != std::string_view::npos &&
           head.find("\"uuid\":\"") != std::string_view::npos;
  }

  int probe_agent_meta(const helix::Probe& p) {
    if (subagent_session_dir(p.path).empty()) return 0;
    boost::system::error_code ec;
    bj::value meta = bj::parse(p.head, ec);
    auto* fields = meta.if_object();
    return !ec && fields && (fields->contains("agentType") || fields->contains("description"))
               ? kCertain
               : 0;
  }

  // agent-<id>.meta.json: announces the subagent (type, description) on the parent session, and
  // links its transcript to the call that launched it (toolUseId, from 2.1.1xx on).
  void parse_agent_meta(helix::ParseContext& ctx) {
    std::string_view session = subagent_session_dir(ctx.path());
    boost::system::error_code ec;
    bj::value meta = bj::parse(ctx.data(), ec);
    auto* fields = meta.if_object();
    if (ec || !fields)
      return ctx.warn(ctx.base_offset(), "invalid_json", "unreadable agent metadata");
    if (session.empty())
      return ctx.warn(ctx.base_offset(), "missing_session_id", "agent metadata outside subagents/");
    std::string_view name = file_name(ctx.path());
    std::string_view agent_id = name.substr(0, name.size() - std::string_view(".meta.json").size());
    if (agent_id.starts_with("agent-")) agent_id.remove_prefix(6);
    std::string_view type = helix::json::str(*fields, "agentType");
    std::string_view description = helix::json::str(*fields, "description");
    std::string summary = "subagent " + std::string(agent_id) + " (" +
                          std::string(type.empty() ? "agent" : type) +
                          "): " + std::string(description);
    const std::string link = helix::claude::subagent_link_uid(agent_id);
    helix::Event e;
    e.session_id = session;
    e.source_offset = ctx.base_offset();
    e.ordinal = helix::claude::kLinkOrdinal;
    e.flags = HELIX_EVENT_SIDECHAIN;
    e.uid = link;
    e.call_id = helix::json::str(*fields, "toolUseId");
    e.kind = "lifecycle";
    e.role = "system";
    e.summary = summary;
    e.text = description;
    e.payload = ctx.data();
    ctx.event(e);
  }

  helix::json::LineParser parser_;
};

}  // namespace

namespace {
// `claude --resume <id>` continues a session of the directory it runs in; a subagent
// conversation is not resumed on its own (docs/operations.md, "Search, export and resume").
const char* const kResumeArgv[] = {"claude", "--resume", "{session_id}", nullptr};
constexpr helix_resume_ext kResume = helix::resume_command(
    "Claude Code", kResumeArgv, HELIX_RESUME_IN_CWD | HELIX_RESUME_NOT_SUBAGENTS);
// Claude Code's hook events: {"session_id", "transcript_path", "hook_event_name", ...}.
const char* const kHookSessionKeys[] = {"session_id", nullptr};
const char* const kHookTranscriptKeys[] = {"transcript_path", nullptr};
const char* const kHookEventKeys[] = {"hook_event_name", nullptr};
constexpr helix_hook_ext kHook = helix::hook_events({.session_id_keys = kHookSessionKeys,
                                                     .transcript_keys = kHookTranscriptKeys,
                                                     .event_name_keys = kHookEventKeys});
}  // namespace

HELIX_ADAPTER(ClaudeAdapter, .name = "claude", .version = "1.1.0",
              .description =
                  "Claude Code transcripts (~/.claude/projects, subagents, agent "
                  "metadata)",
              .flavor = "claude", .root_env = "CLAUDE_CONFIG_DIR", .roots = kRoots,
              .patterns = kPatterns, .resume = &kResume, .hook = &kHook, .reparse_below = "1.1.0")

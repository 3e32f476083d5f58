// claude_records.cpp: the record -> event mapping of the Claude Code adapter.
#include "claude_records.hpp"

#include <array>
#include <cstdio>
#include <helix/json.hpp>
#include <optional>

#include "claude_tools.hpp"

namespace helix::claude {

namespace bj = boost::json;
using json::arr;
using json::num;
using json::obj;
using json::str;

namespace {

constexpr std::array<std::string_view, 33> kKnownTypes = {"user",
                                                          "assistant",
                                                          "system",
                                                          "summary",
                                                          "file-history-snapshot",
                                                          "queue-operation",
                                                          "progress",
                                                          "attachment",
                                                          "last-prompt",
                                                          "ai-title",
                                                          "custom-title",
                                                          "agent-name",
                                                          "tag",
                                                          "permission-mode",
                                                          "mode",
                                                          "pr-link",
                                                          "worktree-state",
                                                          "relocated",
                                                          "agent-color",
                                                          "agent-setting",
                                                          "attribution-snapshot",
                                                          "speculation-accept",
                                                          "content-replacement",
                                                          "marble-origami-commit",
                                                          "marble-origami-snapshot",
                                                          "frame-link",
                                                          "file-history-delta",
                                                          "api-request",
                                                          "api-request-blob",
                                                          "api-request-shape",
                                                          "cost-state",
                                                          "atis-latch",
                                                          "tools-used"};

// Title sources by precedence (custom-title > agent-name > ai-title > summary).
struct TitleSource {
  std::string_view type, field;
  int rank;
};
constexpr std::array<TitleSource, 4> kTitleSources = {{{"summary", "summary", 1},
                                                       {"ai-title", "aiTitle", 2},
                                                       {"agent-name", "agentName", 3},
                                                       {"custom-title", "customTitle", 4}}};

// Text the CLI writes into user records that nobody typed (command output, notices).
constexpr std::array<std::string_view, 6> kCliOutputTags = {
    "<local-command-stdout>", "<local-command-stderr>", "<local-command-caveat>",
    "<bash-stdout>",          "<bash-stderr>",          "<task-notification>"};

constexpr std::string_view kSynthetic = "<synthetic>";

std::string_view trim_front(std::string_view s) {
  std::size_t start = s.find_first_not_of(" \t\r\n");
  return start == std::string_view::npos ? std::string_view() : s.substr(start);
}

bool is_cli_output(std::string_view text) {
  text = trim_front(text);
  for (auto tag : kCliOutputTags)
    if (text.starts_with(tag)) return true;
  return false;
}

// tool_result content: a string, or blocks (text, image, tool_reference), or null.
std::string result_text(const bj::value* content) {
  if (!content) return {};
  if (auto* s = content->if_string()) return std::string(s->data(), s->size());
  std::string text;
  if (auto* blocks = content->if_array()) {
    for (const auto& item : *blocks) {
      auto* block = item.if_object();
      if (!block) continue;
      if (!text.empty()) text += '\n';
      auto type = str(*block, "type");
      if (type == "text")
        text += str(*block, "text");
      else if (type == "tool_reference")
        text += str(*block, "tool_name");
      else
        text.append("[").append(type).append("]");
    }
  }
  return text;
}

// The word that says what a non-message record is: system subtype, progress data.type, ...
std::string_view subtype_of(const bj::object& record) {
  if (auto s = str(record, "subtype"); !s.empty()) return s;
  if (auto s = str(record, "operation"); !s.empty()) return s;
  for (std::string_view key : {"data", "attachment"})
    if (auto* inner = obj(record, key)) return str(*inner, "type");
  return {};
}

// The human part of a non-message record: content, title, last prompt, mode, PR url; for
// progress and attachments the hook name or the queued prompt.
std::string_view detail_of(const bj::object& record) {
  for (std::string_view key : {"content", "summary", "customTitle", "agentName", "aiTitle",
                               "lastPrompt", "permissionMode", "mode", "tag", "prUrl", "title"})
    if (auto s = str(record, key); !s.empty()) return s;
  for (std::string_view inner_key : {"data", "attachment"})
    if (auto* inner = obj(record, inner_key))
      for (std::string_view key : {"hookName", "prompt", "content"})
        if (auto s = str(*inner, key); !s.empty()) return s;
  return {};
}

// The bookkeeping records of Claude Code 2.1.3xx (tests/fixtures/claude/SOURCES.md, Source G): what
// the CLI sent to the API and what it cost. Each becomes an `other` event (bookkeeping: shown by
// `show --all`, not searched) whose summary and text carry its useful fields; the request contents
// (api-request-blob, api-request-shape) stay in the payload only, as they repeat the prompt, the
// tools and the conversation already mapped.
struct Bookkeeping {
  std::string summary, text;
};

std::string short_hash(std::string_view hash) { return std::string(hash.substr(0, 12)); }

std::string usd(double dollars) {
  char out[32];
  std::snprintf(out, sizeof out, "$%.4f", dollars);
  return out;
}

Bookkeeping api_request(const bj::object& r) {
  const bj::object* params = obj(r, "params");
  std::string_view model = params ? str(*params, "model") : std::string_view();
  Bookkeeping b{"api-request: " + std::string(model.empty() ? "(model not named)" : model), ""};
  if (auto source = str(r, "querySource"); !source.empty())
    b.summary += " (" + std::string(source) + ")";
  b.text = "model " + std::string(model) + "; query source " + std::string(str(r, "querySource")) +
           "; id " + std::string(str(r, "id")) + "; shape " + short_hash(str(r, "shapeHash"));
  return b;
}

Bookkeeping api_request_blob(const bj::object& r) {
  std::string role;
  if (auto* message = obj(r, "message")) role = str(*message, "role");
  return {
      "api-request-blob " + short_hash(str(r, "hash")) + (role.empty() ? "" : " (" + role + ")"),
      ""};
}

Bookkeeping api_request_shape(const bj::object& r) {
  std::size_t tools = 0, system = 0;
  if (auto* shape = obj(r, "shape")) {
    if (auto* list = arr(*shape, "tools")) tools = list->size();
    if (auto* list = arr(*shape, "system")) system = list->size();
  }
  return {"api-request-shape " + short_hash(str(r, "shapeHash")) + ": " + std::to_string(system) +
              " system blocks, " + std::to_string(tools) + " tools",
          ""};
}

// cost-state: Claude Code's own running cost, in total and per model with the tokens it counted.
Bookkeeping cost_state(const bj::object& r) {
  auto* total = r.if_contains("totalCostUSD");
  const std::string total_text = total && total->is_number() ? usd(json::real(total)) : "no total";
  Bookkeeping b{"cost-state: " + total_text, "total " + total_text};
  if (auto* models = obj(r, "modelUsage")) {
    for (const auto& [model, entry] : *models) {
      auto* use = entry.if_object();
      if (!use) continue;
      auto* cost = use->if_contains("costUSD");
      b.text += "; " + std::string(model) + " " +
                (cost && cost->is_number() ? usd(json::real(cost)) : "unpriced") + " (input " +
                std::to_string(num(*use, "inputTokens")) + ", output " +
                std::to_string(num(*use, "outputTokens")) + ", cache read " +
                std::to_string(num(*use, "cacheReadInputTokens")) + ", cache write " +
                std::to_string(num(*use, "cacheCreationInputTokens")) + ")";
    }
  }
  if (json::truthy(r, "hasUnknownModelCost")) b.text += "; some model's cost unknown";
  return b;
}

Bookkeeping tools_used(const bj::object& r) {
  std::string names;
  if (auto* tools = arr(r, "tools"))
    for (const auto& t : *tools)
      if (auto* name = t.if_string()) names.append(names.empty() ? "" : ", ").append(*name);
  return {"tools-used: " + names, names};
}

Bookkeeping atis_latch(const bj::object& r) {
  auto atis = str(r, "atis");
  return {"atis-latch" + (atis.empty() ? std::string() : ": " + std::string(atis)),
          std::string(atis)};
}

std::optional<Bookkeeping> bookkeeping_of(std::string_view type, const bj::object& r) {
  if (type == "api-request") return api_request(r);
  if (type == "api-request-blob") return api_request_blob(r);
  if (type == "api-request-shape") return api_request_shape(r);
  if (type == "cost-state") return cost_state(r);
  if (type == "tools-used") return tools_used(r);
  if (type == "atis-latch") return atis_latch(r);
  return std::nullopt;
}

// FNV-1a 64 of the anchor and the record's bytes, as 16 hex digits.
std::string content_hash(std::string_view anchor, std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (std::string_view part : {anchor, std::string_view("\n"), bytes})
    for (unsigned char c : part) h = (h ^ c) * 0x100000001b3ull;
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

// The text between <tag> and </tag> in a task notification, or "".
std::string_view tag_text(std::string_view text, std::string_view tag) {
  const std::string open = "<" + std::string(tag) + ">", close = "</" + std::string(tag) + ">";
  auto start = text.find(open);
  if (start == std::string_view::npos) return {};
  start += open.size();
  auto end = text.find(close, start);
  return end == std::string_view::npos ? std::string_view() : text.substr(start, end - start);
}

// "context compacted (manual, 12345 tokens before)" from a boundary's compactMetadata.
std::string compaction_summary(const bj::object& record, std::string_view subtype) {
  const bool micro = subtype == "microcompact_boundary";
  std::string summary = micro ? "tool results cleared from the context" : "context compacted";
  const bj::object* meta = obj(record, micro ? "microcompactMetadata" : "compactMetadata");
  if (!meta) return summary;
  std::string detail(str(*meta, "trigger"));
  if (auto tokens = num(*meta, "preTokens"); tokens > 0)
    detail += (detail.empty() ? "" : ", ") + std::to_string(tokens) + " tokens before";
  if (auto saved = num(*meta, "tokensSaved"); saved > 0)
    detail += (detail.empty() ? "" : ", ") + std::to_string(saved) + " tokens saved";
  return detail.empty() ? summary : summary + " (" + detail + ")";
}

}  // namespace

std::string subagent_link_uid(std::string_view agent_id) {
  return "agent-" + std::string(agent_id);
}

bool is_known_type(std::string_view type) {
  for (auto t : kKnownTypes)
    if (t == type) return true;
  return false;
}

struct RecordMapper::Record {
  const bj::object& o;
  std::string_view type, session_id, uid, parent_uid, payload;
  uint64_t offset = 0;
  int64_t ts_ms = 0;
  uint32_t flags = 0;
  std::string link;  // a subagent's record: the uid of the link to the call that launched it
  bool sidechain() const { return flags & HELIX_EVENT_SIDECHAIN; }
};

RecordMapper::RecordMapper(ParseContext& ctx, SourceInfo source)
    : ctx_(ctx), source_(std::move(source)) {
  load_state();
}

void RecordMapper::map(const bj::object& o, std::string_view payload, uint64_t offset) {
  std::string_view type = str(o, "type");
  std::string_view session = session_of(o);
  if (session.empty())
    return ctx_.warn(offset, "missing_session_id",
                     "a '" + std::string(type) + "' record names no session and the path none");
  // Records without a uuid (file-history-snapshot, summary, queue-operation...) are named by
  // their bytes and place, so the copy a resumed session repeats in its new file counts once
  // (OQ6) while a repeated record of one file stays an event of its own.
  const std::string derived_uid =
      str(o, "uuid").empty() ? uid_without_uuid(payload) : std::string();
  if (!str(o, "uuid").empty()) {
    anchor_ = str(o, "uuid");
    since_anchor_.clear();
  }
  Record r{o,
           type,
           session,
           derived_uid.empty() ? str(o, "uuid") : derived_uid,
           str(o, "parentUuid"),
           payload,
           offset,
           0,
           0,
           {}};
  r.ts_ms = json::iso8601_ms(str(o, "timestamp"));
  if (auto* snapshot = obj(o, "snapshot"); r.ts_ms == 0 && snapshot)  // file-history-snapshot
    r.ts_ms = json::iso8601_ms(str(*snapshot, "timestamp"));
  r.flags = source_.agent_file || json::truthy(o, "isSidechain") ? HELIX_EVENT_SIDECHAIN : 0u;
  if (r.sidechain()) {  // a subagent's record: linked to the call that launched it
    std::string_view agent = str(o, "agentId");
    if (agent.empty()) agent = source_.agent_id;
    if (!agent.empty()) r.link = subagent_link_uid(agent);
    if (!r.link.empty() && r.parent_uid.empty() && !str(o, "uuid").empty())
      r.parent_uid = r.link;  // the subagent's first record hangs under the call
  }
  note_session(r);

  record_.emplace(ctx_, Event{.session_id = r.session_id,
                              .source_offset = r.offset,
                              .flags = r.flags,
                              .ts_ms = r.ts_ms,
                              .uid = r.uid,
                              .parent_uid = r.parent_uid,
                              .payload = r.payload});
  if (type == "cost-state") emit_agent_totals(r);
  current_link_ = r.link;
  if (type == "user")
    map_user(r);
  else if (type == "assistant")
    map_assistant(r);
  else if (type == "system")
    map_system(r);
  if (record_->emitted() == 0)
    map_other(r);  // other types, and message records without usable content
}

// sessionId; else the session the path names; else the last one this source named.
std::string_view RecordMapper::session_of(const bj::object& record) {
  if (auto id = str(record, "sessionId"); !id.empty()) {
    last_session_id_ = id;
    return id;
  }
  if (!source_.fallback_session_id.empty()) return source_.fallback_session_id;
  return last_session_id_;
}

// Subagent records attach to the parent session but must not overwrite its cwd, branch, model
// or title (a subagent may run in a worktree, on another model).
void RecordMapper::note_session(const Record& r) {
  auto& facts = sessions_[std::string(r.session_id)];
  if (r.ts_ms > 0) {
    if (facts.started_at_ms == 0 || r.ts_ms < facts.started_at_ms) facts.started_at_ms = r.ts_ms;
    if (r.ts_ms > facts.ended_at_ms) facts.ended_at_ms = r.ts_ms;
  }
  if (auto version = str(r.o, "version"); !version.empty()) facts.agent_version = version;
  // --fork-session copies the origin's records under the new session id; the copied assistant
  // records keep the origin's id in requestSessionId.
  if (auto origin = str(r.o, "requestSessionId");
      !origin.empty() && origin != r.session_id && facts.forked_from.empty())
    facts.forked_from = origin;
  if (r.sidechain()) return;
  if (auto cwd = str(r.o, "cwd"); facts.cwd.empty()) facts.cwd = cwd;
  if (auto branch = str(r.o, "gitBranch"); !branch.empty()) facts.git_branch = branch;
  for (const auto& source : kTitleSources)
    if (r.type == source.type) note_title(r, str(r.o, source.field), source.rank);
}

void RecordMapper::note_title(const Record& r, std::string_view title, int rank) {
  if (title.empty()) return;
  auto [best, inserted] = title_ranks_.try_emplace(std::string(r.session_id), rank);
  if (!inserted && best->second > rank) return;
  best->second = rank;
  sessions_[std::string(r.session_id)].title = title;
}

// An event of the record being mapped; its ordinal is the content block's index.
Event RecordMapper::event_of(const Record&, uint32_t ordinal, std::string_view kind,
                             std::string_view role) const {
  Event e = record_->event(kind, role);
  e.ordinal = ordinal;
  return e;
}

// A subagent's event that pairs with nothing of its own carries the link to its launching call.
void RecordMapper::emit(Event e) {
  if (e.call_id.empty() && !current_link_.empty()) e.call_id = current_link_;
  record_->emit(e, e.ordinal);
}

std::string RecordMapper::uid_without_uuid(std::string_view payload) {
  std::string hash = content_hash(anchor_, payload);
  const int seen = ++since_anchor_[hash];
  return "record:" + hash + (seen > 1 ? "#" + std::to_string(seen) : std::string());
}

// The parent's result of an Agent call names the subagent it started (toolUseResult.agentId):
// a link event, the same the agent-*.meta.json sidecar gives (the first stored is kept).
void RecordMapper::emit_subagent_link(const Record& r, std::string_view call_id) {
  auto* result = obj(r.o, "toolUseResult");
  std::string_view agent = result ? str(*result, "agentId") : std::string_view();
  if (agent.empty() || call_id.empty()) return;
  const std::string uid = subagent_link_uid(agent);
  std::string_view type = str(*result, "agentType");
  std::string_view what = str(*result, "description");
  const std::string summary = "subagent " + std::string(agent) + " (" +
                              std::string(type.empty() ? "agent" : type) + ")" +
                              (what.empty() ? "" : ": " + std::string(what));
  Event e = event_of(r, kLinkOrdinal, "lifecycle", "system");
  e.flags = HELIX_EVENT_SIDECHAIN;
  e.uid = uid;
  e.parent_uid = {};
  e.call_id = call_id;
  e.summary = summary;
  e.text = what;
  ctx_.event(e);
}

// A background task's result arrives as a user turn: the result of the call that launched it
// (a tool_result delivered by the user's side, role user), searchable like what the user reads.
void RecordMapper::emit_task_notification(const Record& r, uint32_t ordinal,
                                          std::string_view text) {
  Event e = event_of(r, ordinal, "tool_result", "user");
  e.call_id = tag_text(text, "tool-use-id");
  std::string_view summary = tag_text(text, "summary");
  e.summary = summary.empty() ? std::string_view("task notification") : summary;
  e.text = text;
  emit(e);
}

// ---- user -------------------------------------------------------------------------------------

void RecordMapper::map_user(const Record& r) {
  auto* message = obj(r.o, "message");
  const bj::value* content = message ? message->if_contains("content") : nullptr;
  if (!content) return;
  if (auto* text = content->if_string()) return emit_user_text(r, 0, *text);
  auto* blocks = content->if_array();
  if (!blocks) return;
  for (std::size_t i = 0; i < blocks->size(); ++i)
    if (auto* block = (*blocks)[i].if_object()) map_user_block(r, static_cast<uint32_t>(i), *block);
}

void RecordMapper::map_user_block(const Record& r, uint32_t ordinal, const bj::object& block) {
  auto type = str(block, "type");
  if (type == "text") return emit_user_text(r, ordinal, str(block, "text"));
  if (type == "tool_result") {
    std::string text = result_text(block.if_contains("content"));
    Event e =
        event_of(r, ordinal, json::truthy(block, "is_error") ? "error" : "tool_result", "tool");
    e.call_id = str(block, "tool_use_id");
    e.text = text;
    e.summary = text;
    emit(e);
    return emit_subagent_link(r, str(block, "tool_use_id"));
  }
  // image, document or a future block: part of what the user sent, described by its type.
  std::string summary = "[" + std::string(type) + "]";
  Event e = event_of(r, ordinal, "user_msg", "user");
  e.summary = summary;
  if (json::truthy(r.o, "isMeta")) e.kind = "other";
  emit(e);
}

// A typed prompt is user_msg. Not typed by the user: the compaction summary (lifecycle: it
// opens the compacted context), isMeta expansions and CLI output tags (other). Interrupt
// notices are human_intervention.
void RecordMapper::emit_user_text(const Record& r, uint32_t ordinal, std::string_view text) {
  if (trim_front(text).starts_with("<task-notification>") && !tag_text(text, "tool-use-id").empty())
    return emit_task_notification(r, ordinal, text);
  Event e = event_of(r, ordinal, "user_msg", "user");
  if (json::truthy(r.o, "isCompactSummary")) {
    // What the model reads instead of the compacted conversation (its boundary, just before,
    // is the compaction event).
    e.kind = "lifecycle";
    e.role = "system";
    e.text = text;
    e.summary = "summary of the conversation so far";
    return emit(e);
  } else if (trim_front(text).starts_with("[Request interrupted by user")) {
    e.kind = "human_intervention";
  } else if (json::truthy(r.o, "isMeta") || is_cli_output(text)) {
    e.kind = "other";
  }
  e.text = text;
  e.summary = trim_front(text);
  emit(e);
}

// ---- assistant --------------------------------------------------------------------------------

void RecordMapper::map_assistant(const Record& r) {
  auto* message = obj(r.o, "message");
  if (!message) return;
  std::string_view model = str(*message, "model");
  const bool synthetic = model == kSynthetic;  // written by the CLI, not a model call
  if (synthetic) model = {};
  if (!model.empty() && !r.sidechain()) sessions_[std::string(r.session_id)].model = model;
  if (auto* blocks = arr(*message, "content"))
    for (std::size_t i = 0; i < blocks->size(); ++i)
      if (auto* block = (*blocks)[i].if_object())
        map_assistant_block(r, static_cast<uint32_t>(i), *block, model);
  if (!synthetic) emit_usage(r, *message, model);
}

void RecordMapper::map_assistant_block(const Record& r, uint32_t ordinal, const bj::object& block,
                                       std::string_view model) {
  // A client-generated failure (isApiErrorMessage) is an error whatever its blocks are.
  const bool api_error = json::truthy(r.o, "isApiErrorMessage");
  auto type = str(block, "type");
  Event e = event_of(r, ordinal, api_error ? "error" : "other", "assistant");
  e.model = model;
  std::string owned_summary, owned_text;
  if (type == "text") {
    if (!api_error) e.kind = "assistant_msg";
    e.text = str(block, "text");
    e.summary = trim_front(e.text);
  } else if (type == "thinking" || type == "redacted_thinking") {
    e.kind = "thinking";
    e.text = str(block, "thinking");  // may be empty: newer CLIs persist only the signature
    owned_summary = "[" + std::string(type) + "]";
    e.summary = e.text.empty() ? std::string_view(owned_summary) : trim_front(e.text);
  } else if (type == "tool_use") {
    auto* input = obj(block, "input");
    e.tool = str(block, "name");
    e.kind = tool_call_kind(e.tool, input);
    e.call_id = str(block, "id");
    owned_summary = std::string(e.tool) + ": " + std::string(tool_call_detail(input));
    owned_text = e.tool == "Bash" && input ? std::string(str(*input, "command"))
                                           : (input ? bj::serialize(*input) : std::string());
    e.summary = owned_summary;
    e.text = owned_text;
  } else {
    owned_summary = "[" + std::string(type) + "]";  // e.g. a model "fallback" block
    e.summary = owned_summary;
  }
  emit(e);
}

// One usage row per record; split lines of one response share the key (message.id and
// requestId, as ccusage has it) and the host keeps the largest, in whichever file (a subagent's
// sidechain copy included). A line without both ids is a call of its own: message.id alone is
// no proof of a repeat (ccusage does not de-duplicate such lines either). Nested usage (progress
// data, toolUseResult) is never read.
void RecordMapper::emit_usage(const Record& r, const bj::object& message, std::string_view model) {
  auto* usage = obj(message, "usage");
  if (!usage) return;
  std::string key;
  if (auto id = str(message, "id"), request = str(r.o, "requestId");
      !id.empty() && !request.empty())
    key = std::string(id) + "/" + std::string(request);
  Usage u;
  u.session_id = r.session_id;
  u.key = key;
  u.source_offset = r.offset;
  u.flags = r.flags;
  u.ts_ms = r.ts_ms;
  u.model = model;
  u.input_tokens = num(*usage, "input_tokens");  // Claude's input already excludes the cache
  u.output_tokens = num(*usage, "output_tokens");
  u.cache_read_tokens = num(*usage, "cache_read_input_tokens");
  auto* split = obj(*usage, "cache_creation");  // since 2.1.5: 5-minute and 1-hour writes
  if (split) u.cache_creation_1h_tokens = num(*split, "ephemeral_1h_input_tokens");
  u.cache_creation_tokens = num(*usage, "cache_creation_input_tokens", -1);
  if (u.cache_creation_tokens < 0)
    u.cache_creation_tokens =
        split ? num(*split, "ephemeral_5m_input_tokens") + u.cache_creation_1h_tokens : 0;
  if (auto* cost = r.o.if_contains("costUSD"); cost && cost->is_number())
    u.cost_usd = json::real(cost);
  ctx_.usage(u);
}

// Claude Code's own running cost of the session (cost-state, 2.1.3xx): one agent total per
// model of modelUsage (else one of totalCostUSD), keyed by session and model so the host keeps
// the latest; the record itself is also kept as an event.
void RecordMapper::emit_agent_totals(const Record& r) {
  Usage u;
  u.session_id = r.session_id;
  u.source_offset = r.offset;
  u.flags = r.flags | HELIX_USAGE_AGENT_TOTAL;
  u.ts_ms = r.ts_ms;
  std::string key;
  auto emit_total = [&](std::string_view model, double usd) {
    key = "cost-state/" + std::string(r.session_id) + "/" + std::string(model);
    u.key = key;
    u.model = model;
    u.cost_usd = usd;
    ctx_.usage(u);
  };
  if (auto* models = obj(r.o, "modelUsage"); models && !models->empty()) {
    for (const auto& [model, use] : *models)
      if (auto* cost = use.is_object() ? use.get_object().if_contains("costUSD") : nullptr;
          cost && cost->is_number())
        emit_total(model, json::real(cost));
  } else if (auto* total = r.o.if_contains("totalCostUSD"); total && total->is_number()) {
    emit_total("", json::real(total));
  }
}

// ---- system and the rest ----------------------------------------------------------------------

void RecordMapper::map_system(const Record& r) {
  auto subtype = str(r.o, "subtype");
  std::string summary = "system/" + std::string(subtype);
  if (subtype == "compact_boundary" || subtype == "microcompact_boundary") {
    // One compaction event per compaction, with its trigger and the context size before it.
    Event e = event_of(r, 0, "lifecycle", "system");
    // compact_boundary starts a new root; its logical parent is the last pre-compaction record.
    if (auto logical = str(r.o, "logicalParentUuid"); !logical.empty()) e.parent_uid = logical;
    summary = compaction_summary(r.o, subtype);
    e.summary = summary;
    return emit(e);
  }
  if (subtype == "api_error" || subtype == "error") {
    // An API error the CLI retries (retryAttempt) is a retry; without one it is an error.
    Event e = event_of(r, 0, num(r.o, "retryAttempt") > 0 ? "retry" : "error", "system");
    auto* error = r.o.if_contains("error");
    std::string text = error && !error->is_null() ? bj::serialize(*error) : std::string();
    if (text.empty() || text == "{}") text = str(r.o, "content");
    if (auto attempt = num(r.o, "retryAttempt"); attempt > 0)
      summary += " retry " + std::to_string(attempt) + "/" + std::to_string(num(r.o, "maxRetries"));
    summary.append(": ").append(text);
    e.text = text;
    e.summary = summary;
    return emit(e);
  }
}

// The 2.1.3xx bookkeeping records are lifecycle events (bookkeeping_of). Every other record
// (progress, attachment, snapshots, queue, titles, modes, unknown types) is kept as "other",
// summarised by type/subtype and its human detail.
void RecordMapper::map_other(const Record& r) {
  if (auto b = bookkeeping_of(r.type, r.o)) {
    Event e = event_of(r, 0, "other", "system");
    e.summary = b->summary;
    e.text = b->text;
    return emit(e);
  }
  if (!is_known_type(r.type))
    ctx_.warn(r.offset, "unknown_type",
              "unknown record type '" + std::string(r.type) + "' kept as other");
  std::string summary(r.type.empty() ? "(untyped)" : r.type);
  if (auto subtype = subtype_of(r.o); !subtype.empty()) summary.append("/").append(subtype);
  auto detail = detail_of(r.o);
  if (!detail.empty()) summary.append(": ").append(detail);
  Event e = event_of(r, 0, "other", r.type == "user" || r.type == "assistant" ? r.type : "system");
  e.summary = summary;
  e.text = detail;
  emit(e);
}

// ---- state and sessions -----------------------------------------------------------------------

// State: {"last": "<session id last named>", "titles": {"<session id>": <best title rank>},
// "anchor": "<last uuid>", "since": {"<hash>": <copies since the anchor>}}.
void RecordMapper::load_state() {
  if (ctx_.state().empty()) return;
  boost::system::error_code ec;
  bj::value state = bj::parse(ctx_.state(), ec);
  auto* root = state.if_object();
  if (ec || !root) return ctx_.warn(ctx_.base_offset(), "invalid_state", "saved state ignored");
  last_session_id_ = str(*root, "last");
  if (auto* titles = obj(*root, "titles"))
    for (const auto& [id, rank] : *titles)
      title_ranks_[std::string(id)] = static_cast<int>(num(&rank));
  anchor_ = str(*root, "anchor");
  if (auto* since = obj(*root, "since"))
    for (const auto& [hash, n] : *since)
      since_anchor_[std::string(hash)] = static_cast<int>(num(&n));
}

void RecordMapper::finish() {
  for (const auto& [id, facts] : sessions_) {
    Session s;
    s.native_id = id;
    s.cwd = facts.cwd;
    s.git_branch = facts.git_branch;
    s.model = facts.model;
    s.title = facts.title;
    s.agent_version = facts.agent_version;
    s.started_at_ms = facts.started_at_ms;
    s.ended_at_ms = facts.ended_at_ms;
    s.forked_from_native_id = facts.forked_from;
    ctx_.session(s);
  }
  bj::object titles, since;
  for (const auto& [id, rank] : title_ranks_) titles[id] = rank;
  for (const auto& [hash, n] : since_anchor_) since[hash] = n;
  ctx_.save_state(bj::serialize(bj::object{{"last", last_session_id_},
                                           {"titles", std::move(titles)},
                                           {"anchor", anchor_},
                                           {"since", std::move(since)}}));
}

}  // namespace helix::claude

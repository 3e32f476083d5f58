// updates.jsonl: Grok's append-only ACP journal. Streamed chunks become one event per message,
// tool calls and their final update become tool_call / tool_result, turn_completed gives usage.
#include "grok_parsers.hpp"

#include <algorithm>
#include <optional>
#include <set>

namespace grok {
namespace {

using boost::json::object;
using helix::json::num;
using helix::json::obj;
using helix::json::str;

// A message whose chunks are still arriving. It rides in the saved state across parse calls
// (the host commits the offset after each call), so it must stay well under the 64 KiB limit:
// a longer message is emitted in parts.
constexpr std::size_t kMaxOpenText = std::size_t{40} * 1024;
constexpr std::size_t kMaxOpenPayload = std::size_t{16} * 1024;
constexpr std::size_t kMaxStateBytes = std::size_t{60} * 1024;

struct OpenMessage {
  std::string kind;  // the sessionUpdate of its chunks
  uint64_t offset = 0;
  int64_t ts_ms = 0;
  std::string text, payload;
};

struct JournalState {
  int64_t prompt_index = -1;  // the latest user prompt's index: part of the shared uids
  int64_t turns = 0;          // turn_completed records seen: the usage key
  std::string model;
  std::optional<OpenMessage> open;
};

// Updates that carry no event: streaming deltas of data journalled whole elsewhere, and gauges.
const std::set<std::string_view> kSkipped = {"tool_call_delta_chunk", "usage_update",
                                             "available_commands_update"};

// Known ACP and Grok (_x.ai) updates that are kept as lifecycle events.
const std::set<std::string_view> kLifecycle = {"plan",
                                               "current_mode_update",
                                               "session_info_update",
                                               "rewind_marker",
                                               "session_summary_generated",
                                               "session_recap",
                                               "hook_execution",
                                               "hook_annotation",
                                               "auto_continue_completed",
                                               "auto_recovery_started",
                                               "auto_recovery_exhausted",
                                               "subagent_spawned",
                                               "subagent_progress",
                                               "subagent_finished",
                                               "task_completed",
                                               "task_backgrounded",
                                               "scheduled_task_created",
                                               "scheduled_task_fired",
                                               "scheduled_task_deleted",
                                               "monitor_event",
                                               "model_changed",
                                               "model_auto_switched",
                                               "diff_review",
                                               "goal_updated",
                                               "workflow_updated",
                                               "plugins_changed",
                                               "hooks_changed",
                                               "image_compressed",
                                               "image_dropped",
                                               "response_started",
                                               "reasoning_completed",
                                               "response_completed",
                                               "background_tasks",
                                               "session_status",
                                               "last_turn_summary",
                                               "interaction_resolved",
                                               "pending_interaction",
                                               "unknown"};

// Known updates kept as "other": the steps around a compaction whose one event is
// auto_compact_completed (the checkpoint written, the start, a cancellation).
const std::set<std::string_view> kOther = {"compaction_checkpoint", "auto_compact_started",
                                           "auto_compact_cancelled"};

// A tool_call_update that is not final, recognized without parsing: each may repeat the whole
// output so far (one real session had 2.3 GB of them), and none becomes an event. Only a
// conservative prefilter: a line it lets through is still checked after parsing.
bool is_tool_progress(std::string_view line) {
  const auto has = [&](std::string_view needle) { return line.find(needle) != line.npos; };
  return has("\"sessionUpdate\":\"tool_call_update\"") && !has("\"status\":\"completed\"") &&
         !has("\"status\":\"failed\"");
}

bool is_chunk(std::string_view kind) {
  return kind == "user_message_chunk" || kind == "agent_message_chunk" ||
         kind == "agent_thought_chunk";
}

class JournalParser {
 public:
  JournalParser(helix::ParseContext& ctx, const SourcePath& source)
      : ctx_(ctx), source_(source), cwd_(decode_cwd_dirname(source.group)) {}

  void run() {
    load_state();
    helix::for_each_line(ctx_, [&](std::string_view line, uint64_t offset) {
      if (is_tool_progress(line)) return close_message();
      for_each_record(ctx_, parser_, line, offset,
                      [&](const object& record, std::string_view raw, uint64_t at) {
                        handle(record, raw, at);
                      });
    });
    emit_session();
    save_state();
  }

 private:
  void handle(const object& record, std::string_view raw, uint64_t offset) {
    // An envelope {timestamp, method, params}; legacy lines are the bare ACP notification.
    const object* params = record.contains("method") ? obj(record, "params") : &record;
    const object* update = params ? obj(*params, "update") : nullptr;
    if (!update) return ctx_.warn(offset, "missing_update", "journal line without params.update");
    const std::string_view kind = str(*update, "sessionUpdate");
    const int64_t ts_ms = timestamp(record, *params);
    if (ts_ms) {
      first_ts_ = first_ts_ ? std::min(first_ts_, ts_ms) : ts_ms;
      last_ts_ = std::max(last_ts_, ts_ms);
    }
    if (is_chunk(kind)) return add_chunk(kind, *update, raw, offset, ts_ms);
    close_message();
    if (kind == "tool_call") return tool_call(*update, raw, offset, ts_ms);
    if (kind == "tool_call_update") return tool_update(*update, raw, offset, ts_ms);
    if (kind == "turn_completed") return turn_completed(*update, raw, offset, ts_ms);
    if (kSkipped.count(kind)) return;
    helix::Event event = base_event(raw, offset, ts_ms);
    std::string summary(kind);
    if (kind == "rewind_marker")
      summary = "rewind to prompt " + std::to_string(num(*update, "target_prompt_index"));
    if (kind == "retry_state") {  // an API call that failed and is tried again
      event.kind = "retry";
      event.role = "system";
      summary = "retry " + std::to_string(num(*update, "attempt")) + "/" +
                std::to_string(num(*update, "max_retries")) + ": " +
                std::string(str(*update, "reason"));
      event.summary = summary;
      event.text = str(*update, "reason");
      return ctx_.event(event);
    }
    if (kind == "auto_compact_completed")  // the compaction event (manual /compact too)
      summary = "context compacted (" + std::to_string(num(*update, "tokens_before")) +
                " tokens before, " + std::to_string(num(*update, "tokens_after")) + " after)";
    event.summary = summary;
    if (kLifecycle.count(kind) || kind == "auto_compact_completed") {
      event.kind = "lifecycle";
    } else if (kind == "auto_compact_failed") {
      event.kind = "error";
      event.role = "system";
    } else if (kOther.count(kind)) {
      event.kind = "other";
    } else {
      event.kind = "other";
      ctx_.warn(offset, "unknown_type",
                "updates.jsonl: unknown sessionUpdate '" + std::string(kind) + "'");
    }
    ctx_.event(event);
  }

  // Chunks of one message are consecutive lines of one kind; a new user prompt index or any
  // other record ends the message.
  void add_chunk(std::string_view kind, const object& update, std::string_view raw, uint64_t offset,
                 int64_t ts_ms) {
    if (kind == "user_message_chunk") {
      const object* meta = obj(update, "_meta");
      const int64_t index = meta ? num(*meta, "promptIndex", -1) : -1;
      const bool new_prompt =
          !state_.open || state_.open->kind != kind || (index >= 0 && index != state_.prompt_index);
      if (new_prompt) {
        close_message();
        state_.prompt_index = index >= 0 ? index : state_.prompt_index + 1;
      }
      if (meta && !str(*meta, "modelId").empty()) state_.model = str(*meta, "modelId");
    } else if (state_.open && state_.open->kind != kind) {
      close_message();
    }
    if (!state_.open) {
      state_.open = OpenMessage{std::string(kind), offset, ts_ms, {}, {}};
      if (raw.size() <= kMaxOpenPayload) state_.open->payload = raw;
    }
    state_.open->text += content_text(update.if_contains("content"));
    if (state_.open->text.size() > kMaxOpenText) close_message();
  }

  void close_message() {
    if (!state_.open) return;
    const OpenMessage message = std::move(*state_.open);
    state_.open.reset();
    helix::Event event = base_event(message.payload, message.offset, message.ts_ms);
    std::string uid;
    if (message.kind == "user_message_chunk") {
      event.kind = "user_msg";
      event.role = "user";
      uid = prompt_uid(state_.prompt_index, message.text);
    } else {
      event.kind = message.kind == "agent_thought_chunk" ? "thinking" : "assistant_msg";
      event.role = "assistant";
      event.model = state_.model;
      uid = message.kind == "agent_thought_chunk" ? thought_uid(state_.prompt_index, message.text)
                                                  : reply_uid(state_.prompt_index, message.text);
    }
    event.uid = uid;
    event.ordinal = uid_ordinal(uid);
    event.text = message.text;
    event.summary = first_line(message.text);
    ctx_.event(event);
  }

  void tool_call(const object& update, std::string_view raw, uint64_t offset, int64_t ts_ms) {
    helix::Event event = base_event(raw, offset, ts_ms);
    const std::string_view call_id = str(update, "toolCallId");
    const std::string input = json_text(update.if_contains("rawInput"));
    const std::string_view tool = tool_name(update);
    const object* raw_input = obj(update, "rawInput");
    const std::string_view command = raw_input ? str(*raw_input, "command") : std::string_view();
    const std::string summary =
        std::string(tool) + ": " + std::string(first_line(command.empty() ? input : command));
    event.kind = "tool_call";
    event.role = "assistant";
    event.tool = tool;
    event.call_id = call_id;
    event.uid = call_id;
    event.ordinal = uid_ordinal(call_id);
    event.model = state_.model;
    event.text = input;
    event.summary = summary;
    ctx_.event(event);
  }

  // Only the final update of a call becomes its result: intermediate updates may each repeat
  // the whole output so far.
  void tool_update(const object& update, std::string_view raw, uint64_t offset, int64_t ts_ms) {
    const std::string_view status = str(update, "status");
    if (status != "completed" && status != "failed") return;
    const std::string_view call_id = str(update, "toolCallId");
    const object* output = obj(update, "rawOutput");
    std::string text(output ? str(*output, "output_for_prompt") : std::string_view());
    if (text.empty()) text = content_text(update.if_contains("content"));
    if (text.empty()) text = json_text(update.if_contains("rawOutput"));
    const std::string uid = result_uid(call_id);
    helix::Event event = base_event(raw, offset, ts_ms);
    // A command that ran and exited non-zero is "completed" with its exit code.
    const auto* exit_code = output ? output->if_contains("exit_code") : nullptr;
    const bool exited_badly = exit_code && exit_code->is_int64() && exit_code->as_int64() != 0;
    event.kind = status == "failed" || exited_badly ? "error" : "tool_result";
    event.role = "tool";
    event.tool = tool_name(update, false);
    event.call_id = call_id;
    event.uid = uid;
    event.ordinal = uid_ordinal(uid);
    event.text = text;
    event.summary = first_line(text);
    ctx_.event(event);
  }

  void turn_completed(const object& update, std::string_view raw, uint64_t offset, int64_t ts_ms) {
    ++state_.turns;
    helix::Event event = base_event(raw, offset, ts_ms);
    event.kind = "lifecycle";
    std::string summary = "turn completed: " + std::string(str(update, "stop_reason"));
    if (const object* totals = obj(update, "usage")) {
      helix::Usage usage = normalized_usage(*totals);
      // The turn's prompt id names the model calls of one turn wherever they are logged: a
      // fork repeats its origin's turns (same prompt ids) and counts them once.
      const std::string_view prompt = str(update, "prompt_id");
      const std::string key =
          prompt.empty() ? std::string(source_.session_id) + "#turn" + std::to_string(state_.turns)
                         : "turn:" + std::string(prompt);
      const object* models = obj(*totals, "modelUsage");
      const std::string model =
          models && models->size() == 1 ? std::string(models->begin()->key()) : state_.model;
      usage.session_id = source_.session_id;
      usage.key = key;
      usage.source_offset = offset;
      usage.ts_ms = ts_ms;
      usage.model = model;
      ctx_.usage(usage);
      summary += ", " + std::to_string(num(*totals, "totalTokens")) + " tokens";
    }
    event.summary = summary;
    ctx_.event(event);
  }

  // The stable tool identity is _meta["x.ai/tool"].name; tool_call.title is the tool name too,
  // but tool_call_update.title is a human label ("Execute `ls`").
  static std::string_view tool_name(const object& update, bool title_fallback = true) {
    if (const object* meta = obj(update, "_meta"))
      if (const object* tool = obj(*meta, "x.ai/tool"))
        if (!str(*tool, "name").empty()) return str(*tool, "name");
    return title_fallback ? str(update, "title") : std::string_view();
  }

  static int64_t timestamp(const object& record, const object& params) {
    if (const object* meta = obj(params, "_meta"))
      if (const int64_t ms = num(*meta, "agentTimestampMs")) return ms;
    return num(record, "timestamp") * 1000;
  }

  helix::Event base_event(std::string_view raw, uint64_t offset, int64_t ts_ms) const {
    helix::Event event;
    event.session_id = source_.session_id;
    event.source_offset = offset;
    event.ts_ms = ts_ms;
    event.payload = raw;
    return event;
  }

  void emit_session() {
    helix::Session session;
    session.native_id = source_.session_id;
    session.cwd = cwd_;  // a fallback: updates.jsonl sorts after summary.json (info.cwd)
    session.model = state_.model;
    session.started_at_ms = first_ts_;
    session.ended_at_ms = last_ts_;
    ctx_.session(session);
  }

  void load_state() {
    if (ctx_.state().empty()) return;
    boost::system::error_code ec;
    const boost::json::value value = boost::json::parse(ctx_.state(), ec);
    const object* saved = value.if_object();
    if (ec || !saved)
      return ctx_.warn(ctx_.base_offset(), "invalid_state", "saved state unreadable");
    state_.prompt_index = num(*saved, "prompt_index", -1);
    state_.turns = num(*saved, "turns");
    state_.model = str(*saved, "model");
    if (const object* open = obj(*saved, "open"))
      state_.open = OpenMessage{
          std::string(str(*open, "kind")), static_cast<uint64_t>(num(*open, "offset")),
          num(*open, "ts_ms"), std::string(str(*open, "text")), std::string(str(*open, "payload"))};
  }

  // JSON escaping can multiply the open text's size: past the host's limit, the message is
  // emitted as it stands rather than carried.
  void save_state() {
    std::string state = state_json();
    if (state.size() > kMaxStateBytes && state_.open) {
      close_message();
      state = state_json();
    }
    ctx_.save_state(state);
  }

  std::string state_json() const {
    object saved{
        {"prompt_index", state_.prompt_index}, {"turns", state_.turns}, {"model", state_.model}};
    if (state_.open)
      saved["open"] = object{{"kind", state_.open->kind},
                             {"offset", state_.open->offset},
                             {"ts_ms", state_.open->ts_ms},
                             {"text", state_.open->text},
                             {"payload", state_.open->payload}};
    return boost::json::serialize(saved);
  }

  helix::ParseContext& ctx_;
  const SourcePath& source_;
  const std::string cwd_;
  helix::json::LineParser parser_;
  JournalState state_;
  int64_t first_ts_ = 0, last_ts_ = 0;
};

}  // namespace

void parse_updates(helix::ParseContext& ctx, const SourcePath& source) {
  JournalParser(ctx, source).run();
}

}  // namespace grok

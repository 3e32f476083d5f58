// plugins/codex/codex_adapter.cpp: the `codex` adapter, for Codex CLI rollouts written as
// {timestamp,type,payload} lines (0.32 and later: session_meta, response_item, event_msg,
// turn_context, compacted, token_usage_record, ...). Older files belong to codex-legacy.
#include <algorithm>
#include <array>
#include <vector>

#include "codex_items.hpp"

namespace codex {
namespace {
namespace bj = boost::json;
using helix::json::arr;
using helix::json::num;
using helix::json::obj;
using helix::json::str;

// input, cached input, output, reasoning output, total: a TokenUsage in file order.
using Tokens = std::array<int64_t, 5>;

Tokens read_tokens(const bj::object& usage) {
  return {num(usage, "input_tokens"), num(usage, "cached_input_tokens"),
          num(usage, "output_tokens"), num(usage, "reasoning_output_tokens"),
          num(usage, "total_tokens")};
}

// What must survive chunk boundaries and sweeps; saved with every parse call.
struct State {
  std::string session_id, parent_id, model;
  bool meta_seen = false;
  Tokens previous_total{};  // last total_token_usage seen, the base of the next delta
  bool has_usage_records = false;
  std::string replay_second;  // token_counts stamped in this second replay the parent's
  bool replay_done = false;
  std::vector<std::string> running_calls;  // outputs said "still running"; status comes later
  std::vector<std::string> open_calls;     // calls whose output has not come yet
  uint64_t last_output_offset = 0;         // the last item the model wrote: its usage is the call's
  bool has_output_offset = false;
  int64_t context_tokens = 0;  // the input of the last model call: the context's size
  bool summarizing = false;    // between a compaction's summary and its compacted line

  static State load(std::string_view saved) {
    State s;
    if (saved.empty()) return s;
    boost::system::error_code ec;
    bj::value v = bj::parse(saved, ec);
    const bj::object* o = ec ? nullptr : v.if_object();
    if (!o) return s;
    s.session_id = str(*o, "sid");
    s.parent_id = str(*o, "parent");
    s.model = str(*o, "model");
    s.meta_seen = helix::json::truthy(*o, "meta");
    s.has_usage_records = helix::json::truthy(*o, "records");
    s.replay_second = str(*o, "replay");
    s.replay_done = helix::json::truthy(*o, "replay_done");
    if (const auto* prev = arr(*o, "prev"); prev && prev->size() == s.previous_total.size())
      for (std::size_t i = 0; i < prev->size(); ++i) s.previous_total[i] = num(&(*prev)[i]);
    if (const auto* running = arr(*o, "running"))
      for (const auto& id : *running) s.running_calls.emplace_back(str(&id));
    if (const auto* open = arr(*o, "open"))
      for (const auto& id : *open) s.open_calls.emplace_back(str(&id));
    s.has_output_offset = o->contains("output_at");
    s.last_output_offset = static_cast<uint64_t>(num(*o, "output_at"));
    s.context_tokens = num(*o, "context");
    s.summarizing = helix::json::truthy(*o, "summarizing");
    return s;
  }

  std::string save() const {
    bj::array prev(previous_total.begin(), previous_total.end());
    bj::array running, open;
    for (const auto& id : running_calls) running.emplace_back(id);
    for (const auto& id : open_calls) open.emplace_back(id);
    bj::object saved{{"sid", session_id},
                     {"parent", parent_id},
                     {"model", model},
                     {"meta", meta_seen},
                     {"records", has_usage_records},
                     {"replay", replay_second},
                     {"replay_done", replay_done},
                     {"prev", std::move(prev)},
                     {"running", std::move(running)},
                     {"open", std::move(open)},
                     {"context", context_tokens},
                     {"summarizing", summarizing}};
    if (has_output_offset) saved["output_at"] = last_output_offset;
    return bj::serialize(saved);
  }
};

constexpr std::size_t kMaxRunningCalls = 64;

// Line types that carry no conversation (world snapshots, multi-agent and guardian internals).
bool is_known_context_line(std::string_view type) {
  static constexpr std::array<std::string_view, 6> kTypes = {
      "world_state",      "inter_agent_communication", "inter_agent_communication_metadata",
      "retained_context", "security_risk_score",       "realtime_item"};
  return std::find(kTypes.begin(), kTypes.end(), type) != kTypes.end();
}

// event_msg types kept as "other": settings, goals, guardian verdicts, tool side channels.
bool is_known_other_event(std::string_view type) {
  static constexpr std::array<std::string_view, 12> kTypes = {
      "thread_settings_applied",   "thread_goal_updated",
      "guardian_assessment",       "web_search_end",
      "image_generation_end",      "view_image_tool_call",
      "dynamic_tool_call_request", "dynamic_tool_call_response",
      "sub_agent_activity",        "plan_update",
      "session_configured",        "context_compacted"};
  return type.starts_with("collab_") ||
         std::find(kTypes.begin(), kTypes.end(), type) != kTypes.end();
}

// item_completed types kept as "other" (ContextCompaction: the compacted line is the event).
bool is_known_other_item(std::string_view type) {
  static constexpr std::array<std::string_view, 11> kTypes = {"Plan",
                                                              "SubAgentActivity",
                                                              "ContextCompaction",
                                                              "Extension",
                                                              "WebSearch",
                                                              "ImageView",
                                                              "ImageGeneration",
                                                              "CollabAgentToolCall",
                                                              "DynamicToolCall",
                                                              "EnteredReviewMode",
                                                              "ExitedReviewMode"};
  return std::find(kTypes.begin(), kTypes.end(), type) != kTypes.end();
}

// Why a tool status record (exec_command_end, patch_apply_end, mcp_tool_call_end or an
// item_completed CommandExecution / FileChange / McpToolCall) says the call failed, or "".
std::string status_failure(const bj::object& s) {
  if (const auto* code = s.if_contains("exit_code"); code && code->is_number() && num(code) != 0)
    return "exit code " + std::to_string(num(code));
  const auto status = str(s, "status");
  if (status == "failed" || status == "declined") return std::string(status);
  if (const auto* ok = s.if_contains("success"); ok && ok->is_bool() && !ok->get_bool())
    return "failed";
  if (const auto* result = obj(s, "result")) {
    if (result->contains("Err")) return "error: " + std::string(str(*result, "Err"));
    const auto* ok = obj(*result, "Ok");
    if (helix::json::truthy(ok ? *ok : *result, "isError")) return "tool reported isError";
  }
  if (const auto* error = s.if_contains("error"); error && !error->is_null()) return "error";
  return {};
}

class CodexAdapter : public helix::Adapter {
 public:
  int probe(const helix::Probe& probe) override {
    return !probe.path_ends_with(".json") && detect_era(probe.head) == Era::kWrapper ? 100 : 0;
  }

  void parse(helix::ParseContext& ctx) override {
    state_ = State::load(ctx.state());
    fallback_id_ = std::string(session_id_from_path(ctx.path()));
    last_ts_ = 0;
    helix::Adapter::parse(ctx);
    ctx.session({.native_id = session_id(), .model = state_.model, .ended_at_ms = last_ts_});
    ctx.save_state(state_.save());
  }

  void parse_line(helix::ParseContext& ctx, std::string_view line, uint64_t offset) override {
    // A record's raw bytes run to the next value of its line: the last value of a line (most
    // lines hold one) is handled at once, the others are copied out of the parser's arena.
    std::vector<std::pair<bj::value, std::size_t>> values;
    std::size_t error_at = 0;
    std::string error = parser_.parse(
        line,
        [&](const bj::value& v, std::size_t at) {
          if (values.empty() && is_blank(line.substr(parser_.value_end())))
            handle_value(ctx, v, line.substr(at), offset + at);
          else
            values.emplace_back(bj::value(v, bj::storage_ptr()), at);
        },
        &error_at);
    for (std::size_t i = 0; i < values.size(); ++i) {
      const std::size_t end = i + 1 < values.size() ? values[i + 1].second : line.size();
      std::string_view raw = line.substr(values[i].second, end - values[i].second);
      handle_value(ctx, values[i].first, raw, offset + values[i].second);
    }
    if (!error.empty()) ctx.warn(offset + error_at, "invalid_json", error);
  }

 private:
  static bool is_blank(std::string_view s) {
    return s.find_first_not_of(" \t\r\n") == std::string_view::npos;
  }

  void handle_value(helix::ParseContext& ctx, const bj::value& value, std::string_view raw,
                    uint64_t offset) {
    if (const auto* o = value.if_object())
      handle_record(ctx, *o, raw, offset);
    else
      ctx.warn(offset, "invalid_record", "a line value is not an object");
  }

  std::string_view session_id() const {
    return state_.session_id.empty() ? std::string_view(fallback_id_) : state_.session_id;
  }

  void handle_record(helix::ParseContext& ctx, const bj::object& line, std::string_view raw,
                     uint64_t offset) {
    const std::string_view stamp = str(line, "timestamp");
    const int64_t ts = helix::json::iso8601_ms(stamp);
    last_ts_ = std::max(last_ts_, ts);
    const std::string_view type = str(line, "type");
    const bj::object* payload = obj(line, "payload");
    if (type == "turn_context" && payload) {
      // Model of the following turn (latest wins); the settings themselves are not events.
      if (auto model = str(*payload, "model"); !model.empty()) state_.model = std::string(model);
      return;
    }
    if (type == "session_meta" && payload)
      return on_session_meta(ctx, *payload, stamp, offset, ts, raw);
    Record record(ctx, session_id(), offset, ts, raw, state_.model);
    if (!payload) {
      record.emit({.kind = "other", .summary = "record without payload"});
      ctx.warn(offset, "unknown_type", "line without a payload (not a wrapper-era record)");
    } else if (type == "response_item") {
      on_response_item(ctx, record, line, *payload, offset);
    } else if (type == "event_msg") {
      on_event(ctx, record, *payload, stamp, offset);
    } else if (type == "compacted") {
      // The compaction event: the summary the model continues from (replacement_history
      // repeats earlier messages: not new conversation).
      std::string summary = "context compacted";
      if (state_.context_tokens > 0)
        summary += " (" + std::to_string(state_.context_tokens) + " tokens before)";
      state_.summarizing = false;
      record.emit({.kind = "lifecycle",
                   .role = "system",
                   .summary = summary,
                   .text = str(*payload, "message")});
    } else if (type == "token_usage_record") {
      on_usage_record(ctx, *payload, ts, offset);
    } else if (is_known_context_line(type)) {
      record.emit({.kind = "other", .role = "system", .summary = type});
    } else {
      std::string summary = "unknown line type " + std::string(type);
      record.emit({.kind = "other", .summary = summary});
      ctx.warn(offset, "unknown_type", summary);
    }
  }

  void on_session_meta(helix::ParseContext& ctx, const bj::object& meta, std::string_view stamp,
                       uint64_t offset, int64_t ts, std::string_view raw) {
    if (state_.meta_seen) return on_replayed_session_meta(ctx, meta, stamp, offset, ts, raw);
    state_.meta_seen = true;
    if (auto id = str(meta, "id"); !id.empty()) state_.session_id = std::string(id);
    state_.parent_id = parent_of(meta);
    if (!state_.parent_id.empty()) state_.replay_second = std::string(stamp.substr(0, 19));
    Record record(ctx, session_id(), offset, ts, raw, state_.model);
    const auto* git = obj(meta, "git");
    // A fork (forked_from_id) continues a copy of another session; a sub-agent is its child.
    const std::string_view forked = str(meta, "forked_from_id");
    ctx.session({.native_id = session_id(),
                 .parent_native_id = forked.empty() ? std::string_view(state_.parent_id) : "",
                 .cwd = str(meta, "cwd"),
                 .git_branch = git ? str(*git, "branch") : std::string_view(),
                 .agent_version = str(meta, "cli_version"),
                 .started_at_ms = helix::json::iso8601_ms(str(meta, "timestamp")),
                 .forked_from_native_id = forked});
    std::string summary = "session started: codex " + std::string(str(meta, "cli_version")) + " " +
                          std::string(str(meta, "originator"));
    record.emit({.kind = "lifecycle", .role = "system", .summary = summary});
  }

  // Forks and sub-agents copy their parent's lines, session_meta included, all stamped with the
  // instant of the copy. The first session_meta of a file stays the canonical one; the first
  // copied one names the origin when the file's own does not (forks before 0.88).
  void on_replayed_session_meta(helix::ParseContext& ctx, const bj::object& meta,
                                std::string_view stamp, uint64_t offset, int64_t ts,
                                std::string_view raw) {
    if (state_.replay_second.empty() && !state_.replay_done)
      state_.replay_second = std::string(stamp.substr(0, 19));
    const auto id = str(meta, "id");
    if (state_.parent_id.empty() && !id.empty() && id != session_id()) {
      state_.parent_id = std::string(id);
      ctx.session({.native_id = session_id(), .forked_from_native_id = state_.parent_id});
    }
    std::string summary = "replayed session_meta of " + std::string(id);
    Record(ctx, session_id(), offset, ts, raw, state_.model)
        .emit({.kind = "lifecycle", .role = "system", .summary = summary});
  }

  static std::string parent_of(const bj::object& meta) {
    if (auto forked = str(meta, "forked_from_id"); !forked.empty()) return std::string(forked);
    if (const auto* source = obj(meta, "source"))
      if (const auto* sub = obj(*source, "subagent"))
        if (const auto* spawn = obj(*sub, "thread_spawn"))
          if (auto parent = str(*spawn, "parent_thread_id"); !parent.empty())
            return std::string(parent);
    return std::string(str(meta, "parent_thread_id"));
  }

  void on_response_item(helix::ParseContext& ctx, Record& record, const bj::object& line,
                        const bj::object& item, uint64_t offset) {
    // W3 marks the assistant message that is really a compaction summary: the model's answer to
    // the summarization request, which the compacted line (the compaction event) carries on.
    if (const auto* meta = obj(line, "metadata");
        meta && helix::json::truthy(*meta, "compaction_output")) {
      std::string text = content_text(arr(item, "content"));
      record.emit({.kind = "other",
                   .role = "assistant",
                   .summary = "summary for the compaction",
                   .text = text});
      note_model_output(offset);
      state_.summarizing = true;  // the summarization call's usage is not the context's size
      return;
    }
    track_calls(item, offset);
    ItemResult result = map_response_item(record, item, Prompts::kFromEvents);
    if (!result.known)
      ctx.warn(offset, "unknown_type",
               "unknown response_item type " + std::string(str(item, "type")));
    if (!result.running_call_id.empty()) {
      auto& running = state_.running_calls;
      running.push_back(std::move(result.running_call_id));
      if (running.size() > kMaxRunningCalls) running.erase(running.begin());
    }
  }

  void on_event(helix::ParseContext& ctx, Record& record, const bj::object& event,
                std::string_view stamp, uint64_t offset) {
    const std::string_view type = str(event, "type");
    std::string summary(type);
    if (type == "user_message") {
      on_user_message(record, event);
    } else if (type == "agent_message" || type == "agent_reasoning" ||
               type == "agent_reasoning_raw_content" || type == "agent_reasoning_section_break") {
      // Copies of the assistant message / reasoning response_items, which are the source for
      // these in every era (they exist in all of them and carry ids and phases).
    } else if (type == "token_count") {
      on_token_count(ctx, event, stamp, record.ts_ms(), offset);
    } else if (type == "task_started") {
      record.emit({.kind = "lifecycle", .role = "system", .summary = "turn started"});
    } else if (type == "task_complete") {
      const auto* error = obj(event, "error");
      if (error) summary = "turn failed: " + std::string(str(*error, "message"));
      record.emit({.kind = "completion",
                   .role = "assistant",
                   .summary = error ? std::string_view(summary) : "turn complete",
                   .text = str(event, "last_agent_message")});
    } else if (type == "turn_aborted") {
      summary = "turn aborted: " + std::string(str(event, "reason"));
      record.emit({.kind = "human_intervention", .role = "user", .summary = summary});
    } else if (type == "error") {
      record.emit({.kind = "error",
                   .role = "system",
                   .summary = first_line(str(event, "message")),
                   .text = str(event, "message")});
    } else if (type == "entered_review_mode" || type == "exited_review_mode" ||
               type == "thread_rolled_back" || type == "undo_completed") {
      record.emit({.kind = "lifecycle", .role = "system", .summary = summary});
    } else if (type == "thread_name_updated") {
      on_thread_name(ctx, record, event);
    } else if (type == "exec_command_end" || type == "patch_apply_end" ||
               type == "mcp_tool_call_end") {
      on_tool_status(record, event, str(event, "call_id"), type == "mcp_tool_call_end");
    } else if (type == "item_completed") {
      on_item_completed(ctx, record, event, offset);
    } else if (is_known_other_event(type)) {
      record.emit({.kind = "other", .role = "system", .summary = summary});
    } else {
      summary = "unknown event_msg type " + summary;
      record.emit({.kind = "other", .summary = summary});
      ctx.warn(offset, "unknown_type", summary);
    }
  }

  // The CLI's own record of what the user typed (W1 to ~0.148). 0.30-0.48 also marked injected
  // context with `kind`.
  static void on_user_message(Record& record, const bj::object& event) {
    const auto kind = str(event, "kind");
    std::string text(str(event, "message"));
    if (const auto* images = arr(event, "images"))
      for (std::size_t i = 0; i < images->size(); ++i) text += "\n[image]";
    if (kind == "user_instructions" || kind == "environment_context") {
      std::string summary = "context: " + std::string(kind);
      record.emit({.kind = "other", .role = "system", .summary = summary, .text = text});
      return;
    }
    record.emit({.kind = "user_msg", .role = "user", .summary = first_line(text), .text = text});
  }

  void on_thread_name(helix::ParseContext& ctx, Record& record, const bj::object& event) {
    const auto thread = str(event, "thread_id");
    const auto name = str(event, "thread_name");
    if (!name.empty() && (thread.empty() || thread == session_id()))
      ctx.session({.native_id = session_id(), .title = name});
    record.emit({.kind = "lifecycle", .role = "system", .summary = "thread renamed", .text = name});
  }

  void on_item_completed(helix::ParseContext& ctx, Record& record, const bj::object& event,
                         uint64_t offset) {
    const auto* item = obj(event, "item");
    const std::string_view type = item ? str(*item, "type") : std::string_view();
    if (type == "UserMessage") {
      // The typed prompt from ~0.149 on (the user_message event is gone there).
      std::string text = content_text(arr(*item, "content"));
      record.emit({.kind = "user_msg",
                   .role = "user",
                   .uid = str(*item, "id"),
                   .summary = first_line(text),
                   .text = text});
    } else if (type == "AgentMessage" || type == "Reasoning") {
      // Copies of the response_items that follow.
    } else if (type == "CommandExecution" || type == "FileChange" || type == "McpToolCall") {
      on_tool_status(record, *item, str(*item, "id"), type == "McpToolCall");
    } else if (is_known_other_item(type)) {
      std::string summary = "item " + std::string(type);
      record.emit({.kind = "other", .role = "system", .summary = summary});
    } else {
      std::string summary = "unknown item_completed type " + std::string(type);
      record.emit({.kind = "other", .summary = summary});
      ctx.warn(offset, "unknown_type", summary);
    }
  }

  // A tool status record restates the outcome of a call whose output item is the result event.
  // It adds an "error" only where the output could not tell: MCP failures (isError is not
  // serialized in the output) and commands whose output said they were still running.
  // A command run from inside a code-mode cell (0.16x: the model's `exec` calls JavaScript that
  // calls tools.exec_command) has its own id; its failure is reported as an error of the cell,
  // whose own output may still say the script completed.
  void on_tool_status(Record& record, const bj::object& status, std::string_view call_id,
                      bool is_mcp) {
    auto& running = state_.running_calls;
    auto it = std::find(running.begin(), running.end(), call_id);
    const bool was_running = it != running.end();
    if (was_running) running.erase(it);
    const auto& open = state_.open_calls;
    const bool nested =
        !was_running && !open.empty() && std::find(open.begin(), open.end(), call_id) == open.end();
    std::string failure = status_failure(status);
    if (failure.empty() || !(is_mcp || was_running || nested)) return;
    std::string text(str(status, "aggregated_output"));
    if (text.empty()) text = str(status, "stderr");
    if (const auto* result = obj(status, "result"); result && text.empty())
      text = str(*result, "Err");
    std::string summary = "failed: " + failure;
    if (nested) {
      if (const auto* argv = arr(status, "command"); argv && !argv->empty())
        summary += ": " + std::string(first_line(str(&argv->back())));
      call_id = open.back();
    }
    record.emit(
        {.kind = "error", .role = "tool", .call_id = call_id, .summary = summary, .text = text});
  }

  // Which calls wait for their output, and which item the model wrote last.
  void track_calls(const bj::object& item, uint64_t offset) {
    const auto type = str(item, "type");
    auto& open = state_.open_calls;
    if (type == "function_call" || type == "custom_tool_call" || type == "local_shell_call") {
      open.emplace_back(str(item, "call_id"));
      if (open.size() > kMaxRunningCalls) open.erase(open.begin());
    } else if (type == "function_call_output" || type == "custom_tool_call_output") {
      auto it = std::find(open.begin(), open.end(), str(item, "call_id"));
      if (it != open.end()) open.erase(it);
      return;
    }
    if (type != "message" || str(item, "role") == "assistant") note_model_output(offset);
  }

  void note_model_output(uint64_t offset) {
    state_.last_output_offset = offset;
    state_.has_output_offset = true;
  }

  // Usage of W1/W2 files (codex.md §3.3): deltas of the cumulative total_token_usage. Unchanged
  // totals are the duplicates and estimates Codex emits; a drop is a reset (re-baseline); the
  // parent's replayed totals in a fork are only a baseline. Once the file has
  // token_usage_record lines (W3), those are the usage and token_count only tracks the total.
  // The rate limits every token_count carries (also those without usage) are reported as they
  // are, but for a fork's replayed copies of the parent's.
  void on_token_count(helix::ParseContext& ctx, const bj::object& event, std::string_view stamp,
                      int64_t ts, uint64_t offset) {
    bool replayed = false;
    if (!state_.replay_second.empty()) {
      replayed = stamp.substr(0, 19) == state_.replay_second;
      if (!replayed) {
        state_.replay_second.clear();
        state_.replay_done = true;
      }
    }
    if (!replayed) report_rate_limits(ctx, event, ts, offset);
    const auto* info = obj(event, "info");
    const auto* total_usage = info ? obj(*info, "total_token_usage") : nullptr;
    if (!total_usage) return;
    const Tokens total = read_tokens(*total_usage);
    if (const auto* last = obj(*info, "last_token_usage"); last && !state_.summarizing)
      state_.context_tokens = num(*last, "input_tokens");
    if (total == state_.previous_total) return;
    Tokens delta;
    for (std::size_t i = 0; i < total.size(); ++i)
      delta[i] = std::max<int64_t>(0, total[i] - state_.previous_total[i]);
    state_.previous_total = total;
    if (replayed || state_.has_usage_records) return;
    if (std::all_of(delta.begin(), delta.end(), [](int64_t v) { return v == 0; })) return;
    // The cumulative total names the delta: a total seen again (the same file read from
    // another place, a resumed file's seeded total) is the same call, and a keyed record can
    // sit at the response it counts.
    std::string key(session_id());
    key += "/total";
    for (int64_t v : total) key += "/" + std::to_string(v);
    emit_usage(ctx, delta, key, ts, offset);
  }

  // token_count.rate_limits (codex.md §3.1): 0.41 on, {primary, secondary} windows of
  // {used_percent, window_minutes, resets_at (Unix seconds) | resets_in_seconds (0.41-0.47)},
  // named by limit_id from February 2026; 0.40 wrote flat primary_*/secondary_* fields.
  void report_rate_limits(helix::ParseContext& ctx, const bj::object& event, int64_t ts,
                          uint64_t offset) const {
    const auto* limits = obj(event, "rate_limits");
    if (!limits) return;
    const std::string_view limit_id = str(*limits, "limit_id");
    for (const char* window : {"primary", "secondary"}) {
      helix::RateLimit r{.session_id = session_id(),
                         .source_offset = offset,
                         .ts_ms = ts,
                         .limit_id = limit_id,
                         .window = window};
      if (const auto* w = obj(*limits, window)) {
        const auto* used = w->if_contains("used_percent");
        if (!used || !used->is_number()) continue;
        r.used_percent = helix::json::real(used);
        r.window_minutes = num(*w, "window_minutes");
        if (const int64_t at = num(*w, "resets_at"); at > 0)
          r.resets_at_ms = at * 1000;
        else if (const auto* in = w->if_contains("resets_in_seconds"); in && ts > 0)
          r.resets_at_ms = ts + num(in) * 1000;
      } else {
        const std::string prefix(window);
        const auto* used = limits->if_contains(prefix + "_used_percent");
        if (!used || !used->is_number()) continue;
        r.used_percent = helix::json::real(used);
        r.window_minutes = num(*limits, prefix + "_window_minutes");
      }
      ctx.rate_limit(r);
    }
  }

  // W3: one record per model response; its response_id makes replays and duplicates one call.
  void on_usage_record(helix::ParseContext& ctx, const bj::object& record, int64_t ts,
                       uint64_t offset) {
    state_.has_usage_records = true;
    const auto* usage = obj(record, "usage");
    if (!usage) return ctx.warn(offset, "invalid_record", "token_usage_record without usage");
    if (!state_.summarizing) state_.context_tokens = num(*usage, "input_tokens");
    std::string key;
    if (auto response = str(record, "response_id"); !response.empty())
      key = std::string(str(record, "thread_id")) + "/" + std::string(response);
    emit_usage(ctx, read_tokens(*usage), key, ts, offset);
  }

  // Codex counts cached input inside input_tokens and reasoning inside output_tokens. A keyed
  // record (one model response) is placed at the last item the model wrote, so that event shows
  // the response's tokens; a keyless one keeps its own offset, which makes it unique.
  void emit_usage(helix::ParseContext& ctx, const Tokens& t, std::string_view key, int64_t ts,
                  uint64_t offset) {
    if (!key.empty() && state_.has_output_offset && state_.last_output_offset < offset)
      offset = state_.last_output_offset;
    ctx.usage({.session_id = session_id(),
               .key = key,
               .source_offset = offset,
               .ts_ms = ts,
               .model = state_.model,
               .input_tokens = std::max<int64_t>(0, t[0] - t[1]),
               .output_tokens = t[2],
               .cache_read_tokens = t[1],
               .cache_creation_tokens = 0,
               .reasoning_tokens = t[3]});
  }

  State state_;
  std::string fallback_id_;
  int64_t last_ts_ = 0;
  helix::json::LineParser parser_;
};

}  // namespace
}  // namespace codex

namespace codex {
namespace {
// `codex resume <id>`, run in the session's directory (docs/operations.md).
const char* const kResumeArgv[] = {"codex", "resume", "{session_id}", nullptr};
constexpr helix_resume_ext kResume = helix::resume_command("Codex CLI", kResumeArgv);
}  // namespace
}  // namespace codex

HELIX_ADAPTER(codex::CodexAdapter, .name = "codex", .version = "1.2.0",
              .description =
                  "OpenAI Codex CLI rollouts, {timestamp,type,payload} eras (0.32 and "
                  "later)",
              .flavor = "codex", .root_env = "CODEX_HOME", .roots = codex::kRoots,
              .patterns = codex::kPatterns, .resume = &codex::kResume, .hook = &codex::kHook,
              .reparse_below = "1.2.0")

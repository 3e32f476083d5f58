// The smaller Grok sources: events.jsonl (runtime lifecycle), prompt_history.jsonl (per cwd),
// summary.json and usage.json (documents), and the hashed group's .cwd.
#include "grok_parsers.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace grok {
namespace {

using boost::json::object;
using helix::json::iso8601_ms;
using helix::json::num;
using helix::json::obj;
using helix::json::str;

// events.jsonl types kept as lifecycle events (grok.md 5), besides the prefixed families.
const std::set<std::string_view> kRuntimeEvents = {"turn_started",
                                                   "phase_changed",
                                                   "first_token",
                                                   "loop_started",
                                                   "tool_started",
                                                   "tool_completed",
                                                   "permission_requested",
                                                   "permission_resolved",
                                                   "yolo_toggled",
                                                   "mcp_config_resolved",
                                                   "mcp_managed_config_result",
                                                   "mcp_oauth_discovery_timeout",
                                                   "mcp_tool_registration_failed"};
const std::string_view kRuntimePrefixes[] = {"mcp_", "goal_", "laziness_", "todo_gate_"};

bool known_runtime_event(std::string_view type) {
  if (kRuntimeEvents.count(type)) return true;
  return std::any_of(std::begin(kRuntimePrefixes), std::end(kRuntimePrefixes),
                     [&](std::string_view prefix) { return type.starts_with(prefix); });
}

// The kind of an events.jsonl record: turn ends are completions (or errors), the user
// stopping a turn, denying a permission or interjecting is a human intervention.
std::string_view runtime_kind(std::string_view type, const object& record) {
  if (type == "turn_ended") {
    const std::string_view outcome = str(record, "outcome");
    if (outcome == "error") return "error";
    return outcome == "cancelled" || outcome == "interrupted" ? "human_intervention" : "completion";
  }
  if (type == "interjected") return "human_intervention";
  if (type == "permission_resolved" && str(record, "decision") != "allow")
    return "human_intervention";
  return known_runtime_event(type) ? "lifecycle" : "other";
}

std::string runtime_summary(std::string_view type, const object& record) {
  std::string summary(type);
  for (std::string_view key : {"turn_number", "loop_index"})
    if (record.contains(key)) summary += " " + std::to_string(num(record, key));
  for (std::string_view key : {"tool_name", "phase", "outcome", "decision", "model_id"})
    if (!str(record, key).empty()) summary += " " + std::string(str(record, key));
  return summary;
}

bool parse_document(helix::ParseContext& ctx, object& out) {
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(ctx.data(), ec);
  if (ec || !value.is_object()) {
    ctx.warn(0, "invalid_json", ec ? ec.message() : "document is not a JSON object");
    return false;
  }
  out = std::move(value.as_object());
  return true;
}

}  // namespace

void parse_events(helix::ParseContext& ctx, const SourcePath& source) {
  helix::json::LineParser parser;
  helix::Session session;
  std::string model;
  helix::for_each_line(ctx, [&](std::string_view line, uint64_t offset) {
    for_each_record(
        ctx, parser, line, offset, [&](const object& record, std::string_view raw, uint64_t at) {
          const std::string_view type = str(record, "type");
          const int64_t ts_ms = iso8601_ms(str(record, "ts"));
          if (ts_ms) {
            session.started_at_ms =
                session.started_at_ms ? std::min(session.started_at_ms, ts_ms) : ts_ms;
            session.ended_at_ms = std::max(session.ended_at_ms, ts_ms);
          }
          if (!str(record, "model_id").empty()) model = str(record, "model_id");
          const std::string summary = runtime_summary(type, record);
          helix::Event event;
          event.session_id = source.session_id;
          event.source_offset = at;
          event.ts_ms = ts_ms;
          event.kind = runtime_kind(type, record);
          event.tool = str(record, "tool_name");
          event.call_id = str(record, "tool_call_id");
          event.model = str(record, "model_id");
          event.summary = summary;
          event.payload = raw;
          ctx.event(event);
          if (event.kind == "other")
            ctx.warn(at, "unknown_type", "events.jsonl: unknown type '" + std::string(type) + "'");
        });
  });
  session.native_id = source.session_id;
  session.model = model;
  ctx.session(session);
}

// One line per prompt of every session of this cwd. The prompts themselves are already in
// each session's transcript, so only their sessions (cwd, time span) and the user's own shell
// commands (is_bash, run without the model) are kept.
void parse_prompt_history(helix::ParseContext& ctx, const SourcePath& source) {
  const std::string cwd = decode_cwd_dirname(source.group);
  std::map<std::string, std::pair<int64_t, int64_t>, std::less<>> spans;
  helix::json::LineParser parser;
  helix::for_each_line(ctx, [&](std::string_view line, uint64_t offset) {
    for_each_record(ctx, parser, line, offset,
                    [&](const object& record, std::string_view raw, uint64_t at) {
                      const std::string_view session_id = str(record, "session_id");
                      if (session_id.empty())
                        return ctx.warn(at, "missing_session_id", "prompt without session_id");
                      const int64_t ts_ms = iso8601_ms(str(record, "timestamp"));
                      auto [span, fresh] = spans.try_emplace(std::string(session_id), ts_ms, ts_ms);
                      if (!fresh) {
                        span->second.first = std::min(span->second.first, ts_ms);
                        span->second.second = std::max(span->second.second, ts_ms);
                      }
                      if (!helix::json::truthy(record, "is_bash")) return;
                      const std::string_view command = str(record, "prompt");
                      const std::string summary = "! " + std::string(first_line(command));
                      helix::Event event;
                      event.session_id = session_id;
                      event.source_offset = at;
                      event.ts_ms = ts_ms;
                      event.kind = "human_intervention";
                      event.role = "user";
                      event.tool = "bash";
                      event.summary = summary;
                      event.text = command;
                      event.payload = raw;
                      ctx.event(event);
                    });
  });
  for (const auto& [session_id, span] : spans) {
    helix::Session session;
    session.native_id = session_id;
    session.cwd = cwd;
    session.started_at_ms = span.first;
    session.ended_at_ms = span.second;
    ctx.session(session);
  }
}

// The session's index entry: the truth for cwd, title, times and parent. Kept whole as one
// lifecycle event so its raw document stays available.
void parse_summary(helix::ParseContext& ctx, const SourcePath& source) {
  object doc;
  if (!parse_document(ctx, doc)) return;
  const object* info = obj(doc, "info");
  const std::string_view id = info ? str(*info, "id") : std::string_view();
  if (!id.empty() && id != source.session_id)
    ctx.warn(0, "session_id_mismatch", "summary.json info.id differs from its directory name");
  std::string_view title = str(doc, "generated_title");
  if (title.empty()) title = str(doc, "session_summary");
  std::string_view ended = str(doc, "last_active_at");
  if (ended.empty()) ended = str(doc, "updated_at");
  helix::Session session;
  session.native_id = source.session_id;
  session.cwd = info ? str(*info, "cwd") : std::string_view();
  // Forks and subagents both name the session they came from; a fork says when (forked_at).
  if (doc.contains("forked_at"))
    session.forked_from_native_id = str(doc, "parent_session_id");
  else
    session.parent_native_id = str(doc, "parent_session_id");
  session.git_branch = str(doc, "head_branch");
  session.model = str(doc, "current_model_id");
  session.title = title;
  session.started_at_ms = iso8601_ms(str(doc, "created_at"));
  session.ended_at_ms = iso8601_ms(ended);
  ctx.session(session);

  std::string summary = "session summary";
  if (!str(doc, "session_kind").empty())
    summary += " (" + std::string(str(doc, "session_kind")) + ")";
  summary += ": " + std::string(title);
  helix::Event event;
  event.session_id = source.session_id;
  event.ts_ms = session.ended_at_ms;
  event.kind = "lifecycle";
  event.summary = summary;
  event.payload = ctx.data();
  ctx.event(event);
}

// The session's running totals. Its turns repeat updates.jsonl's turn_completed usage (the
// ledger's source, keyed by prompt id), without the prompt ids and with turn numbers that count
// interrupted turns differently, and a fork's copy repeats its origin's turns: counting them
// here too would count calls twice. Only the session's model is taken.
void parse_usage(helix::ParseContext& ctx, const SourcePath& source) {
  object doc;
  if (!parse_document(ctx, doc)) return;
  const object* totals = obj(doc, "session");
  const std::string_view primary_model =
      totals ? str(*totals, "primaryModelId") : std::string_view();
  const std::string cwd = decode_cwd_dirname(source.group);  // outlives ctx.session()
  helix::Session session;
  session.native_id = source.session_id;
  session.model = primary_model;
  session.cwd = cwd;  // sorts after summary.json: a fallback
  ctx.session(session);
}

// subagents/<child id>/meta.json in the parent's directory: the subagent is a session of its
// own (the child's summary.json does not always name its parent), launched from this one.
void parse_subagent_meta(helix::ParseContext& ctx) {
  object doc;
  if (!parse_document(ctx, doc)) return;
  const std::string_view parent = str(doc, "parent_session_id");
  const std::string_view child = str(doc, "child_session_id");
  if (parent.empty() || child.empty())
    return ctx.warn(0, "missing_session_id", "subagent meta.json without its two session ids");
  helix::Session session;
  session.native_id = child;
  session.parent_native_id = parent;
  session.cwd = str(doc, "child_cwd");
  ctx.session(session);
  std::string_view type = str(doc, "subagent_type");
  const std::string summary = "subagent " + std::string(child) + " (" +
                              std::string(type.empty() ? "agent" : type) +
                              "): " + std::string(str(doc, "description"));
  helix::Event event;
  event.session_id = parent;
  event.ts_ms = iso8601_ms(str(doc, "started_at"));
  event.kind = "lifecycle";
  event.role = "system";
  event.summary = summary;
  event.text = str(doc, "description");
  event.payload = ctx.data();
  ctx.event(event);
}

// The hashed long form of a cwd group keeps the real path here. No session is named in this
// file or its path, and the ABI has no record for "every session of this directory", so the
// path cannot be attached yet (summary.json's info.cwd carries it for every session anyway).
void parse_cwd_file(helix::ParseContext& ctx, const SourcePath& source) {
  const std::string_view cwd = trim(ctx.data());
  ctx.warn(0, "cwd_unattributed",
           "group " + std::string(source.group) + " is " + std::string(cwd) +
               ": not linked to its sessions (needs host support)");
}

}  // namespace grok

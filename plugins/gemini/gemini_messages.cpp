// gemini_messages.cpp: MessageRecord mapping (types user, gemini, info, warning, error).
#include "gemini_messages.hpp"

#include <algorithm>
#include <array>
#include <helix/json.hpp>

namespace gemini {
namespace {

namespace bj = boost::json;
using helix::json::arr;
using helix::json::num;
using helix::json::obj;
using helix::json::str;

constexpr std::string_view kSessionContext = "<session_context>";
constexpr std::string_view kHookContext = "<hook_context>";

// Tool events share the offset of their message's other events, so their ordinals live in a
// range of their own: four slots (call, outcome, intervention, spare) per call id fingerprint.
constexpr uint32_t kToolOrdinalBase = 1'000'000;
constexpr uint32_t kToolFingerprints = 100'000'000;

uint32_t tool_ordinal(std::string_view call_id, uint32_t slot) {
  uint32_t h = 2166136261u;  // FNV-1a 32
  for (unsigned char c : call_id) {
    h ^= c;
    h *= 16777619u;
  }
  return kToolOrdinalBase + (h % kToolFingerprints) * 4 + slot;
}

bool starts_with_trimmed(std::string_view text, std::string_view prefix) {
  const auto start = text.find_first_not_of(" \t\r\n");
  return start != std::string_view::npos && text.substr(start).starts_with(prefix);
}

void append_part(std::string& out, const bj::value& part) {
  if (const auto* s = part.if_string()) {
    out.append(s->data(), s->size());
    return;
  }
  const auto* p = part.if_object();
  if (!p) return;
  if (const auto* text = p->if_contains("text"); text && text->is_string()) {
    if (!helix::json::truthy(*p, "thought")) out += str(text);
  } else if (const auto* data = obj(*p, "inlineData")) {
    out.append("[").append(str(*data, "mimeType")).append("]");
  } else if (const auto* file = obj(*p, "fileData")) {
    out.append("[file ").append(str(*file, "fileUri")).append("]");
  }
}

// Programs whose run is a test run: the runner itself, or a launcher's test subcommand.
bool runs_tests(std::string_view command) {
  static constexpr std::array<std::string_view, 10> kRunners = {
      "pytest", "jest",    "vitest", "mocha",   "ctest",
      "rspec",  "phpunit", "tox",    "nextest", "unittest"};
  static constexpr std::array<std::string_view, 9> kLaunchers = {
      "npm", "yarn", "pnpm", "bun", "cargo", "go", "make", "mvn", "gradle"};
  std::string_view previous;
  std::size_t pos = 0;
  while ((pos = command.find_first_not_of(" \t\n;&|()", pos)) != std::string_view::npos) {
    const std::size_t end = std::min(command.find_first_of(" \t\n;&|()", pos), command.size());
    std::string_view word = command.substr(pos, end - pos);
    if (const auto slash = word.rfind('/'); slash != std::string_view::npos)
      word.remove_prefix(slash + 1);
    const auto is = [&](const auto& list, std::string_view w) {
      return std::find(list.begin(), list.end(), w) != list.end();
    };
    if (is(kRunners, word) || (is(kLaunchers, previous) && (word == "test" || word == "check")))
      return true;
    previous = word;
    pos = end;
  }
  return false;
}

std::string_view call_kind(std::string_view tool, const bj::object* args) {
  if (tool == "replace" || tool == "write_file") return "edit";
  if (tool == "run_shell_command" && args && runs_tests(str(*args, "command"))) return "test_run";
  return "tool_call";
}

// The argument a reader wants to see first.
std::string_view call_detail(const bj::object* args) {
  if (!args) return {};
  for (std::string_view key : {"command", "file_path", "dir_path", "pattern", "query", "url",
                               "prompt", "request", "absolute_path", "path"})
    if (auto value = str(*args, key); !value.empty()) return value;
  return {};
}

// What a tool answered: its functionResponse output or error, else what the CLI displayed.
std::string result_text(const bj::object& call) {
  std::string text;
  if (const auto* parts = arr(call, "result")) {
    for (const auto& part : *parts) {
      const auto* p = part.if_object();
      const auto* response = p ? obj(*p, "functionResponse") : nullptr;
      const auto* body = response ? obj(*response, "response") : nullptr;
      if (body) {
        auto output = str(*body, "output");
        text += output.empty() ? str(*body, "error") : output;
      } else {
        append_part(text, part);
      }
    }
  }
  if (!text.empty()) return text;
  if (const auto* display = call.if_contains("resultDisplay")) {
    if (display->is_string()) return std::string(str(display));
    if (const auto* diff = display->if_object()) return std::string(str(*diff, "fileDiff"));
  }
  return text;
}

bool terminal(std::string_view status) {
  return status == "success" || status == "error" || status == "cancelled";
}

}  // namespace

void SessionFacts::saw_time(int64_t ms) {
  if (ms <= 0) return;
  first_ms = first_ms ? std::min(first_ms, ms) : ms;
  last_ms = std::max(last_ms, ms);
}

bool SessionFacts::read_record(const bj::object& record) {
  saw_time(helix::json::iso8601_ms(str(record, "startTime")));
  saw_time(helix::json::iso8601_ms(str(record, "lastUpdated")));
  if (auto summary = str(record, "summary"); !summary.empty()) title = summary;
  const bool subagent = str(record, "kind") == "subagent";
  // A main session's directories are the ones /dir add brought in, not where it ran.
  if (const auto* dirs = arr(record, "directories"); subagent && dirs && !dirs->empty())
    if (cwd.empty()) cwd = str(&dirs->front());
  return subagent;
}

void SessionFacts::emit(const helix::ParseContext& ctx, std::string_view session_id,
                        std::string_view parent_id, std::string_view model) const {
  helix::Session session;
  session.native_id = session_id;
  session.parent_native_id = parent_id;
  session.cwd = cwd;
  session.model = model;
  session.title = title;
  session.started_at_ms = first_ms;
  session.ended_at_ms = last_ms;
  ctx.session(session);
}

std::string cwd_from_context(std::string_view context) {
  constexpr std::string_view kHeading = "Workspace Directories:";
  auto at = context.find(kHeading);
  if (at == std::string_view::npos) return {};
  at = context.find('\n', at);
  if (at == std::string_view::npos) return {};
  std::string_view line = context.substr(at + 1, context.find('\n', at + 1) - at - 1);
  const auto dash = line.find("- ");
  if (dash == std::string_view::npos || line.find_first_not_of(' ') != dash) return {};
  line.remove_prefix(dash + 2);
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
  return std::string(line);
}

std::string content_text(const bj::value* content) {
  std::string out;
  if (!content) return out;
  if (const auto* parts = content->if_array()) {
    for (const auto& part : *parts) append_part(out, part);
  } else {
    append_part(out, *content);
  }
  return out;
}

bool MessageMapper::is_session_context(const bj::object& message) {
  return str(message, "type") == "user" &&
         starts_with_trimmed(content_text(message.if_contains("content")), kSessionContext);
}

void MessageMapper::map(const bj::object& message, std::string_view raw, uint64_t offset) {
  const std::string_view id = str(message, "id");
  const Base base{id, raw, offset, helix::json::iso8601_ms(str(message, "timestamp"))};
  facts_.saw_time(base.ts_ms);
  first_copy_ = !ledger_.messages.contains(id);
  if (first_copy_) {
    ledger_.messages.insert(id);
    ledger_.latest = MessageProgress{std::string(id)};
  }
  const std::string_view type = str(message, "type");
  if (type == "user") return map_user(message, base);
  if (type == "gemini") return map_gemini(message, base);
  if (type == "info" || type == "warning" || type == "error")
    return map_notice(message, base, type);
  helix::Event event;
  std::string summary = "unknown message type '" + std::string(type) + "'";
  event.kind = "other";
  event.summary = summary;
  emit_main(event, base);
  if (first_copy_) ctx_.warn(offset, "unknown_type", summary);
}

void MessageMapper::map_user(const bj::object& m, const Base& base) {
  const bj::value* content = m.if_contains("content");
  map_function_responses(content, base);
  const bj::value* display = m.if_contains("displayContent");
  const std::string text = content_text(display && !display->is_null() ? display : content);
  if (text.empty()) return;  // tool responses only
  helix::Event event;
  event.text = text;
  if (starts_with_trimmed(text, kSessionContext)) {
    if (facts_.cwd.empty()) facts_.cwd = cwd_from_context(text);
    event.kind = "other";
    event.role = "system";
    event.summary = "session context";
  } else if (starts_with_trimmed(text, kHookContext)) {
    event.kind = "other";
    event.role = "system";
    event.summary = "hook context";
  } else {
    event.kind = "user_msg";
    event.role = "user";
    event.summary = text;
  }
  emit_main(event, base);
}

void MessageMapper::map_gemini(const bj::object& m, const Base& base) {
  const std::string_view model = str(m, "model");
  if (!model.empty()) ledger_.model = std::string(model);
  map_thoughts(arr(m, "thoughts"), base, model);
  const std::string text = content_text(m.if_contains("content"));
  if (!text.empty()) {
    helix::Event event;
    event.kind = "assistant_msg";
    event.role = "assistant";
    event.summary = text;
    event.text = text;
    event.model = model;
    emit_main(event, base);
  }
  if (const auto* calls = arr(m, "toolCalls"))
    for (const auto& call : *calls)
      if (const auto* c = call.if_object()) map_tool_call(*c, base, model);
  if (const auto* tokens = obj(m, "tokens")) emit_usage(*tokens, base, model);
}

// info and warning are the CLI's own notices (lifecycle); error is an error it showed.
void MessageMapper::map_notice(const bj::object& m, const Base& base, std::string_view type) {
  const std::string text = content_text(m.if_contains("content"));
  std::string summary = text.empty() ? std::string(type) : text;
  helix::Event event;
  event.kind = type == "error" ? "error" : "lifecycle";
  event.role = "system";
  event.summary = summary;
  event.text = text;
  emit_main(event, base);
}

void MessageMapper::map_thoughts(const bj::array* thoughts, const Base& base,
                                 std::string_view model) {
  if (!thoughts || ledger_.latest.id != base.id) return;  // an older copy adds no thoughts
  for (std::size_t i = ledger_.latest.thoughts; i < thoughts->size(); ++i) {
    const auto* t = (*thoughts)[i].if_object();
    if (!t) continue;
    const std::string_view subject = str(*t, "subject");
    const std::string_view description = str(*t, "description");
    std::string text(subject);
    if (!description.empty()) text.append(text.empty() ? "" : ": ").append(description);
    helix::Event event;
    event.kind = "thinking";
    event.role = "assistant";
    event.uid = base.id;
    event.ordinal = static_cast<uint32_t>(1 + i);
    event.ts_ms = helix::json::iso8601_ms(str(*t, "timestamp"));
    event.summary = subject.empty() ? std::string_view(text) : subject;
    event.text = text;
    event.model = model;
    emit(event, base);
  }
  ledger_.latest.thoughts = static_cast<uint32_t>(thoughts->size());
}

void MessageMapper::map_tool_call(const bj::object& call, const Base& base,
                                  std::string_view model) {
  const std::string_view call_id = str(call, "id");
  const std::string_view tool = str(call, "name");
  if (call_id.empty()) return ctx_.warn(base.offset, "invalid_record", "tool call without an id");
  const int64_t ts = helix::json::iso8601_ms(str(call, "timestamp"));
  if (!ledger_.calls.contains(call_id)) {
    ledger_.calls.insert(call_id);
    const bj::object* args = obj(call, "args");
    const std::string args_json = args ? bj::serialize(*args) : std::string();
    const std::string_view detail = call_detail(args);
    const std::string_view command = args ? str(*args, "command") : std::string_view();
    helix::Event event = tool_event(call_kind(tool, args), "assistant", tool, call_id, 0, ts);
    event.summary = detail.empty() ? str(call, "description") : detail;
    event.text = command.empty() ? std::string_view(args_json) : command;
    event.model = model;
    emit(event, base);
  }
  const std::string_view status = str(call, "status");
  if (terminal(status)) emit_outcome(call_id, tool, status, result_text(call), base, ts);
}

// Tool responses the CLI also records as a user message: new only when no toolCalls entry
// reported the outcome first.
void MessageMapper::map_function_responses(const bj::value* content, const Base& base) {
  const auto* parts = content ? content->if_array() : nullptr;
  if (!parts) return;
  for (const auto& part : *parts) {
    const auto* p = part.if_object();
    const auto* response = p ? obj(*p, "functionResponse") : nullptr;
    if (!response) continue;
    const auto* body = obj(*response, "response");
    const bool failed = body && body->contains("error");
    std::string_view text = body ? str(*body, failed ? "error" : "output") : std::string_view();
    emit_outcome(str(*response, "id"), str(*response, "name"), failed ? "error" : "success", text,
                 base, base.ts_ms);
  }
}

void MessageMapper::emit_outcome(std::string_view call_id, std::string_view tool,
                                 std::string_view status, std::string_view text, const Base& base,
                                 int64_t ts_ms) {
  if (call_id.empty() || ledger_.results.contains(call_id)) return;
  ledger_.results.insert(call_id);
  helix::Event event =
      tool_event(status == "success" ? "tool_result" : "error", "tool", tool, call_id, 1, ts_ms);
  std::string summary = status == "cancelled" ? "cancelled" : std::string(text);
  event.summary = summary;
  event.text = text;
  emit(event, base);
  if (status != "cancelled") return;
  helix::Event stop = tool_event("human_intervention", "user", tool, call_id, 2, ts_ms);
  stop.summary = "tool call cancelled";
  emit(stop, base);
}

helix::Event MessageMapper::tool_event(std::string_view kind, std::string_view role,
                                       std::string_view tool, std::string_view call_id,
                                       uint32_t slot, int64_t ts_ms) {
  helix::Event event;
  event.kind = kind;
  event.role = role;
  event.tool = tool;
  event.uid = call_id;
  event.ordinal = tool_ordinal(call_id, slot);
  event.ts_ms = ts_ms;
  event.call_id = call_id;
  return event;
}

// tokens: input = promptTokenCount (cached included), output = candidates (thoughts excluded),
// tool = toolUsePromptTokenCount (more input). Helix counts input without cache reads and output
// with its reasoning part.
void MessageMapper::emit_usage(const bj::object& tokens, const Base& base, std::string_view model) {
  if (ledger_.latest.id != base.id || ledger_.latest.usage) return;
  ledger_.latest.usage = true;
  const int64_t cached = num(tokens, "cached");
  const int64_t thoughts = num(tokens, "thoughts");
  helix::Usage usage;
  usage.session_id = ledger_.session_id;
  usage.key = base.id;
  usage.source_offset = base.offset;
  usage.ts_ms = base.ts_ms;
  usage.model = model;
  usage.input_tokens = std::max<int64_t>(0, num(tokens, "input") - cached) + num(tokens, "tool");
  usage.output_tokens = num(tokens, "output") + thoughts;
  usage.cache_read_tokens = cached;
  usage.reasoning_tokens = thoughts;
  ctx_.usage(usage);
}

void MessageMapper::emit_main(helix::Event event, const Base& base) {
  if (ledger_.latest.id != base.id || ledger_.latest.main) return;
  ledger_.latest.main = true;
  event.uid = base.id;
  event.ordinal = 0;
  emit(event, base);
}

void MessageMapper::emit(helix::Event event, const Base& base) const {
  event.session_id = ledger_.session_id;
  event.source_offset = base.offset;
  if (event.ts_ms == 0) event.ts_ms = base.ts_ms;
  event.payload = base.payload;
  ctx_.event(event);
}

}  // namespace gemini

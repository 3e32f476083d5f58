// plugins/codex/codex_items.cpp: Responses-API items to Helix events, for both Codex adapters.
#include "codex_items.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <regex>

namespace codex {
namespace bj = boost::json;
using helix::json::arr;
using helix::json::obj;
using helix::json::str;

namespace {

bool starts_with_icase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(text[i])) !=
        std::tolower(static_cast<unsigned char>(prefix[i])))
      return false;
  return true;
}

std::string_view trim_left(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  return s;
}

bool is_uuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? s[i] != '-' : !std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

// The tags Codex wraps injected context in (codex-rs contextual_user_message.rs), and a label.
struct ContextTag {
  std::string_view prefix, label;
};
constexpr std::array<ContextTag, 7> kContextTags = {{
    {"<environment_context>", "environment_context"},
    {"<user_instructions>", "user_instructions"},
    {"# AGENTS.md instructions for", "AGENTS.md instructions"},
    {"<skill>", "skill"},
    {"<user_shell_command>", "user_shell_command"},
    {"<turn_aborted>", "turn_aborted"},
    {"<subagent_notification>", "subagent_notification"},
}};

std::string_view context_label(std::string_view text) {
  text = trim_left(text);
  for (const auto& tag : kContextTags)
    if (starts_with_icase(text, tag.prefix)) return tag.label;
  return {};
}

std::string_view first_text_of(const bj::object& message) {
  if (const auto* content = arr(message, "content"))
    for (const auto& part : *content)
      if (const auto* p = part.if_object(); p && !str(*p, "text").empty()) return str(*p, "text");
  return {};
}

// ---- tool calls ------------------------------------------------------------------------------

std::string join_command(const bj::array& argv) {
  // ["bash","-lc","script"] is how Codex runs a script; the script is what the model wrote.
  if (argv.size() >= 3) {
    auto flag = str(&argv[argv.size() - 2]);
    if (flag == "-lc" || flag == "-c") return std::string(str(&argv.back()));
  }
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    out += str(&a);
  }
  return out;
}

// The shell command of a call, whatever the tool spells it: shell {command:[...]},
// shell_command {command:"..."}, exec_command {cmd:"..."}, local_shell_call action.command.
std::string command_of(const bj::object* args) {
  if (!args) return {};
  if (const auto* v = args->if_contains("command")) {
    if (const auto* a = v->if_array()) return join_command(*a);
    return std::string(str(v));
  }
  return std::string(str(*args, "cmd"));
}

bool is_test_command(std::string_view command) {
  static const std::regex kTest(
      R"((^|[\s;&|(/])(pytest|py\.test|tox|nox|jest|vitest|mocha|rspec|phpunit|ctest)(\s|$))"
      R"(|\b(cargo\s+(test|nextest)|go\s+test|(npm|pnpm|yarn|bun)\s+(run\s+)?test|deno\s+test)"
      R"(|dotnet\s+test|mvn\s+(\S+\s+)*test|gradlew?\s+test|make\s+(test|check)|just\s+test)"
      R"(|python3?\s+-m\s+(pytest|unittest)|mix\s+test|swift\s+test)\b)");
  return std::regex_search(command.begin(), command.end(), kTest);
}

// "A new.txt, M src/x.rs" from the *** Add/Update/Delete File lines of a patch.
std::string patch_files(std::string_view patch) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kOps = {
      {{"*** Add File: ", "A "}, {"*** Update File: ", "M "}, {"*** Delete File: ", "D "}}};
  std::string out;
  std::size_t pos = 0;
  while (pos < patch.size()) {
    std::size_t end = std::min(patch.find('\n', pos), patch.size());
    std::string_view line = patch.substr(pos, end - pos);
    for (const auto& [marker, letter] : kOps)
      if (line.starts_with(marker)) {
        if (!out.empty()) out += ", ";
        out.append(letter).append(line.substr(marker.size()));
      }
    pos = end + 1;
  }
  return out;
}

std::optional<bj::value> parse_json(std::string_view text) {
  boost::system::error_code ec;
  bj::value v = bj::parse(text, ec);
  if (ec) return std::nullopt;
  return v;
}

struct Call {
  std::string tool, kind = "tool_call", text, summary;
};

Call classify_call(const bj::object& item) {
  Call call;
  const auto type = str(item, "type");
  call.tool = type == "local_shell_call" ? "local_shell" : std::string(str(item, "name"));
  // function_call carries a JSON string of arguments, custom_tool_call free text.
  const std::string_view raw =
      type == "custom_tool_call" ? str(item, "input") : str(item, "arguments");
  std::optional<bj::value> parsed;
  if (trim_left(raw).starts_with('{')) parsed = parse_json(raw);
  const bj::object* args =
      type == "local_shell_call" ? obj(item, "action") : (parsed ? parsed->if_object() : nullptr);
  std::string command = command_of(args);
  std::string patch;
  if (call.tool == "apply_patch")
    patch =
        args && !str(*args, "input").empty() ? std::string(str(*args, "input")) : std::string(raw);
  else if (command.find("*** Begin Patch") != std::string::npos)
    patch = command;  // apply_patch run through the shell (older models)

  if (!patch.empty()) {
    call.kind = "edit";
    call.text = patch;
    call.summary = "apply_patch " + patch_files(patch);
  } else if (!command.empty()) {
    if (is_test_command(command)) call.kind = "test_run";
    call.text = command;
    call.summary = "$ " + std::string(first_line(command));
  } else {
    call.text = std::string(raw);
    call.summary = call.tool + " " + std::string(first_line(raw));
  }
  return call;
}

// ---- tool outputs ----------------------------------------------------------------------------

struct Outcome {
  std::string text, note;
  bool failed = false, running = false;
};

std::optional<long> number_after(std::string_view line, std::string_view prefix) {
  if (!line.starts_with(prefix)) return std::nullopt;
  line.remove_prefix(prefix.size());
  const bool negative = line.starts_with('-');
  if (negative) line.remove_prefix(1);
  if (line.empty() || !std::isdigit(static_cast<unsigned char>(line.front()))) return std::nullopt;
  long value = 0;
  for (char c : line) {
    if (!std::isdigit(static_cast<unsigned char>(c))) break;
    value = value * 10 + (c - '0');
  }
  return negative ? -value : value;
}

// Plain strings that are failures whatever the tool (codex-rs tools/events.rs, parallel.rs, ...).
bool is_failure_text(std::string_view line) {
  static constexpr std::array<std::string_view, 10> kFailures = {
      "Script failed",  // a code-mode cell (exec) that threw
      "exec command rejected",
      "patch rejected",
      "execution error:",
      "failed to parse function arguments",
      "apply_patch verification failed",
      "unsupported call",
      "failed in sandbox",
      "aborted by user",
      "command timed out"};
  for (auto failure : kFailures)
    if (line.starts_with(failure)) return true;
  return false;
}

// Reads the exit status the text encodings carry in their first lines: freeform
// "Exit code: N", unified exec "Process exited with code N" / "Process running with session ID",
// and the plain failure strings.
void read_status_lines(Outcome& out) {
  std::string_view rest = out.text;
  for (int i = 0; i < 6 && !rest.empty(); ++i) {
    std::string_view line = first_line(rest);
    rest.remove_prefix(std::min(rest.size(), line.size() + 1));
    std::optional<long> code = number_after(line, "Exit code: ");
    if (!code) code = number_after(line, "Process exited with code ");
    if (code) {
      out.failed = *code != 0;
      out.note = "exit code " + std::to_string(*code);
      return;
    }
    if (line.starts_with("Process running with session ID")) {
      out.running = true;
      out.note = std::string(line);
      return;
    }
    if (is_failure_text(line)) {
      out.failed = true;
      out.note = std::string(line);
      return;
    }
  }
}

Outcome read_outcome(const bj::value* output) {
  Outcome out;
  if (!output) return out;
  if (const auto* a = output->if_array()) {
    out.text = content_text(a);
  } else if (const auto* o = output->if_object()) {
    out.text =
        str(*o, "text").empty() ? content_text(arr(*o, "content")) : std::string(str(*o, "text"));
    out.failed = helix::json::truthy(*o, "isError");
  } else {
    out.text = std::string(str(output));
  }
  // Structured encoding: a JSON string {"output":..., "metadata":{"exit_code":N,...}}; MCP
  // results may arrive as a serialized CallToolResult with isError.
  if (output->is_string() && trim_left(out.text).starts_with('{')) {
    if (auto parsed = parse_json(out.text); parsed && parsed->is_object()) {
      const auto& o = parsed->get_object();
      if (const auto* meta = obj(o, "metadata"); meta && meta->contains("exit_code")) {
        const auto code = helix::json::num(*meta, "exit_code");
        out.failed = code != 0;
        out.note = "exit code " + std::to_string(code);
        out.text = std::string(str(o, "output"));
        return out;
      }
      if (helix::json::truthy(o, "isError")) {
        out.failed = true;
        out.note = "tool reported isError";
        return out;
      }
    }
  }
  if (!out.failed) read_status_lines(out);
  return out;
}

void emit_call(Record& record, const bj::object& item) {
  Call call = classify_call(item);
  std::string summary = std::move(call.summary);
  record.emit({.kind = call.kind,
               .role = "assistant",
               .tool = call.tool,
               .uid = str(item, "id"),
               .call_id = str(item, "call_id"),
               .summary = summary,
               .text = call.text});
}

ItemResult emit_output(Record& record, const bj::object& item) {
  Outcome out = read_outcome(item.if_contains("output"));
  std::string summary = out.note.empty() ? std::string(first_line(out.text))
                                         : (out.failed ? "failed: " : "") + out.note;
  record.emit({.kind = out.failed ? "error" : "tool_result",
               .role = "tool",
               .uid = str(item, "id"),
               .call_id = str(item, "call_id"),
               .summary = summary,
               .text = out.text});
  ItemResult result;
  if (out.running) result.running_call_id = std::string(str(item, "call_id"));
  return result;
}

void emit_message(Record& record, const bj::object& item, Prompts prompts) {
  const auto role = str(item, "role");
  const std::string text = content_text(arr(item, "content"));
  if (role == "assistant") {
    record.emit({.kind = "assistant_msg",
                 .role = "assistant",
                 .uid = str(item, "id"),
                 .summary = first_line(text),
                 .text = text});
  } else if (role == "user" && !is_injected_context(item)) {
    // In the wrapper eras the prompt is emitted from its event (see Prompts); emitting the item
    // too would store every prompt twice.
    if (prompts == Prompts::kFromItems)
      record.emit({.kind = "user_msg",
                   .role = "user",
                   .uid = str(item, "id"),
                   .summary = first_line(text),
                   .text = text});
  } else {
    // Injected context (role user) and developer/system instructions: not prompts.
    std::string label(role == "user" ? context_label(first_text_of(item)) : role);
    if (label.empty()) label = "injected context";
    std::string summary = "context: " + label;
    record.emit({.kind = "other",
                 .role = "system",
                 .uid = str(item, "id"),
                 .summary = summary,
                 .text = text});
  }
}

std::string reasoning_text(const bj::object& item) {
  std::string text = content_text(arr(item, "summary"));
  std::string detail = content_text(arr(item, "content"));
  if (!text.empty() && !detail.empty()) text += "\n";
  return text + detail;
}

}  // namespace

Era detect_era(std::string_view head) {
  head = trim_left(head);
  if (!head.starts_with('{')) return Era::kUnknown;
  if (trim_left(head.substr(1)).starts_with("\"session\"")) return Era::kTypeScript;
  const std::string_view line = head.substr(0, head.find('\n'));
  if (auto parsed = parse_json(line); parsed && parsed->is_object()) {
    const auto& o = parsed->get_object();
    if (o.contains("payload") && o.contains("type")) return Era::kWrapper;
    // A legacy file opens with its session header {id, timestamp, instructions}. Any looser
    // rule (e.g. "has a type") claims other agents' JSONL, such as Claude Code transcripts.
    const bool header = o.contains("id") && o.contains("timestamp") && !o.contains("type") &&
                        !o.contains("sessionId");
    if (header || o.contains("record_type")) return Era::kLegacyLines;
    return Era::kUnknown;
  }
  // A first line longer than the probe head (base instructions can be large): its opening keys
  // still tell the shapes apart, since serde writes them first.
  if (line.starts_with("{\"timestamp\":") &&
      line.substr(0, 200).find("\"payload\":") != std::string_view::npos)
    return Era::kWrapper;
  if (line.starts_with("{\"id\":")) return Era::kLegacyLines;
  return Era::kUnknown;
}

std::string_view session_id_from_path(std::string_view path) {
  std::string_view name = path.substr(path.rfind('/') + 1);
  for (std::string_view ext : {".zst", ".jsonl", ".json"})
    if (name.ends_with(ext)) name.remove_suffix(ext.size());
  if (!name.starts_with("rollout-") || name.size() < 36) return {};
  std::string_view tail = name.substr(name.size() - 36);
  return is_uuid(tail) ? tail : std::string_view();
}

std::string_view first_line(std::string_view text) {
  text = trim_left(text);
  return text.substr(0, text.find('\n'));
}

std::string content_text(const bj::array* content) {
  std::string out;
  if (!content) return out;
  for (const auto& part : *content) {
    const auto* p = part.if_object();
    if (!p) continue;
    std::string_view piece = str(*p, "text");
    if (piece.empty() && str(*p, "type") == "input_image") piece = "[image]";
    if (piece.empty()) continue;
    if (!out.empty()) out += '\n';
    out += piece;
  }
  return out;
}

bool is_injected_context(const bj::object& message) {
  // 0.169+ labels every content item: "user.text" for typed input, e.g.
  // "environments.environment_context" for what the harness added.
  if (const auto* meta = obj(message, "internal_chat_message_metadata_passthrough"))
    if (const auto* kinds = arr(*meta, "content_item_kinds"); kinds && !kinds->empty())
      return std::none_of(kinds->begin(), kinds->end(),
                          [](const bj::value& k) { return str(&k).starts_with("user."); });
  return !context_label(first_text_of(message)).empty();
}

ItemResult map_response_item(Record& record, const bj::object& item, Prompts prompts) {
  const auto type = str(item, "type");
  const auto id = str(item, "id");
  if (type == "message") {
    emit_message(record, item, prompts);
  } else if (type == "reasoning") {
    std::string text = reasoning_text(item);
    std::string_view summary = text.empty() ? "(encrypted reasoning)" : first_line(text);
    record.emit(
        {.kind = "thinking", .role = "assistant", .uid = id, .summary = summary, .text = text});
  } else if (type == "function_call" || type == "custom_tool_call" || type == "local_shell_call") {
    emit_call(record, item);
  } else if (type == "function_call_output" || type == "custom_tool_call_output") {
    return emit_output(record, item);
  } else if (type == "web_search_call") {
    const auto* action = obj(item, "action");
    std::string_view query = action ? str(*action, "query") : std::string_view();
    if (action && query.empty()) query = str(*action, "url");
    std::string summary = "web search " + std::string(query);
    record.emit({.kind = "tool_call",
                 .role = "assistant",
                 .tool = "web_search",
                 .uid = id,
                 .summary = summary,
                 .text = query});
  } else if (type == "image_generation_call") {
    record.emit({.kind = "tool_call",
                 .role = "assistant",
                 .tool = "image_generation",
                 .uid = id,
                 .summary = "image generation",
                 .text = str(item, "revised_prompt")});
  } else if (type == "tool_search_call") {
    record.emit({.kind = "tool_call",
                 .role = "assistant",
                 .tool = "tool_search",
                 .uid = id,
                 .call_id = str(item, "call_id"),
                 .summary = "tool search"});
  } else if (type == "tool_search_output") {
    record.emit({.kind = "tool_result",
                 .role = "tool",
                 .uid = id,
                 .call_id = str(item, "call_id"),
                 .summary = "tool search results"});
  } else if (type == "compaction" || type == "compaction_summary" || type == "context_compaction") {
    record.emit({.kind = "lifecycle", .role = "system", .uid = id, .summary = "context compacted"});
  } else if (type == "agent_message") {
    // A message between agents of a multi-agent thread, not the conversation with the user.
    std::string text = content_text(arr(item, "content"));
    std::string summary = "agent message from " + std::string(str(item, "author"));
    record.emit(
        {.kind = "other", .role = "assistant", .uid = id, .summary = summary, .text = text});
  } else if (type == "ghost_snapshot" || type == "additional_tools") {
    std::string summary(type);
    record.emit({.kind = "other", .role = "system", .summary = summary});
  } else {
    std::string summary = "unknown item type " + std::string(type);
    record.emit({.kind = "other", .uid = id, .summary = summary});
    return {.known = false};
  }
  return {};
}

}  // namespace codex

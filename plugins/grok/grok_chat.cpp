// chat_history.jsonl: the model-facing conversation, current ("type"-tagged ConversationItem)
// and legacy ("role"-tagged Chat Completions) forms. Rewritten in place on compaction and
// rewind; the host then replaces this source's rows, so the parse simply restarts.
#include "grok_parsers.hpp"

#include <charconv>
#include <optional>

namespace grok {
namespace {

using boost::json::object;
using helix::json::arr;
using helix::json::num;
using helix::json::obj;
using helix::json::str;

class ChatParser {
 public:
  ChatParser(helix::ParseContext& ctx, const SourcePath& source) : ctx_(ctx), source_(source) {}

  void run() {
    const std::string_view state = ctx_.state();  // the latest prompt index, as text
    if (!state.empty()) std::from_chars(state.data(), state.data() + state.size(), prompt_index_);
    helix::for_each_line(ctx_, [&](std::string_view line, uint64_t offset) {
      for_each_record(
          ctx_, parser_, line, offset, [&](const object& item, std::string_view raw, uint64_t at) {
            offset_ = at;
            record_.emplace(
                ctx_, helix::Event{
                          .session_id = source_.session_id, .source_offset = at, .payload = raw});
            handle(item);
          });
    });
    helix::Session session;
    session.native_id = source_.session_id;
    session.model = model_;
    ctx_.session(session);
    ctx_.save_state(std::to_string(prompt_index_));
  }

 private:
  void handle(const object& item) {
    const bool legacy = !item.contains("type") && item.contains("role");
    const std::string_view type = legacy ? str(item, "role") : str(item, "type");
    if (type == "system")
      return context("system", "system prompt", content_text(item.if_contains("content")));
    if (type == "user") return legacy ? legacy_user(item) : user(item);
    if (type == "assistant") return assistant(item, legacy);
    if (type == "tool_result" || type == "tool") return tool_result(item);
    if (type == "reasoning") return reasoning(item);
    if (type == "backend_tool_call") return backend_tool_call(item);
    helix::Event event = other_event("other", "", type);
    emit(event);
    ctx_.warn(offset_, "unknown_type",
              "chat_history.jsonl: unknown item '" + std::string(type) + "'");
  }

  // Real prompts carry prompt_index and no synthetic_reason. The session preamble
  // (<user_info>...) has neither; synthetic items are context Grok injected.
  // Image parts are left out of prompt text, as in updates.jsonl, so the uids agree.
  void user(const object& item) {
    const std::string text = content_text(item.if_contains("content"));
    const std::string_view reason = str(item, "synthetic_reason");
    if (!reason.empty()) {
      if (reason == "interjection")
        return prompt(unwrap_user_query(text), "human_intervention", -1);
      if (reason == "compaction_meta" && text.find("<conversation_summary>") != std::string::npos)
        return compaction_summary(text);
      return context("user", std::string(reason) + ": " + std::string(first_line(text)), text);
    }
    if (const auto* index = item.if_contains("prompt_index"))
      return prompt(unwrap_user_query(text), "user_msg", num(index));
    context("user", "session preamble", text);
  }

  // The legacy form has no prompt_index or synthetic_reason: every user message but the
  // preamble counts as the next prompt.
  void legacy_user(const object& item) {
    const std::string text = content_text(item.if_contains("content"));
    if (trim(text).starts_with("<user_info>")) return context("user", "session preamble", text);
    prompt(unwrap_user_query(text), "user_msg", prompt_index_ + 1);
  }

  void prompt(std::string_view text, std::string_view kind, int64_t index) {
    helix::Event event = other_event(kind, "user", first_line(text));
    std::string uid;
    if (index >= 0) {
      prompt_index_ = index;
      uid = prompt_uid(index, text);
      event.uid = uid;
    }
    event.text = text;
    emit(event);
  }

  void assistant(const object& item, bool legacy) {
    const std::string_view model = str(item, "model_id");
    if (!model.empty()) model_ = model;
    // Legacy reasoning_content (and "reasoning" in early current files) is inline thinking.
    const std::string_view inline_thought =
        legacy ? str(item, "reasoning_content") : str(item, "reasoning");
    if (!trim(inline_thought).empty()) thinking(inline_thought, {});
    const std::string text = content_text(item.if_contains("content"));
    if (!trim(text).empty()) {
      const std::string uid = reply_uid(prompt_index_, text);
      helix::Event event = other_event("assistant_msg", "assistant", first_line(text));
      event.uid = uid;
      event.text = text;
      event.model = model;
      emit(event);
    }
    if (const auto* calls = arr(item, "tool_calls"))
      for (const auto& call : *calls)
        if (const object* c = call.if_object()) tool_call(*c, model);
  }

  // Current: {"id","name","arguments"}; legacy: {"id","type":"function","function":{...}}.
  void tool_call(const object& call, std::string_view model) {
    const object* function = obj(call, "function");
    const object& spec = function ? *function : call;
    const std::string_view name = str(spec, "name");
    const std::string arguments = json_text(spec.if_contains("arguments"));
    const std::string_view id = str(call, "id");
    helix::Event event = other_event("tool_call", "assistant", {});
    const std::string summary = std::string(name) + ": " + std::string(first_line(arguments));
    event.summary = summary;
    event.tool = name;
    event.call_id = id;
    event.uid = id;
    event.text = arguments;
    event.model = model;
    emit(event);
  }

  // What the model reads after /compact or an auto-compaction instead of the earlier turns (the
  // compaction event itself is updates.jsonl's auto_compact_completed).
  void compaction_summary(std::string_view text) {
    helix::Event event = other_event("lifecycle", "system", "summary of the conversation so far");
    event.text = text;
    emit(event);
  }

  // chat_history keeps no status with a result, only what the model read; Grok words a failed
  // call's result in a few fixed ways (updates.jsonl, which has the status, describes the same
  // result under the same uid, and the copy stored first is kept).
  static bool failed_result(std::string_view text) {
    text = trim(text);
    if (text.starts_with("exit: ")) return !text.starts_with("exit: 0\n") && text != "exit: 0";
    return text.starts_with("Error:") ||
           text.starts_with("The string to replace was not found in the file") ||
           text.starts_with("Tool execution was cancelled");
  }

  void tool_result(const object& item) {
    const std::string_view id = str(item, "tool_call_id");
    const std::string text = content_text(item.if_contains("content"), true);
    const std::string uid = result_uid(id);
    helix::Event event =
        other_event(failed_result(text) ? "error" : "tool_result", "tool", first_line(text));
    event.call_id = id;
    event.uid = uid;
    event.text = text;
    emit(event);
  }

  // A Responses API reasoning item, written just before its assistant item.
  void reasoning(const object& item) {
    std::string text;
    if (const auto* parts = arr(item, "summary"))
      for (const auto& part : *parts)  // {"type":"summary_text","text"}
        if (const object* p = part.if_object(); p && !str(*p, "text").empty()) {
          if (!text.empty()) text += "\n";
          text += str(*p, "text");
        }
    if (text.empty()) text = content_text(item.if_contains("content"));
    thinking(text, str(item, "id"));
  }

  // Encrypted-only reasoning has no text to match on: its own id keeps it unique.
  void thinking(std::string_view text, std::string_view native_id) {
    const std::string uid =
        trim(text).empty() ? std::string(native_id) : thought_uid(prompt_index_, text);
    helix::Event event = other_event("thinking", "assistant", first_line(text));
    event.uid = uid;
    event.text = text;
    event.model = model_;
    emit(event);
  }

  // Server-side tools (web_search, x_search, code_interpreter): the call and its outcome are
  // one item, and no tool_result follows.
  void backend_tool_call(const object& item) {
    const object* kind = obj(item, "kind");
    if (!kind) return ctx_.warn(offset_, "missing_field", "backend_tool_call without kind");
    const std::string_view tool = str(*kind, "tool_type");
    const object* action = obj(*kind, "action");
    const std::string_view query = action ? str(*action, "query") : std::string_view();
    const std::string summary = std::string(tool) + ": " + std::string(query);
    helix::Event event = other_event("tool_call", "assistant", summary);
    event.tool = tool;
    event.call_id = str(*kind, "id");
    event.uid = str(*kind, "id");
    const std::string text = json_text(kind->if_contains("action"));  // outlives emit()
    event.text = text;
    emit(event);
  }

  // System prompt, preamble and injected reminders: context, not conversation.
  void context(std::string_view role, std::string_view summary, std::string_view text) {
    helix::Event event = other_event("other", role, summary);
    event.text = text;
    emit(event);
  }

  helix::Event other_event(std::string_view kind, std::string_view role,
                           std::string_view summary) const {
    helix::Event event = record_->event(kind, role);
    event.summary = summary;
    return event;
  }

  // Events with a uid take the uid's ordinal (shared with updates.jsonl); others count up.
  void emit(helix::Event& event) {
    if (event.uid.empty())
      record_->emit(event);
    else
      record_->emit(event, uid_ordinal(event.uid));
  }

  helix::ParseContext& ctx_;
  const SourcePath& source_;
  helix::json::LineParser parser_;
  int64_t prompt_index_ = -1;
  std::string model_;
  std::optional<helix::RecordEmitter> record_;  // the item being mapped
  uint64_t offset_ = 0;
};

}  // namespace

void parse_chat_history(helix::ParseContext& ctx, const SourcePath& source) {
  ChatParser(ctx, source).run();
}

}  // namespace grok

// plugins/codex/codex_items.hpp: code shared by the codex and codex-legacy adapters: where Codex
// keeps its sessions, and the mapping of Responses-API items (messages, reasoning, tool calls and
// their outputs), which every Codex era stores the same way.
#pragma once

#include <cstdint>
#include <helix/adapter.hpp>
#include <helix/json.hpp>
#include <string>
#include <string_view>

namespace codex {

// Both plugins declare the same sources; probe() decides which era, so which plugin, owns a file.
inline const char* const kRoots[] = {"~/.codex", nullptr};
inline const helix_source_pattern kPatterns[] = {
    {"sessions/**/rollout-*.jsonl", HELIX_LAYOUT_LINES},
    {"sessions/**/rollout-*.jsonl.zst", HELIX_LAYOUT_LINES},
    {"archived_sessions/**/rollout-*.jsonl", HELIX_LAYOUT_LINES},
    {"archived_sessions/**/rollout-*.jsonl.zst", HELIX_LAYOUT_LINES},
    {"sessions/**/rollout-*.json", HELIX_LAYOUT_DOCUMENT},  // the TypeScript CLI (2025)
    {nullptr, 0}};

// Codex CLI's notify program gets {"type": "agent-turn-complete", "thread-id": ..., ...} as its
// argument (docs/operations.md, "Push capture"); both plugins read it the same way.
inline const char* const kHookSessionKeys[] = {"thread-id", "thread_id", nullptr};
inline const char* const kHookEventKeys[] = {"type", nullptr};
inline constexpr helix_hook_ext kHook =
    helix::hook_events({.session_id_keys = kHookSessionKeys, .event_name_keys = kHookEventKeys});

// What the first bytes of a file say about its era (codex.md §2).
enum class Era {
  kUnknown,
  kWrapper,      // {timestamp,type,payload} lines: W1 (0.32) and every later era
  kLegacyLines,  // bare ResponseItem lines after a {id,timestamp,instructions} line (<= 0.31)
  kTypeScript,   // one pretty-printed {session:{...},items:[...]} document (TypeScript CLI)
};
Era detect_era(std::string_view head);

// The session id at the end of a rollout file name (rollout-<time>-<uuid>.jsonl[.zst]), or "".
std::string_view session_id_from_path(std::string_view path);

// First line of `text`, for summaries (the host truncates them).
std::string_view first_line(std::string_view text);

// Concatenated text of a content array ({type:input_text|output_text|text, text}, images noted).
std::string content_text(const boost::json::array* content);

// One native record being turned into events: every event it yields shares these fields.
class Record {
 public:
  Record(const helix::ParseContext& ctx, std::string_view session_id, uint64_t offset,
         int64_t ts_ms, std::string_view payload, std::string_view model)
      : emitter_(ctx, helix::Event{.session_id = session_id,
                                   .source_offset = offset,
                                   .ts_ms = ts_ms,
                                   .payload = payload}),
        model_(model) {}

  // Emits one event with the record's session, offset, time and payload and the next ordinal.
  // Events written by the model (role assistant) also carry the model.
  void emit(helix::Event event) {
    if (event.role == "assistant") event.model = model_;
    emitter_.emit(event);
  }
  int64_t ts_ms() const { return emitter_.record().ts_ms; }

 private:
  helix::RecordEmitter emitter_;
  std::string_view model_;
};

// Where the real user prompts of a file come from. Codex injects context (AGENTS.md,
// environment_context, ...) as role:user messages; from the wrapper eras on, the CLI marks the
// typed prompts itself (event_msg user_message, later item_completed UserMessage), which is the
// only reliable source when message text is redacted. The legacy eras have only the items.
enum class Prompts { kFromItems, kFromEvents };

struct ItemResult {
  bool known = true;            // false: an item type this adapter does not know (kept as other)
  std::string running_call_id;  // a tool output that says the process is still running
};

// Maps one Responses-API item: a bare line (legacy), a TypeScript document item, or the payload
// of a response_item line.
ItemResult map_response_item(Record& record, const boost::json::object& item, Prompts prompts);

// True when a role:user message is context Codex injected rather than something the user typed.
bool is_injected_context(const boost::json::object& message);

}  // namespace codex

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
      : ctx_(ctx),
        session_id_(session_id),
        offset_(offset),
        ts_ms_(ts_ms),
        payload_(payload),
        model_(model) {}

  // Emits one event; fills session, offset, ordinal, time and payload. Events written by the
  // model (role assistant) also carry the model.
  void emit(helix::Event event);
  int64_t ts_ms() const { return ts_ms_; }

 private:
  const helix::ParseContext& ctx_;
  std::string_view session_id_;
  uint64_t offset_;
  int64_t ts_ms_;
  std::string_view payload_;
  std::string_view model_;
  uint32_t next_ordinal_ = 0;
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

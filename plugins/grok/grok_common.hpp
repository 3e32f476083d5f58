// Shared helpers of the Grok Build adapter: source paths, cwd decoding, stable uids, text.
#pragma once

#include <helix/adapter.hpp>
#include <helix/json.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace grok {

// What a source path says: the session directory name (= native session id) and the cwd
// group directory name. For the per-cwd prompt_history.jsonl and .cwd, session_id is empty.
struct SourcePath {
  std::string_view file_name;
  std::string_view session_id;
  std::string_view group;
};
SourcePath split_source_path(std::string_view path);

// The cwd encoded in a group directory name, or "" when that is not certain: the hashed
// long form (real path only in `.cwd`), anything that is not a canonical encoding of an
// absolute path. summary.json's info.cwd stays the truth; see grok_adapter.cpp.
std::string decode_cwd_dirname(std::string_view group);

// 64-bit FNV-1a, rendered as 16 hex digits: short, stable content fingerprints for uids.
std::string fingerprint(std::string_view text);

// The ordinal of an event that carries a uid. Both files describing one message (updates.jsonl
// and chat_history.jsonl) must give it the same (uid, ordinal) for the host to keep one copy,
// but their records are shaped differently (one chat item holds a reply and all its tool
// calls). Deriving the ordinal from the uid makes it equal in both files; the range above
// 0xFFFF keeps it apart from the 0.. ordinals of events without uid.
uint32_t uid_ordinal(std::string_view uid);

// The stable uids shared by both transcript files (see the dedupe note in grok_adapter.cpp).
std::string prompt_uid(int64_t prompt_index, std::string_view text);
std::string reply_uid(int64_t prompt_index, std::string_view text);
std::string thought_uid(int64_t prompt_index, std::string_view text);
std::string result_uid(std::string_view call_id);

// Grok wraps a typed prompt as "<user_query>\n...\n</user_query>" in chat_history.jsonl only;
// returns the typed text (trimmed) so both files agree.
std::string_view unwrap_user_query(std::string_view text);
std::string_view trim(std::string_view text);
// First non-empty line, for event summaries (the host truncates to 200 characters).
std::string_view first_line(std::string_view text);

// Text of ACP/Grok content: a string, a {"type":"text","text"} block or an array of blocks.
// Text parts are concatenated as they are; images become "[image]" only when `mark_images`.
std::string content_text(const boost::json::value* content, bool mark_images = false);

// Compact JSON of a value (tool inputs), or the string itself when it is a string.
std::string json_text(const boost::json::value* value);

// Grok's camelCase totals (turn_completed.usage, usage.json) in the common token convention:
// Grok's inputTokens is the whole prompt, cache reads and cache creation included (grok.md
// 4.1), so both are subtracted; outputTokens already includes reasoningTokens. costUsdTicks
// (1e10 ticks = 1 USD) is absent when Grok could not price the turn: cost stays "unknown".
helix::Usage normalized_usage(const boost::json::object& totals);

// Calls on_record(object, its raw bytes, its source offset) for each JSON object on the line;
// reports invalid JSON and non-object values with warn() and goes on.
using RecordFn = std::function<void(const boost::json::object&, std::string_view, uint64_t)>;
void for_each_record(helix::ParseContext& ctx, helix::json::LineParser& parser,
                     std::string_view line, uint64_t offset, const RecordFn& on_record);

}  // namespace grok

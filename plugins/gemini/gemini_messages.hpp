// gemini_messages.hpp: one Gemini CLI MessageRecord (chatRecordingTypes.ts) to Helix events and
// usage, shared by both eras: the lines of session-*.jsonl and the messages of session-*.json.
//
// Identity: the events of a message carry the message id as uid (ordinal 0 for its prompt,
// answer or notice, 1+i for its i-th thought); tool events carry the tool call id as uid with
// an ordinal derived from that id, so the copies of a message (re-appended lines, a .json
// session migrated to .jsonl) are one event each for the host.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <helix/adapter.hpp>
#include <string>
#include <string_view>

#include "gemini_ledger.hpp"

namespace gemini {

// What a session file says about its session besides events (merged into helix::Session).
struct SessionFacts {
  std::string cwd, title;
  int64_t first_ms = 0, last_ms = 0;
  void saw_time(int64_t ms);
  // A ConversationRecord's own fields (a .json document, a metadata line): times, summary and,
  // for a subagent, its first workspace directory. Returns whether it is a subagent's.
  bool read_record(const boost::json::object& record);
  // The helix::Session of all this, for `session_id` (`parent_id` names a subagent's parent).
  void emit(const helix::ParseContext& ctx, std::string_view session_id, std::string_view parent_id,
            std::string_view model) const;
};

// The project directory a <session_context> message names, or "".
std::string cwd_from_context(std::string_view context);

// Text of a PartListUnion (a string, a Part, or a list of either): text parts joined as the CLI
// joins them, thought parts left out, inline data and files named.
std::string content_text(const boost::json::value* content);

class MessageMapper {
 public:
  MessageMapper(const helix::ParseContext& ctx, Ledger& ledger, SessionFacts& facts)
      : ctx_(ctx), ledger_(ledger), facts_(facts) {}

  // Emits what the ledger has not seen of the message at `offset`, whose bytes are `raw`.
  void map(const boost::json::object& message, std::string_view raw, uint64_t offset);

  // True for the <session_context> message the CLI puts first in its history.
  static bool is_session_context(const boost::json::object& message);

 private:
  struct Base {  // what every event of the message shares
    std::string_view id, payload;
    uint64_t offset;
    int64_t ts_ms;
  };

  void map_user(const boost::json::object& m, const Base& base);
  void map_gemini(const boost::json::object& m, const Base& base);
  void map_notice(const boost::json::object& m, const Base& base, std::string_view type);
  void map_thoughts(const boost::json::array* thoughts, const Base& base, std::string_view model);
  void map_tool_call(const boost::json::object& call, const Base& base, std::string_view model);
  void map_function_responses(const boost::json::value* content, const Base& base);
  void emit_outcome(std::string_view call_id, std::string_view tool, std::string_view status,
                    std::string_view text, const Base& base, int64_t ts_ms);
  static helix::Event tool_event(std::string_view kind, std::string_view role,
                                 std::string_view tool, std::string_view call_id, uint32_t slot,
                                 int64_t ts_ms);
  void emit_usage(const boost::json::object& tokens, const Base& base, std::string_view model);
  void emit_main(helix::Event event, const Base& base);
  void emit(helix::Event event, const Base& base) const;

  const helix::ParseContext& ctx_;
  Ledger& ledger_;
  SessionFacts& facts_;
  bool first_copy_ = true;  // of the message being mapped
};

}  // namespace gemini

// claude_records.hpp: maps Claude Code transcript records to normalized events, usage and
// session facts (claude.md §2-§5, design §4.3).
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <helix/adapter.hpp>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace helix::claude {

// True for every record `type` claude.md §2.2 lists; other types are kept but reported.
bool is_known_type(std::string_view type);

// What the path of a transcript tells about its records.
struct SourceInfo {
  std::string fallback_session_id;  // "<uuid>.jsonl" or ".../<uuid>/subagents/...": that uuid
  bool agent_file = false;          // agent-*.jsonl: every record is a sidechain
};

// Maps the records of one parse call. Session facts are gathered and emitted once by finish();
// the title precedence and the last session id carry over to the next call through the state.
class RecordMapper {
 public:
  RecordMapper(ParseContext& ctx, SourceInfo source);

  void map(const boost::json::object& record, std::string_view payload, uint64_t offset);
  void finish();

 private:
  struct Record;
  struct SessionFacts {
    std::string cwd, git_branch, model, title, agent_version;
    int64_t started_at_ms = 0, ended_at_ms = 0;
  };

  std::string_view session_of(const boost::json::object& record);
  void note_session(const Record& r);
  void note_title(const Record& r, std::string_view title, int rank);
  void map_user(const Record& r);
  void map_user_block(const Record& r, uint32_t ordinal, const boost::json::object& block);
  void emit_user_text(const Record& r, uint32_t ordinal, std::string_view text);
  void map_assistant(const Record& r);
  void map_assistant_block(const Record& r, uint32_t ordinal, const boost::json::object& block,
                           std::string_view model);
  void emit_usage(const Record& r, const boost::json::object& message, std::string_view model);
  void emit_agent_totals(const Record& r);
  void map_system(const Record& r);
  void map_other(const Record& r);
  Event event_of(const Record& r, uint32_t ordinal, std::string_view kind,
                 std::string_view role) const;
  void emit(const Event& e);
  void load_state();

  ParseContext& ctx_;
  SourceInfo source_;
  std::string last_session_id_;
  std::map<std::string, int, std::less<>> title_ranks_;  // best title source per session so far
  std::map<std::string, SessionFacts, std::less<>> sessions_;
  std::optional<RecordEmitter> record_;  // the events of the record being mapped
};

}  // namespace helix::claude

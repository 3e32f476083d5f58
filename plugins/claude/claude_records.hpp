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
  std::string agent_id;             // agent-<id>.jsonl: <id>
};

// The uid of the link event that ties a subagent's transcript to the call that launched it
// ("agent-<agent id>"): the agent-*.meta.json sidecar and the parent's tool result emit it with
// the call's id; the subagent's events name it as their call_id and the host resolves it.
std::string subagent_link_uid(std::string_view agent_id);
// The ordinal of link events: above any content block index of the record that yields one.
inline constexpr uint32_t kLinkOrdinal = 0x10000;

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
    std::string cwd, git_branch, model, title, agent_version, forked_from;
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
  void emit_subagent_link(const Record& r, std::string_view call_id);
  void emit_task_notification(const Record& r, uint32_t ordinal, std::string_view text);
  Event event_of(const Record& r, uint32_t ordinal, std::string_view kind,
                 std::string_view role) const;
  void emit(Event e);
  std::string uid_without_uuid(std::string_view payload);
  void load_state();

  ParseContext& ctx_;
  SourceInfo source_;
  std::string last_session_id_;
  std::map<std::string, int, std::less<>> title_ranks_;  // best title source per session so far
  std::map<std::string, SessionFacts, std::less<>> sessions_;
  // Records without a uuid are named by their bytes and by where they are: the last uuid before
  // them (the anchor) and how often the same bytes came since. A resumed file that repeats the
  // records repeats their anchors; an identical record later in the same file is another event.
  std::string anchor_;
  std::map<std::string, int, std::less<>> since_anchor_;
  std::string current_link_;             // the current record's link to its subagent's call
  std::optional<RecordEmitter> record_;  // the events of the record being mapped
};

}  // namespace helix::claude

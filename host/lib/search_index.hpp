// The write side of full-text search: which event texts are indexed (FTS5 table search_events,
// rowid = events.id) and the title derived from a session's first prompt.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "database.hpp"

namespace helix {

struct EventRecord;

// Indexed kinds: prompts, answers, tool calls (name and command or arguments), errors,
// interventions and decisions. Tool results and thinking are not (size; see docs/schema.md).
bool is_searchable_kind(std::string_view kind);

// The first prompt as a one-line title: leading <tag>...</tag> blocks (slash commands, IDE
// context, shell input) are dropped; "" when nothing is left.
std::string title_from_prompt(std::string_view prompt);

// Adds the events of one commit to the index, in the commit's transaction. Rows leave the index
// by trigger when their event row is deleted (new generation, eviction).
class SearchIndexWriter {
 public:
  explicit SearchIndexWriter(Database& db);
  // `event_id` is the stored row; shadows are indexed too (search shows visible rows only), so a
  // promoted shadow is findable without re-reading its pack.
  void add(int64_t event_id, const std::string& session_uid, const std::string& kind,
           const std::string& tool, const std::string& text, bool shadow);

 private:
  Statement insert_, title_;
};

// Rewrites the Tier 1 index compactly. Deleted rows leave tombstones in FTS5's segments until
// they merge; retention calls this after an eviction pass (before the incremental vacuum), so
// the index's pages really go back to the file system.
void compact_search_index(Database& db);

// Indexes the events stored before the store had a search index (schema version < 3); a no-op
// once done. Runs in its own transaction.
void index_search_backlog(Database& db);

}  // namespace helix

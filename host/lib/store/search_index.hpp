// The write side of full-text search: which event texts are indexed (FTS5 table search_events,
// rowid = events.id, text read back from the payload packs) and the title derived from a
// session's first prompt.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "store/database.hpp"

struct sqlite3;

namespace helix {

struct EventRecord;

// Indexed kinds: prompts, answers, tool calls (name and command or arguments), errors,
// interventions and decisions. Tool results and thinking are not (size; see docs/schema.md).
// The view search_event_texts (schema version 12) lists the same events.
bool is_searchable_kind(std::string_view kind);

// Whether an event is indexed: an event of an indexed kind with a tool or a text; a lifecycle
// event with a text (a compaction's summary, a subagent's description); a tool result delivered
// as a user turn (role user: a background task's notification) with a text.
bool is_searchable(std::string_view kind, std::string_view role, std::string_view tool,
                   std::string_view text);

// What column `body` indexes for an event text: the string values of a JSON argument object,
// at most 32 KiB.
std::string indexed_body(std::string_view text);

// The first prompt as a one-line title: leading <tag>...</tag> blocks (slash commands, IDE
// context, shell input) are dropped; "" when nothing is left.
std::string title_from_prompt(std::string_view prompt);

// True when `text` has characters of a script written without spaces between words (CJK
// ideographs, kana, Thai, Lao, Khmer, Myanmar, Tibetan): its events also go to the
// trigram index search_events_cjk.
bool has_spaceless_script(std::string_view text);

// Sets the session's derived title again from its first visible prompt (after its earlier
// first prompt became a shadow: a fork's copy of its origin's prompt).
void refresh_prompt_title(Database& db, const std::string& session_uid);

// Registers helix_search_body(pack, text_off, text_len) and helix_spaceless(text) on a
// connection: the indexed body of an
// event text held in a zstd payload pack ("" without text). search_events keeps no copy of the
// text; its content view and its delete trigger read it back through this function, so every
// connection that reads snippets or deletes events needs it.
void register_search_functions(sqlite3* db);

// Adds the events of one commit to the index, in the commit's transaction. Rows leave the index
// by trigger when their event row is deleted (new generation, eviction).
class SearchIndexWriter {
 public:
  explicit SearchIndexWriter(Database& db);
  // `event_id` is the stored row and `text` the text stored in its pack; shadows are indexed
  // too (search shows visible rows only), so a promoted shadow is findable without re-indexing.
  void add(int64_t event_id, const std::string& session_uid, const std::string& kind,
           const std::string& role, const std::string& tool, const std::string& text, bool shadow);

 private:
  Statement insert_, insert_cjk_, title_;
};

// Rewrites the Tier 1 index compactly. Deleted rows leave tombstones in FTS5's segments until
// they merge; retention calls this after an eviction pass (before the incremental vacuum), so
// the index's pages really go back to the file system.
void compact_search_index(Database& db);

}  // namespace helix

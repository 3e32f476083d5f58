// The per-session counters of schema 11 (sessions.event_count ... usage_cost_usd and the
// session_sources links): how the write path keeps them exact, and a recomputation to check them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace helix {

class Database;

// What one chunk's rows bring to a session's counters (the terms of schema migration 11).
struct SessionRowCounts {
  int64_t events = 0, user_msgs = 0, retries = 0, bytes = 0;
  bool has_events = false;  // shadows included: the session gets a link to the chunk's source
  // An event row as stored: its summary and native id are NULL when empty.
  void add_event(std::string_view kind, bool sidechain, bool shadow, std::string_view summary,
                 std::string_view uid);
  void add_pack(int64_t stored_bytes) { bytes += stored_bytes; }
};

// SQLite's length() of a text value: its characters before the first NUL.
int64_t sqlite_text_length(std::string_view text);

// Adds a chunk's counts to their sessions (one UPDATE per session) and links the sessions with
// events to the chunk's source.
void count_chunk_rows(Database& db, const std::map<std::string, SessionRowCounts>& counts,
                      int64_t source_id);

// Subtracts what a source's event and pack rows bring, and drops its links: call it before the
// rows are deleted.
void uncount_source_rows(Database& db, int64_t source_id);

// Recomputes source_bytes and source_mtime_ns of the sessions linked to a source whose row was
// saved (its size or mtime may have changed).
void refresh_source_totals(Database& db, int64_t source_id);

// A session whose Tier 1 rows are all gone (eviction): zero counts and bytes, no links.
void uncount_session_rows(Database& db, const std::string& session_uid);

// What one chunk's usage rows change in a session's usage sums: the new rows' tokens less those
// of the rows they replaced (SUM() of integers is exact). A priced row, new or replaced, makes
// the session's sums recomputed from its rows: a running sum of doubles need not equal SUM()'s.
struct SessionUsageCounts {
  int64_t input = 0, output = 0, cache_read = 0, cache_creation = 0, reasoning = 0;
  bool recompute = false;
};

// Applies a chunk's usage changes: one UPDATE per session.
void count_chunk_usage(Database& db, const std::map<std::string, SessionUsageCounts>& counts);

// Recomputes a session's usage sums from its usage rows, as SUM() gives them.
void refresh_usage_totals(Database& db, const std::string& session_uid);

// The sessions whose stored counters or links differ from a recomputation from the rows: empty
// when the write path kept them exact. Reads every row: for tests and diagnostics.
std::vector<std::string> sessions_with_wrong_counters(Database& db);

}  // namespace helix

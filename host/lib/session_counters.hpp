// The per-session counters of schema 11 (sessions.event_count ... usage_cost_usd and the
// session_sources links): how the write path keeps them exact, and a recomputation to check them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace helix {

class Database;

// Adds what the event and pack rows above these ids (one chunk's rows) bring to their sessions'
// counters, and links the sessions to the sources of those events. One statement per chunk.
void count_new_rows(Database& db, int64_t events_after_id, int64_t packs_after_id);

// Subtracts what a source's event and pack rows bring, and drops its links: call it before the
// rows are deleted.
void uncount_source_rows(Database& db, int64_t source_id);

// Recomputes source_bytes and source_mtime_ns of the sessions linked to a source whose row was
// saved (its size or mtime may have changed).
void refresh_source_totals(Database& db, int64_t source_id);

// A session whose Tier 1 rows are all gone (eviction): zero counts and bytes, no links.
void uncount_session_rows(Database& db, const std::string& session_uid);

// Recomputes a session's usage sums from its usage rows (an upsert may keep or replace a row, so
// a difference would have to read the old row anyway; a sum in row order is also the same double
// the listing gave before schema 11).
void refresh_usage_totals(Database& db, const std::string& session_uid);

// The sessions whose stored counters or links differ from a recomputation from the rows: empty
// when the write path kept them exact. Reads every row: for tests and diagnostics.
std::vector<std::string> sessions_with_wrong_counters(Database& db);

}  // namespace helix

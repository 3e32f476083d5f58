#include "store/eviction.hpp"

#include "store/digest_seen.hpp"
#include "store/schema.hpp"
#include "store/search_index.hpp"
#include "store/session_counters.hpp"

#include <fmt/format.h>

namespace helix {
namespace {

// Sessions with Tier 1 rows (tier1_bytes > 0: every event row counts 96 bytes at least) and
// their last activity, from the schema 11 counters. {0}: the pass's sessions, {1}:
// their order.
constexpr const char* kCountedCandidates = R"sql(
    SELECT s.uid, COALESCE(s.analyzed_at_ms, 0),
      MAX(COALESCE(s.ended_at_ms, 0), COALESCE(s.source_mtime_ns / 1000000, 0)),
      COALESCE(s.ingested_at_ms, 0), s.tier1_bytes
    FROM sessions s
    WHERE {0} AND COALESCE(s.ingested_at_ms, 0) < ?1 AND s.tier1_bytes > 0
    ORDER BY {1}, s.uid)sql";

// The same from the rows, for a store older than schema 11 opened read-only.
constexpr const char* kUncountedCandidates = R"sql(
    SELECT s.uid, COALESCE(s.analyzed_at_ms, 0),
      MAX(COALESCE(s.ended_at_ms, 0), COALESCE((SELECT MAX(src.mtime_ns) / 1000000 FROM sources src
          WHERE src.id IN (SELECT DISTINCT source_id FROM events e WHERE e.session_uid = s.uid)),
        0)),
      COALESCE(s.ingested_at_ms, 0),
      COALESCE((SELECT SUM(length(data)) FROM payload_packs p WHERE p.session_uid = s.uid), 0)
      + COALESCE((SELECT SUM(96 + COALESCE(length(summary), 0) + COALESCE(length(uid), 0) * 2)
                  FROM events e WHERE e.session_uid = s.uid), 0)
    FROM sessions s
    WHERE {0} AND COALESCE(s.ingested_at_ms, 0) < ?1
      AND (EXISTS (SELECT 1 FROM events e WHERE e.session_uid = s.uid)
           OR EXISTS (SELECT 1 FROM payload_packs p WHERE p.session_uid = s.uid))
    ORDER BY {1}, s.uid)sql";

int64_t count(Database& db, const char* sql) {
  auto st = db.prepare(sql);
  st.step();
  return st.integer(0);
}

}  // namespace

std::vector<EvictionCandidate> eviction_candidates(Store& store, bool analyzed,
                                                   int64_t idle_before_ms) {
  // Analyzed = its digest is fresh (no record arrived after it), also for a session evicted
  // before that grew and was digested again. Only sessions with Tier 1 rows left (events or
  // packs; the usage ledger is Tier 2). Schema 11 keeps the bytes per session and links each
  // session to its sources; a read-only command on an older store computes them from the rows.
  Database& db = store.database();
  const bool counted = user_version(db) >= 11;
  auto st = db.prepare(
      fmt::format(fmt::runtime(counted ? kCountedCandidates : kUncountedCandidates),
                  analyzed ? "s.analyzed_at_ms >= COALESCE(s.ingested_at_ms, 0)"
                           : "(s.analyzed_at_ms IS NULL OR s.ingested_at_ms > s.analyzed_at_ms)",
                  analyzed ? "s.analyzed_at_ms" : "COALESCE(s.started_at_ms, 0)"));
  st.bind(1, idle_before_ms);
  std::vector<EvictionCandidate> out;
  while (st.step())
    out.push_back({st.text(0), st.integer(4), st.integer(1), st.integer(2), st.integer(3)});
  return out;
}

int64_t used_file_bytes(Store& store) {
  return count(store.database(),
               "SELECT (page_count - freelist_count) * page_size FROM pragma_page_count, "
               "pragma_freelist_count, pragma_page_size");
}

int64_t counted_evictable_bytes(Store& store, int64_t now_ms, int64_t quiet_period_ms) {
  Database& db = store.database();
  if (user_version(db) < 11) return -1;
  auto st = db.prepare(R"sql(
    SELECT COALESCE(SUM(s.tier1_bytes), 0) FROM sessions s
    WHERE s.analyzed_at_ms >= COALESCE(s.ingested_at_ms, 0) AND s.tier1_bytes > 0
      AND :now - MAX(COALESCE(s.ended_at_ms, 0), COALESCE(s.source_mtime_ns / 1000000, 0))
          >= :quiet)sql");
  st.bind(":now", now_ms).bind(":quiet", quiet_period_ms);
  st.step();
  return st.integer(0);
}

void evict_session(Store& store, const std::string& uid, bool analyzed, int64_t bytes,
                   int64_t now_ms) {
  Database& db = store.database();
  Transaction tx(db);
  // What the digests have seen becomes their base: if the session grows, its digesters resume
  // from these states and are streamed only events above the recorded offsets. The state moves
  // (one copy per evicted session in Tier 2); a digest written since has a new one. A digest
  // without a state while events go loses its base: coverage moves past what the older base
  // saw, so resuming from it would skip those events (the session cannot fold from then on).
  auto base = db.prepare(R"sql(
    UPDATE digests SET state = NULL, base_state = CASE
        WHEN state IS NOT NULL THEN state
        WHEN EXISTS (SELECT 1 FROM events WHERE session_uid = ?1) THEN NULL
        ELSE base_state END
    WHERE session_uid = ?1)sql");
  base.bind(1, uid).run();
  auto coverage = db.prepare(R"sql(
    INSERT INTO digest_coverage (session_uid, source_id, covered_offset)
    SELECT session_uid, source_id, MAX(source_offset) FROM events WHERE session_uid = ?
    GROUP BY source_id
    ON CONFLICT (session_uid, source_id) DO UPDATE
      SET covered_offset = MAX(covered_offset, excluded.covered_offset))sql");
  coverage.bind(1, uid).run();
  remember_seen_records(db, uid);
  // The usage ledger stays (Tier 2): it keeps key de-duplication and usage_days exact.
  for (const char* table : {"events", "payload_packs"}) {
    auto st = db.prepare(fmt::format("DELETE FROM {} WHERE session_uid = ?", table));
    st.bind(1, uid).run();
  }
  uncount_session_rows(db, uid);
  auto mark = db.prepare("UPDATE sessions SET evicted_at_ms = ? WHERE uid = ?");
  mark.bind(1, now_ms).bind(2, uid).run();
  if (!analyzed) {
    auto loss = db.prepare(R"sql(
      INSERT INTO retention_events (at_ms, kind, session_uid, bytes, message)
      VALUES (?, 'session_memory.data_loss', ?, ?, ?))sql");
    loss.bind(1, now_ms)
        .bind(2, uid)
        .bind(3, bytes)
        .bind(4, fmt::format("evicted {} bytes of raw data before it was analyzed: the store "
                             "was above raw_hard_cap_bytes and analysis could not make room",
                             bytes))
        .run();
  }
  tx.commit();
}

void release_evicted_space(Store& store) {
  // A real delete: the search index releases the space of deleted rows (FTS5 keeps it until
  // merged), the freed pages go back to the file system, and the WAL is folded in.
  Database& db = store.database();
  compact_search_index(db);
  db.exec("PRAGMA incremental_vacuum");
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

int64_t analyzed_session_count(Store& store) {
  return count(store.database(), "SELECT COUNT(*) FROM sessions WHERE analyzed_at_ms IS NOT NULL");
}

int64_t evicted_session_count(Store& store) {
  return count(store.database(), "SELECT COUNT(*) FROM sessions WHERE evicted_at_ms IS NOT NULL");
}

int64_t data_loss_event_count(Store& store) {
  Database& db = store.database();
  if (count(db, "SELECT COUNT(*) FROM sqlite_schema WHERE name = 'retention_events'") == 0)
    return 0;
  return count(db, "SELECT COUNT(*) FROM retention_events WHERE kind = 'session_memory.data_loss'");
}

}  // namespace helix

#include "retention/retention.hpp"

#include "store/digest_seen.hpp"
#include "store/schema.hpp"
#include "store/search_index.hpp"
#include "store/session_counters.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <limits>
#include <set>

namespace helix {

int64_t RetentionPlan::planned_bytes() const {
  int64_t n = 0;
  for (const auto& s : steps) n += s.bytes;
  return n;
}

Retention::Retention(Database& db, const RetentionConfig& config, int64_t now_ms,
                     int64_t quiet_period_ms)
    : db_(db), config_(config), now_ms_(now_ms), quiet_period_ms_(quiet_period_ms) {}

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

}  // namespace

std::vector<Retention::Candidate> Retention::candidates(bool analyzed, int64_t idle_before_ms) {
  // Analyzed = its digest is fresh (no record arrived after it), also for a session evicted
  // before that grew and was digested again; the others are the hard-cap pass's. Either way
  // only sessions with Tier 1 rows left (events or packs; the usage ledger is Tier 2).
  // A session's Tier 1 bytes: its compressed packs exactly, its rows approximately (the
  // store-wide total that the passes compare with the caps is measured, not summed). Its last
  // activity: its newest record, or the last change of a file it came from. `idle_before_ms`
  // keeps only sessions ingested before it, so the backstop does not visit every session.
  // Schema 11 keeps the bytes per session and links each session to its sources; a read-only
  // command on an older store computes them from the rows (seconds at 100,000 sessions).
  const bool counted = user_version(db_) >= 11;
  auto st = db_.prepare(
      fmt::format(fmt::runtime(counted ? kCountedCandidates : kUncountedCandidates),
                  analyzed ? "s.analyzed_at_ms >= COALESCE(s.ingested_at_ms, 0)"
                           : "(s.analyzed_at_ms IS NULL OR s.ingested_at_ms > s.analyzed_at_ms)",
                  analyzed ? "s.analyzed_at_ms" : "COALESCE(s.started_at_ms, 0)"));
  st.bind(1, idle_before_ms);
  std::vector<Candidate> out;
  while (st.step())
    out.push_back({st.text(0), st.integer(4), st.integer(1), st.integer(2), st.integer(3)});
  return out;
}

// The bytes the file's pages hold: an upper bound of each tier, known without dbstat.
int64_t Retention::used_file_bytes() {
  auto st = db_.prepare(
      "SELECT (page_count - freelist_count) * page_size FROM pragma_page_count, "
      "pragma_freelist_count, pragma_page_size");
  st.step();
  return st.integer(0);
}

RetentionPlan Retention::plan(const AnalyzeNow& analyze_now, bool measure_when_needed,
                              bool tier2_may_have_grown) {
  RetentionPlan plan;
  // dbstat reads every page; a tier cannot exceed the file, so a small file needs no measure.
  const int64_t used = measure_when_needed ? used_file_bytes() : -1;
  const bool measure1 =
      used < 0 || used > std::min(config_.raw_soft_cap_bytes, config_.raw_hard_cap_bytes);
  plan.tier1_bytes = measure1 ? measured_tier1_bytes(db_) : used;
  if (!tier2_may_have_grown)
    plan.tier2_bytes = -1;
  else
    plan.tier2_bytes =
        used < 0 || used > config_.distilled_cap_bytes ? measured_tier2_bytes(db_) : used;
  plan.soft_cap = config_.raw_soft_cap_bytes;
  plan.hard_cap = config_.raw_hard_cap_bytes;
  plan.distilled_cap = config_.distilled_cap_bytes;
  int64_t usage = plan.tier1_bytes;
  std::set<std::string> chosen;
  // A session still being written (active) is never evicted: its next lines need their context.
  auto take = [&](const Candidate& c, const char* pass, bool analyzed) {
    chosen.insert(c.uid);
    plan.steps.push_back({c.uid, pass, c.bytes, analyzed});
    usage -= c.bytes;
  };

  // 2. Backstop: analyzed raw data older than raw_max_age_days goes whatever the space. The age
  // is the raw copy's in this cache (from its last ingest or activity), so a first sweep of old
  // history does not drop what it just read.
  const int64_t max_age_ms = config_.raw_max_age_days * 86400 * 1000;
  for (const auto& c : candidates(true, now_ms_ - max_age_ms))
    if (!active(c) && now_ms_ - std::max(c.last_activity, c.ingested_at) > max_age_ms)
      take(c, "backstop", true);

  // 3. Budget: oldest analyzed first while above the soft cap; never un-analyzed data.
  constexpr int64_t kAll = std::numeric_limits<int64_t>::max();
  auto budget_pass = [&] {
    if (usage <= plan.soft_cap) return;
    for (const auto& c : candidates(true, kAll)) {
      if (usage <= plan.soft_cap) break;
      if (!chosen.count(c.uid) && !active(c)) take(c, "budget", true);
    }
  };
  budget_pass();

  // 4. Over the hard cap: analyze now and retry; only then the oldest un-analyzed, reported.
  if (usage > plan.hard_cap && analyze_now) {
    plan.analyzed_now = analyze_now();
    if (plan.analyzed_now > 0) budget_pass();
  }
  if (usage > plan.hard_cap)
    for (const auto& c : candidates(false, kAll)) {
      if (usage <= plan.hard_cap) break;
      if (!active(c)) take(c, "hard_cap", false);
    }
  plan.over_hard_cap_after = usage > plan.hard_cap;

  // 5. Tier 2 guard: digests are the product; flag, never drop.
  plan.tier2_over_cap = plan.tier2_bytes > plan.distilled_cap;
  return plan;
}

int64_t Retention::evictable_bytes() {
  if (user_version(db_) >= 11) {  // the budget pass's candidates that are not active, summed
    auto st = db_.prepare(R"sql(
      SELECT COALESCE(SUM(s.tier1_bytes), 0) FROM sessions s
      WHERE s.analyzed_at_ms >= COALESCE(s.ingested_at_ms, 0) AND s.tier1_bytes > 0
        AND ?1 - MAX(COALESCE(s.ended_at_ms, 0), COALESCE(s.source_mtime_ns / 1000000, 0))
            >= ?2)sql");
    st.bind(1, now_ms_).bind(2, quiet_period_ms_);
    st.step();
    return st.integer(0);
  }
  int64_t n = 0;
  for (const auto& c : candidates(true, std::numeric_limits<int64_t>::max()))
    if (!active(c)) n += c.bytes;
  return n;
}

void Retention::evict(const EvictionStep& step) {
  Transaction tx(db_);
  // What the digests have seen becomes their base: if the session grows, its digesters resume
  // from these states and are streamed only events above the recorded offsets. The state moves
  // (one copy per evicted session in Tier 2); a digest written since has a new one. A digest
  // without a state while events go loses its base: coverage moves past what the older base
  // saw, so resuming from it would skip those events (the session cannot fold from then on).
  auto base = db_.prepare(R"sql(
    UPDATE digests SET state = NULL, base_state = CASE
        WHEN state IS NOT NULL THEN state
        WHEN EXISTS (SELECT 1 FROM events WHERE session_uid = ?1) THEN NULL
        ELSE base_state END
    WHERE session_uid = ?1)sql");
  base.bind(1, step.session_uid).run();
  auto coverage = db_.prepare(R"sql(
    INSERT INTO digest_coverage (session_uid, source_id, covered_offset)
    SELECT session_uid, source_id, MAX(source_offset) FROM events WHERE session_uid = ?
    GROUP BY source_id
    ON CONFLICT (session_uid, source_id) DO UPDATE
      SET covered_offset = MAX(covered_offset, excluded.covered_offset))sql");
  coverage.bind(1, step.session_uid).run();
  remember_seen_records(db_, step.session_uid);
  // The usage ledger stays (Tier 2): it keeps key de-duplication and usage_days exact.
  for (const char* table : {"events", "payload_packs"}) {
    auto st = db_.prepare(fmt::format("DELETE FROM {} WHERE session_uid = ?", table));
    st.bind(1, step.session_uid).run();
  }
  uncount_session_rows(db_, step.session_uid);
  auto mark = db_.prepare("UPDATE sessions SET evicted_at_ms = ? WHERE uid = ?");
  mark.bind(1, now_ms_).bind(2, step.session_uid).run();
  if (!step.analyzed) {
    auto loss = db_.prepare(R"sql(
      INSERT INTO retention_events (at_ms, kind, session_uid, bytes, message)
      VALUES (?, 'session_memory.data_loss', ?, ?, ?))sql");
    loss.bind(1, now_ms_)
        .bind(2, step.session_uid)
        .bind(3, step.bytes)
        .bind(4, fmt::format("evicted {} bytes of raw data before it was analyzed: the store "
                             "was above raw_hard_cap_bytes and analysis could not make room",
                             step.bytes))
        .run();
  }
  tx.commit();
}

void Retention::apply(const RetentionPlan& plan) {
  for (const auto& step : plan.steps) evict(step);
  if (plan.steps.empty()) return;
  // A real delete: the search index releases the space of deleted rows (FTS5 keeps it until
  // merged), the freed pages go back to the file system, and the WAL is folded in.
  compact_search_index(db_);
  db_.exec("PRAGMA incremental_vacuum");
  db_.exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

}  // namespace helix

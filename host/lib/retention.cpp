#include "retention.hpp"

#include "search_index.hpp"

#include <algorithm>
#include <fmt/format.h>
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

std::vector<Retention::Candidate> Retention::candidates(bool analyzed) {
  // A session's Tier 1 bytes: its compressed packs exactly, its rows approximately (the
  // store-wide total that the passes compare with the caps is measured, not summed). Its last
  // activity: its newest record, or the last change of a file it came from.
  auto st = db_.prepare(fmt::format(R"sql(
    SELECT s.uid, COALESCE(s.analyzed_at_ms, 0),
      MAX(COALESCE(s.ended_at_ms, 0), COALESCE((SELECT MAX(src.mtime_ns) / 1000000 FROM sources src
          WHERE src.id IN (SELECT DISTINCT source_id FROM events e WHERE e.session_uid = s.uid)),
        0)),
      COALESCE(s.ingested_at_ms, 0),
      COALESCE((SELECT SUM(length(data)) FROM payload_packs p WHERE p.session_uid = s.uid), 0)
      + COALESCE((SELECT SUM(96 + COALESCE(length(summary), 0) + COALESCE(length(uid), 0) * 2)
                  FROM events e WHERE e.session_uid = s.uid), 0)
    FROM sessions s
    WHERE s.evicted_at_ms IS NULL AND s.analyzed_at_ms IS {} NULL
    ORDER BY {}, s.uid)sql",
      analyzed ? "NOT" : "", analyzed ? "s.analyzed_at_ms" : "COALESCE(s.started_at_ms, 0)"));
  std::vector<Candidate> out;
  while (st.step())
    out.push_back({st.text(0), st.integer(4), st.integer(1), st.integer(2), st.integer(3)});
  return out;
}

RetentionPlan Retention::plan(const AnalyzeNow& analyze_now) {
  RetentionPlan plan;
  plan.tier1_bytes = measured_tier1_bytes(db_);
  plan.tier2_bytes = measured_tier2_bytes(db_);
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
  for (const auto& c : candidates(true))
    if (!active(c) && now_ms_ - std::max(c.last_activity, c.ingested_at) > max_age_ms)
      take(c, "backstop", true);

  // 3. Budget: oldest analyzed first while above the soft cap; never un-analyzed data.
  auto budget_pass = [&] {
    for (const auto& c : candidates(true)) {
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
    for (const auto& c : candidates(false)) {
      if (usage <= plan.hard_cap) break;
      if (!active(c)) take(c, "hard_cap", false);
    }
  plan.over_hard_cap_after = usage > plan.hard_cap;

  // 5. Tier 2 guard: digests are the product; flag, never drop.
  plan.tier2_over_cap = plan.tier2_bytes > plan.distilled_cap;
  return plan;
}

int64_t Retention::evictable_bytes() {
  int64_t n = 0;
  for (const auto& c : candidates(true))
    if (!active(c)) n += c.bytes;
  return n;
}

void Retention::evict(const EvictionStep& step) {
  Transaction tx(db_);
  for (const char* table : {"events", "payload_packs", "usage"}) {
    auto st = db_.prepare(fmt::format("DELETE FROM {} WHERE session_uid = ?", table));
    st.bind(1, step.session_uid).run();
  }
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

#include "retention/retention.hpp"

#include <algorithm>
#include <limits>
#include <set>
#include <utility>

namespace helix {

int64_t RetentionPlan::planned_bytes() const {
  int64_t n = 0;
  for (const auto& s : steps) n += s.bytes;
  return n;
}

Retention::Retention(Store& store, const RetentionConfig& config, int64_t now_ms,
                     int64_t quiet_period_ms)
    : store_(store), config_(config), now_ms_(now_ms), quiet_period_ms_(quiet_period_ms) {}

namespace {

constexpr int64_t kAll = std::numeric_limits<int64_t>::max();

// One plan in the making: the Tier 1 usage it expects after the steps chosen so far. A session
// still being written (active) is never chosen: its next lines need their context.
class PlanBuilder {
 public:
  PlanBuilder(Store& store, RetentionPlan& plan,
              std::function<bool(const EvictionCandidate&)> active)
      : store_(store), plan_(plan), active_(std::move(active)), usage_(plan.tier1_bytes) {}

  // 2. Backstop: analyzed raw data older than `max_age_ms` goes whatever the space. The age is
  // the raw copy's in this cache (from its last ingest or activity), so a first sweep of old
  // history does not drop what it just read.
  void backstop(int64_t now_ms, int64_t max_age_ms) {
    for (const auto& c : eviction_candidates(store_, true, now_ms - max_age_ms))
      if (!active_(c) && now_ms - std::max(c.last_activity, c.ingested_at) > max_age_ms)
        take(c, "backstop", true);
  }

  // 3. Budget: oldest analyzed first while above the soft cap; never un-analyzed data.
  void budget() {
    if (usage_ <= plan_.soft_cap) return;
    for (const auto& c : eviction_candidates(store_, true, kAll)) {
      if (usage_ <= plan_.soft_cap) break;
      if (!chosen_.count(c.uid) && !active_(c)) take(c, "budget", true);
    }
  }

  // 4. Over the hard cap: analyze now and retry; only then the oldest un-analyzed, reported.
  void hard_cap(const AnalyzeNow& analyze_now) {
    if (usage_ > plan_.hard_cap && analyze_now) {
      plan_.analyzed_now = analyze_now();
      if (plan_.analyzed_now > 0) budget();
    }
    if (usage_ > plan_.hard_cap) {
      for (const auto& c : eviction_candidates(store_, false, kAll)) {
        if (usage_ <= plan_.hard_cap) break;
        if (!active_(c)) take(c, "hard_cap", false);
      }
    }
    plan_.over_hard_cap_after = usage_ > plan_.hard_cap;
  }

 private:
  void take(const EvictionCandidate& c, const char* pass, bool analyzed) {
    chosen_.insert(c.uid);
    plan_.steps.push_back({c.uid, pass, c.bytes, analyzed});
    usage_ -= c.bytes;
  }

  Store& store_;
  RetentionPlan& plan_;
  std::function<bool(const EvictionCandidate&)> active_;
  int64_t usage_;
  std::set<std::string> chosen_;
};

}  // namespace

// 1. The tiers' sizes. dbstat reads every page; a tier cannot exceed the file, so a small file
// needs no measure.
void Retention::measure(RetentionPlan& plan, bool measure_when_needed, bool tier2_may_have_grown) {
  const int64_t used = measure_when_needed ? used_file_bytes(store_) : -1;
  const bool measure1 =
      used < 0 || used > std::min(config_.raw_soft_cap_bytes, config_.raw_hard_cap_bytes);
  plan.tier1_bytes = measure1 ? measured_tier1_bytes(store_) : used;
  if (!tier2_may_have_grown)
    plan.tier2_bytes = -1;
  else
    plan.tier2_bytes =
        used < 0 || used > config_.distilled_cap_bytes ? measured_tier2_bytes(store_) : used;
}

RetentionPlan Retention::plan(const AnalyzeNow& analyze_now, bool measure_when_needed,
                              bool tier2_may_have_grown) {
  RetentionPlan plan;
  measure(plan, measure_when_needed, tier2_may_have_grown);
  plan.soft_cap = config_.raw_soft_cap_bytes;
  plan.hard_cap = config_.raw_hard_cap_bytes;
  plan.distilled_cap = config_.distilled_cap_bytes;
  PlanBuilder builder(store_, plan, [this](const EvictionCandidate& c) { return active(c); });
  builder.backstop(now_ms_, config_.raw_max_age_days * 86400 * 1000);
  builder.budget();
  builder.hard_cap(analyze_now);
  // 5. Tier 2 guard: digests are the product; flag, never drop.
  plan.tier2_over_cap = plan.tier2_bytes > plan.distilled_cap;
  return plan;
}

int64_t Retention::evictable_bytes() {
  if (int64_t counted = counted_evictable_bytes(store_, now_ms_, quiet_period_ms_); counted >= 0)
    return counted;  // the budget pass's candidates that are not active, summed by the store
  int64_t n = 0;
  for (const auto& c : eviction_candidates(store_, true, std::numeric_limits<int64_t>::max()))
    if (!active(c)) n += c.bytes;
  return n;
}

void Retention::apply(const RetentionPlan& plan) {
  for (const auto& step : plan.steps)
    evict_session(store_, step.session_uid, step.analyzed, step.bytes, now_ms_);
  if (!plan.steps.empty()) release_evicted_space(store_);
}

}  // namespace helix

// The retention engine of the design document §5.2: drops analyzed raw data (Tier 1) under a
// storage budget, never a digest, and only loses un-analyzed data on the reported hard-cap path.
#pragma once

#include "config/config.hpp"
#include "store/eviction.hpp"
#include "store/store.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace helix {

struct EvictionStep {
  std::string session_uid;
  std::string pass;   // backstop | budget | hard_cap
  int64_t bytes = 0;  // the session's Tier 1 bytes (packed payloads and rows)
  bool analyzed = true;
};

struct RetentionPlan {
  // Measured before the plan; with plan(..., measure_when_needed) a tier below its caps may
  // hold the file's used bytes instead (an upper bound); tier2_bytes is -1 when not measured.
  int64_t tier1_bytes = 0, tier2_bytes = 0;
  int64_t soft_cap = 0, hard_cap = 0, distilled_cap = 0;
  std::vector<EvictionStep> steps;
  int64_t analyzed_now = 0;          // sessions the hard-cap pass had digested first
  bool over_hard_cap_after = false;  // still above the hard cap after every allowed step
  bool tier2_over_cap = false;       // Tier 2 above distilled_cap_bytes: flagged, never dropped
  int64_t planned_bytes() const;
};

// Digests every analyzable session now and returns how many it analyzed (the hard-cap pass
// calls it before it would evict un-analyzed data).
using AnalyzeNow = std::function<int64_t()>;

// A session written to within this long is still being written: its raw data stays.
inline constexpr int64_t kQuietPeriodMs = int64_t{3600} * 1000;

class Retention {
 public:
  Retention(Store& store, const RetentionConfig& config, int64_t now_ms,
            int64_t quiet_period_ms = kQuietPeriodMs);

  // The passes of §5.2 in order, without deleting anything. With `measure_when_needed` (a
  // sweep), the tiers are measured only when the file's used bytes exceed a cap: a tier cannot
  // be larger than the file, and measuring reads every page. Without `tier2_may_have_grown`
  // (a sweep that wrote nothing) Tier 2 is not measured at all: tier2_bytes is -1 and the
  // guard is left to the next sweep that writes, and to `status`.
  RetentionPlan plan(const AnalyzeNow& analyze_now = {}, bool measure_when_needed = false,
                     bool tier2_may_have_grown = true);
  // Carries the plan out: drops each session's Tier 1 rows, sets evicted_at, records data loss,
  // and returns the freed pages to the file system.
  void apply(const RetentionPlan& plan);
  // Tier 1 bytes of analyzed sessions that are not being written: what eviction could free.
  int64_t evictable_bytes();

 private:
  void measure(RetentionPlan& plan, bool measure_when_needed, bool tier2_may_have_grown);
  bool active(const EvictionCandidate& c) const {
    return now_ms_ - c.last_activity < quiet_period_ms_;
  }

  Store& store_;
  RetentionConfig config_;
  int64_t now_ms_, quiet_period_ms_;
};

}  // namespace helix

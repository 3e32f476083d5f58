// The order of Helix's work, written once: new data is swept into the store, the sessions it
// touched are digested, then retention runs as the cadence says, then (with [fleet] cadence =
// "after-sweep") what changed is pushed to the team's fleet database. The `sweep` and `hook`
// commands both run this pipeline; the command line only parses, calls and prints.
#pragma once

#include "config/config.hpp"
#include "digest/digest_runner.hpp"
#include "fleet/fleet_push.hpp"
#include "ingest/sweep.hpp"
#include "plugins/plugin_registry.hpp"
#include "retention/retention.hpp"
#include "store/store.hpp"

#include <optional>
#include <string>
#include <vector>

namespace helix {

// The push after new data: what it sent, or why it stopped (the next push resumes).
struct PushStep {
  PushReport report;    // what it pushed (up to where it stopped)
  std::string problem;  // empty when it completed
  bool busy = false;    // another push of this host was running
};

// What one run of the pipeline did, step by step.
struct PipelineReport {
  SweepReport sweep;
  DigestReport digest;
  std::optional<RetentionPlan> retention;  // absent when the cadence did not call for it
  std::optional<PushStep> push;  // absent unless [fleet] cadence = "after-sweep" and data came
};

class Pipeline {
 public:
  // The caller holds the store's writer lock (SweepLock) for the pipeline's lifetime.
  Pipeline(Store& store, const PluginRegistry& plugins, const Config& config);

  // A pull sweep (cron, a timer, `helix-host sweep`): every source of every adapter, then the
  // digests, then retention (a pull sweep is where every cadence runs it).
  PipelineReport sweep_all(const SweepProgress& progress = {}, const SweepOptions& options = {});

  // Push capture (an agent's hook): only these files, then the digests, so the session's digest
  // is current when the agent stops; retention only when cadence = "on-hook".
  PipelineReport ingest_paths(const std::vector<std::string>& paths);

  // `evict`: the retention passes now, analysing first when the hard cap calls for it.
  RetentionPlan evict_now();

  // `evict --dry-run`: what evict_now would drop, without analysing or changing anything (the
  // store may be opened read-only).
  static RetentionPlan plan_eviction(Store& store, const Config& config);

 private:
  // Retention after new data: measures only what the caps need; `wrote` = the steps before
  // stored or digested something (else Tier 2 cannot have grown and is not measured).
  RetentionPlan retention_after(bool wrote);
  std::optional<PushStep> push_after(bool wrote);
  int64_t analyze_now();

  Store& store_;
  const PluginRegistry& plugins_;
  const Config& config_;
};

}  // namespace helix

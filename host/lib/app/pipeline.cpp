#include "app/pipeline.hpp"

#include "base/clock.hpp"

namespace helix {

Pipeline::Pipeline(Store& store, const PluginRegistry& plugins, const Config& config)
    : store_(store), plugins_(plugins), config_(config) {}

PipelineReport Pipeline::sweep_all(const SweepProgress& progress, const SweepOptions& options) {
  PipelineReport report;
  {  // the sweep's tables are freed before the digest pass
    Sweep sweep(store_, plugins_, config_, options);
    report.sweep = sweep.run(progress);
  }
  report.digest = run_digests(store_, plugins_, config_);
  const bool wrote = report.sweep.bytes_read > 0 || report.digest.sessions_digested > 0;
  report.retention = retention_after(wrote);
  report.push = push_after(wrote);
  return report;
}

PipelineReport Pipeline::ingest_paths(const std::vector<std::string>& paths) {
  PipelineReport report;
  {
    Sweep sweep(store_, plugins_, config_);
    report.sweep = sweep.run_paths(paths);
  }
  // A grown session resumes from its digest's saved state, so a hook per reply stays cheap.
  report.digest = run_digests(store_, plugins_, config_);
  if (config_.retention.cadence == "on-hook") report.retention = retention_after(true);
  report.push = push_after(report.sweep.bytes_read > 0 || report.digest.sessions_digested > 0);
  return report;
}

RetentionPlan Pipeline::evict_now() {
  Retention retention(store_, config_.retention, now_ms());
  RetentionPlan plan = retention.plan([this] { return analyze_now(); });
  retention.apply(plan);
  return plan;
}

RetentionPlan Pipeline::plan_eviction(Store& store, const Config& config) {
  return Retention(store, config.retention, now_ms()).plan();
}

RetentionPlan Pipeline::retention_after(bool wrote) {
  Retention retention(store_, config_.retention, now_ms());
  RetentionPlan plan = retention.plan([this] { return analyze_now(); },
                                      /*measure_when_needed=*/true,
                                      /*tier2_may_have_grown=*/wrote);
  retention.apply(plan);
  return plan;
}

// A failed push does not fail what came before: the next push resumes from the fleet's mark.
std::optional<PushStep> Pipeline::push_after(bool wrote) {
  if (!wrote || config_.fleet.cadence != "after-sweep" || config_.fleet.connection.empty())
    return std::nullopt;
  PushStep step;
  PushOptions options;
  options.after_batch = [&](const PushReport& r) { step.report = r; };
  try {
    step.report = push_to_fleet(store_, config_.fleet, options);
  } catch (const PushBusy& e) {
    step.problem = e.what();
    step.busy = true;
  } catch (const std::exception& e) {
    step.problem = e.what();
  }
  return step;
}

// The hard-cap pass digests every analyzable session before it would evict un-analyzed data.
int64_t Pipeline::analyze_now() { return run_digests(store_, plugins_, config_).sessions_digested; }

}  // namespace helix

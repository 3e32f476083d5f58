#include "cli/cmd_retention.hpp"

#include "base/clock.hpp"
#include "cli/exit_codes.hpp"

#include "app/pipeline.hpp"
#include "retention/retention.hpp"
#include "store/eviction.hpp"

#include <fmt/format.h>
#include <chrono>
#include <iostream>

namespace helix {
namespace po = boost::program_options;

namespace {

boost::json::object plan_json(const RetentionPlan& plan, bool dry_run) {
  boost::json::array steps;
  for (const auto& s : plan.steps)
    steps.push_back({{"session_uid", s.session_uid},
                     {"pass", s.pass},
                     {"bytes", s.bytes},
                     {"analyzed", s.analyzed}});
  return {{"dry_run", dry_run},
          {"tier1_bytes", plan.tier1_bytes},
          {"tier2_bytes", plan.tier2_bytes},
          {"raw_soft_cap_bytes", plan.soft_cap},
          {"raw_hard_cap_bytes", plan.hard_cap},
          {"distilled_cap_bytes", plan.distilled_cap},
          {"planned_bytes", plan.planned_bytes()},
          {"analyzed_now", plan.analyzed_now},
          {"over_hard_cap_after", plan.over_hard_cap_after},
          {"tier2_over_cap", plan.tier2_over_cap},
          {"steps", std::move(steps)}};
}

void print_plan(const RetentionPlan& plan, bool dry_run) {
  std::cout << fmt::format("{}: tier 1 {} (soft cap {}, hard cap {}), tier 2 {} (cap {})\n",
                           dry_run ? "evict --dry-run" : "evict", human_bytes(plan.tier1_bytes),
                           human_bytes(plan.soft_cap), human_bytes(plan.hard_cap),
                           human_bytes(plan.tier2_bytes), human_bytes(plan.distilled_cap));
  for (const auto& s : plan.steps)
    std::cout << fmt::format("  {:<9} {:>10}  {}{}\n", s.pass, human_bytes(s.bytes), s.session_uid,
                             s.analyzed ? "" : "  (NOT ANALYZED: data loss)");
  std::cout << fmt::format("  {} sessions, {} {}\n", plan.steps.size(),
                           human_bytes(plan.planned_bytes()), dry_run ? "would be freed" : "freed");
  if (plan.over_hard_cap_after)
    std::cout << "  still above raw_hard_cap_bytes: the rest is being written now or cannot be "
                 "evicted\n";
  if (plan.tier2_over_cap)
    std::cout << "  tier 2 is above distilled_cap_bytes: review the digests (they are never "
                 "dropped automatically)\n";
}

}  // namespace

void report_losses(const RetentionPlan& plan) {
  for (const auto& m : data_loss_messages(plan)) std::cerr << "helix-host: " << m << "\n";
}

int cmd_evict(const Globals& g, const std::vector<std::string>& args) {
  po::options_description opts("evict options");
  opts.add_options()("dry-run", "print the plan, change nothing")("json", "the plan as JSON");
  auto vm = parse_command(args, opts);
  const bool dry_run = vm.count("dry-run") > 0;
  Config config = load_config(g.config_file);
  Store store(store_file(g, config), /*read_only=*/dry_run);
  RetentionPlan plan;
  if (dry_run) {
    plan = Pipeline::plan_eviction(store, config);  // analysis would write: planned without it
  } else {
    PluginRegistry registry;
    load_plugins(registry, g, config);
    plan = Pipeline(store, registry, config).evict_now();
    report_losses(plan);
  }
  if (vm.count("json"))
    std::cout << boost::json::serialize(plan_json(plan, dry_run)) << "\n";
  else
    print_plan(plan, dry_run);
  return kExitOk;
}

std::vector<std::string> data_loss_messages(const RetentionPlan& plan) {
  std::vector<std::string> out;
  for (const auto& s : plan.steps)
    if (!s.analyzed)
      out.push_back(
          fmt::format("session_memory.data_loss: evicted {} of raw data of {} before "
                      "it was analyzed (above raw_hard_cap_bytes)",
                      human_bytes(s.bytes), s.session_uid));
  return out;
}

void print_retention_step(const RetentionPlan& plan, bool quiet) {
  report_losses(plan);
  if (!quiet && (!plan.steps.empty() || plan.tier2_over_cap))
    std::cout << fmt::format("  retention: evicted {} sessions ({}){}\n", plan.steps.size(),
                             human_bytes(plan.planned_bytes()),
                             plan.tier2_over_cap ? "; tier 2 is above distilled_cap_bytes" : "");
}

void add_retention_status(boost::json::object& status, Store& store, const Config& config,
                          int64_t tier2_bytes) {
  Retention retention(store, config.retention, now_ms());
  status["raw_soft_cap_bytes"] = config.retention.raw_soft_cap_bytes;
  status["raw_hard_cap_bytes"] = config.retention.raw_hard_cap_bytes;
  status["distilled_cap_bytes"] = config.retention.distilled_cap_bytes;
  status["analyzed_sessions"] = analyzed_session_count(store);
  status["evicted_sessions"] = evicted_session_count(store);
  status["evictable_bytes"] = retention.evictable_bytes();
  status["data_loss_events"] = data_loss_event_count(store);
  status["tier2_over_cap"] = tier2_bytes > config.retention.distilled_cap_bytes;
}

}  // namespace helix

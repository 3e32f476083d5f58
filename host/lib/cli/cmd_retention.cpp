#include "cli/cmd_retention.hpp"
#include "cli/terminal.hpp"

#include "base/clock.hpp"
#include "base/json_text.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"

#include "app/pipeline.hpp"
#include "retention/retention.hpp"
#include "store/eviction.hpp"

#include <fmt/format.h>
#include <chrono>
#include <iostream>
#include <map>

namespace helix {
namespace po = boost::program_options;

namespace {

// Why the plan keeps or drops one session's raw data: what --dry-run explains.
struct Verdict {
  enum Kind { dropped, active, not_analyzed, kept_under_budget };
  std::string uid, reason;
  int64_t bytes = 0;
  Kind kind = kept_under_budget;
  bool evicted() const { return kind == dropped; }
};

std::string pass_reason(const EvictionStep& s, const RetentionConfig& config) {
  if (s.pass == "backstop")
    return fmt::format("analyzed, and its raw copy is older than raw_max_age_days ({})",
                       config.raw_max_age_days);
  if (s.pass == "budget") return "analyzed, and tier 1 is above raw_soft_cap_bytes";
  return "NOT ANALYZED: tier 1 is above raw_hard_cap_bytes (data loss)";
}

// Every session that still holds raw data, with the reason the plan drops or keeps it.
std::vector<Verdict> verdicts(Store& store, const RetentionPlan& plan, const Config& config) {
  std::map<std::string, const EvictionStep*> planned;
  for (const auto& s : plan.steps) planned[s.session_uid] = &s;
  std::vector<Verdict> out;
  const int64_t now = now_ms();
  for (bool analyzed : {true, false})
    for (const auto& c : eviction_candidates(store, analyzed, INT64_MAX)) {
      Verdict v{c.uid, "", c.bytes};
      if (planned.count(c.uid)) {
        v.kind = Verdict::dropped;
        v.reason = pass_reason(*planned[c.uid], config.retention);
      } else if (now - c.last_activity < kQuietPeriodMs) {
        v.kind = Verdict::active;
        v.reason = fmt::format("active {} min ago: a session written within the hour is kept",
                               (now - c.last_activity) / 60000);
      } else if (!analyzed) {
        v.kind = Verdict::not_analyzed;
        v.reason = "not analyzed yet: the next sweep digests it first";
      } else {
        v.reason = fmt::format(
            "analyzed; tier 1 is within raw_soft_cap_bytes and the copy is younger than {} days",
            config.retention.raw_max_age_days);
      }
      out.push_back(std::move(v));
    }
  return out;
}

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

void print_plan(const RetentionPlan& plan, bool dry_run, const std::vector<Verdict>& why) {
  std::cout << fmt::format("{}: tier 1 {} (soft cap {}, hard cap {}), tier 2 {} (cap {})\n",
                           dry_run ? "evict --dry-run" : "evict", human_bytes(plan.tier1_bytes),
                           human_bytes(plan.soft_cap), human_bytes(plan.hard_cap),
                           human_bytes(plan.tier2_bytes), human_bytes(plan.distilled_cap));
  if (why.empty())
    for (const auto& s : plan.steps)
      std::cout << fmt::format("  {:<9} {:>10}  {}{}\n", s.pass, human_bytes(s.bytes),
                               s.session_uid, s.analyzed ? "" : "  (NOT ANALYZED: data loss)");
  for (const auto& v : why)
    std::cout << fmt::format("  {:<5} {:>10}  {}\n        {}\n", v.evicted() ? "drop" : "keep",
                             human_bytes(v.bytes), v.uid, v.reason);
  std::cout << fmt::format("  {} sessions, {} {}\n", plan.steps.size(),
                           human_bytes(plan.planned_bytes()), dry_run ? "would be freed" : "freed");
  if (plan.over_hard_cap_after) {
    std::size_t active = 0, unanalyzed = 0;
    for (const auto& v : why) {
      active += v.kind == Verdict::active;
      unanalyzed += v.kind == Verdict::not_analyzed;
    }
    std::cout << fmt::format(
        "  still above raw_hard_cap_bytes after it: {} sessions active within the hour and {} "
        "not analyzed yet are kept{}\n",
        active, unanalyzed, dry_run ? " (a real evict digests those first)" : "");
  }
  if (plan.tier2_over_cap)
    std::cout << "  tier 2 is above distilled_cap_bytes: review the digests (they are never "
                 "dropped automatically)\n";
}

}  // namespace

void report_losses(const RetentionPlan& plan) {
  for (const auto& m : data_loss_messages(plan)) print_message(m);
}

int cmd_evict(const Globals& g, const std::vector<std::string>& args) {
  auto vm = parse_command("evict", args);
  const bool dry_run = vm.count("dry-run") > 0;
  Config config = load_configuration(g);
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
  const auto why = dry_run ? verdicts(store, plan, config) : std::vector<Verdict>{};
  if (vm.count("json")) {
    auto out = plan_json(plan, dry_run);
    if (dry_run) {
      boost::json::array sessions;
      for (const auto& v : why)
        sessions.push_back({{"session_uid", v.uid},
                            {"bytes", v.bytes},
                            {"evicted", v.evicted()},
                            {"reason", v.reason}});
      out["sessions"] = std::move(sessions);
    }
    std::cout << to_json(out) << "\n";
  } else
    print_plan(plan, dry_run, why);
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

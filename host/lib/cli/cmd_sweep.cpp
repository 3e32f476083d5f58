// helix-host sweep: the pipeline over every source, and what each of its steps did.
#include "app/pipeline.hpp"
#include "base/json_text.hpp"
#include "base/suggest.hpp"
#include "cli/cmd_digest.hpp"
#include "cli/cmd_fleet.hpp"
#include "cli/cmd_retention.hpp"
#include "cli/cmd_sessions.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/sweep_summary.hpp"
#include "cli/terminal.hpp"
#include "store/sweep_lock.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <iostream>

namespace helix {
namespace {

void print_sweep_step(const SweepReport& r, const std::filesystem::path& db_file, bool quiet) {
  if (!quiet) {
    std::cout << fmt::format(
        "sweep: {} sources ({} new, {} changed, {} unchanged, {} rewritten, {} unclaimed, "
        "{} missing, {} failed)\n",
        r.sources_seen, r.sources_new, r.sources_changed, r.sources_unchanged, r.sources_rewritten,
        r.sources_unclaimed, r.sources_missing, r.sources_failed);
    std::cout << fmt::format(
        "  sessions touched {}, events added {} ({} copies skipped), usage "
        "records {}\n",
        r.sessions_touched.size(), r.events_added, r.copies_skipped, r.usage_records);
    if (r.events_unchanged + r.events_replaced + r.events_removed > 0)
      std::cout << fmt::format(
          "  documents read whole again: events unchanged {}, replaced {}, removed {} "
          "(new ones are in events added; kept events keep their seq)\n",
          r.events_unchanged, r.events_replaced, r.events_removed);
    std::cout << fmt::format("  read {} in {:.2f} s into {}\n", human_bytes(r.bytes_read),
                             r.seconds, db_file.string());
    if (r.sources_quarantined + r.sources_still_quarantined + r.sources_orphaned +
            r.sources_reparsed >
        0)
      std::cout << fmt::format(
          "  quarantined {} ({} new), orphaned {}, re-parsed for a new adapter version {}\n",
          r.sources_quarantined + r.sources_still_quarantined, r.sources_quarantined,
          r.sources_orphaned, r.sources_reparsed);
    if (r.paths_refused > 0)
      std::cout << fmt::format(
          "  refused {} (credential files, links out of the roots, unreadable folders: named "
          "below)\n",
          r.paths_refused);
    if (!r.warnings_by_category.empty()) {
      std::cout << "  warnings:";
      for (const auto& [category, n] : r.warnings_by_category)
        std::cout << fmt::format(" {} {}", category, n);
      std::cout << " ('helix-host warnings' lists them)\n";
    }
  }
  for (const auto& p : r.problems) print_message(p);
}

// Each --reparse name is a loaded adapter plugin's.
void check_reparse_names(const PluginRegistry& registry, const std::vector<std::string>& names) {
  for (const auto& name : names)
    if (const PluginInfo* p = registry.find(name); !p || !p->adapter) {
      std::vector<std::string> adapters;
      for (const auto& a : registry.loaded())
        if (a.adapter) adapters.push_back(a.name);
      throw UsageError(fmt::format("--reparse {}: no adapter plugin of that name is loaded{}", name,
                                   did_you_mean(name, adapters)));
    }
}

}  // namespace

boost::json::object sweep_summary_json(const PipelineReport& report,
                                       const std::filesystem::path& file) {
  const SweepReport& s = report.sweep;
  boost::json::object warnings;
  for (const auto& [category, n] : s.warnings_by_category) warnings[category] = n;
  boost::json::object digested;
  for (const auto& [name, n] : report.digest.by_digester) digested[name] = n;
  boost::json::value retention = nullptr;
  if (report.retention)
    retention = {{"sessions_evicted", static_cast<int64_t>(report.retention->steps.size())},
                 {"bytes_freed", report.retention->planned_bytes()},
                 {"tier2_over_cap", report.retention->tier2_over_cap}};
  boost::json::value push = nullptr;  // the after-sweep push ([fleet] push = "after-sweep")
  if (report.push)
    push = {{"sessions", report.push->report.sessions},
            {"events", report.push->report.events},
            {"bytes", report.push->report.bytes},
            {"problem", report.push->problem.empty() ? boost::json::value(nullptr)
                                                     : boost::json::value(report.push->problem)},
            {"busy", report.push->busy}};
  return {{"store", file.string()},
          {"sources",
           {{"seen", s.sources_seen},
            {"new", s.sources_new},
            {"changed", s.sources_changed},
            {"unchanged", s.sources_unchanged},
            {"rewritten", s.sources_rewritten},
            {"unclaimed", s.sources_unclaimed},
            {"missing", s.sources_missing},
            {"failed", s.sources_failed},
            {"quarantined", s.sources_quarantined + s.sources_still_quarantined},
            {"newly_quarantined", s.sources_quarantined},
            {"orphaned", s.sources_orphaned},
            {"reparsed", s.sources_reparsed}}},
          {"sessions_touched", static_cast<int64_t>(s.sessions_touched.size())},
          {"events_added", s.events_added},
          {"copies_skipped", s.copies_skipped},
          {"usage_records", s.usage_records},
          {"bytes_read", s.bytes_read},
          {"seconds", s.seconds},
          {"warnings", std::move(warnings)},
          {"sessions_digested", report.digest.sessions_digested},
          {"digested_by", std::move(digested)},
          {"retention", std::move(retention)},
          {"push", std::move(push)},
          {"problems", boost::json::value_from(s.problems)}};
}

int cmd_sweep(const Globals& g, const std::vector<std::string>& args) {
  auto vm = parse_command("sweep", args);
  SweepOptions options;
  options.retry_quarantined = vm.count("retry-quarantined") > 0;
  if (vm.count("reparse")) options.reparse = vm["reparse"].as<std::vector<std::string>>();
  Config config = load_configuration(g);
  PluginRegistry registry;
  load_adapter_plugins(registry, g, config);
  check_reparse_names(registry, options.reparse);
  auto db_file = store_file(g, config);
  SweepLock lock(db_file);
  if (!lock.acquired()) {
    std::cerr << fmt::format(
        "helix-host: another sweep is running on {}; try again when it "
        "has finished\n",
        db_file.string());
    return kExitBusy;
  }
  Store store(db_file);
  const bool json = vm.count("json") > 0;
  const bool quiet = vm.count("quiet") > 0 || json;
  const bool live = ::isatty(STDERR_FILENO) && !quiet;
  Pipeline pipeline(store, registry, config);
  const PipelineReport report = pipeline.sweep_all(
      [&](std::size_t done, std::size_t total, const std::string&) {
        if (live && (done % 16 == 0 || done == total))
          std::cerr << fmt::format("\rhelix: swept {}/{} sources", done, total) << std::flush;
        if (live && done == total) std::cerr << "\n";
      },
      options);
  print_sweep_step(report.sweep, db_file, quiet);
  print_digest_step(report.digest, quiet);
  if (report.retention) print_retention_step(*report.retention, quiet);
  if (report.push) {  // a failed push does not fail the sweep
    if (!report.push->problem.empty())
      std::cerr << "helix-host: " << push_step_line(*report.push) << "\n";
    else if (!quiet)
      std::cout << "  " << push_step_line(*report.push) << "\n";
  }
  if (json) std::cout << to_json(sweep_summary_json(report, db_file)) << "\n";
  const SweepReport& r = report.sweep;
  if (r.store_failures > 0) return kExitStoreFailed;
  return r.sources_quarantined + r.sources_still_quarantined > 0 ? kExitQuarantined : kExitOk;
}

}  // namespace helix

// The retention commands: `evict [--dry-run]`, the retention step of a sweep, and what
// `status` reports about budgets and evictions.
#pragma once

#include "cli/cli_support.hpp"
#include "retention/retention.hpp"
#include "store/store.hpp"

#include <boost/json.hpp>
#include <string>
#include <vector>

namespace helix {

int cmd_evict(const Globals& g, const std::vector<std::string>& args);

// The passes of §5.2 carried out, with "analyze now" = a digest run; returns what was done.
// `wrote` = the sweep before it stored or digested something (else Tier 2 is not measured).
RetentionPlan run_retention(Store& store, const PluginRegistry& plugins, const Config& config,
                            bool wrote = true);
// One line per session evicted before it was analyzed (the hard-cap path), for a log or stderr.
std::vector<std::string> data_loss_messages(const RetentionPlan& plan);
// Prints data_loss_messages to stderr.
void report_losses(const RetentionPlan& plan);
// After a sweep's digest step: run_retention, then what it did on stdout (unless quiet).
void retention_after_sweep(Store& store, const PluginRegistry& plugins, const Config& config,
                           bool quiet, bool wrote);

// Adds raw_soft_cap_bytes, raw_hard_cap_bytes, distilled_cap_bytes, analyzed_sessions,
// evicted_sessions, evictable_bytes, data_loss_events and tier2_over_cap to `status`.
// `tier2_bytes`: Store::status's measure (dbstat reads every page: measured once per command).
void add_retention_status(boost::json::object& status, Store& store, const Config& config,
                          int64_t tier2_bytes);

}  // namespace helix

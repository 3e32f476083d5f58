// The retention commands: `evict [--dry-run]`, what a sweep prints of its retention step, and
// what `status` reports about budgets and evictions.
#pragma once

#include "cli/cli_support.hpp"
#include "retention/retention.hpp"
#include "store/store.hpp"

#include <boost/json.hpp>
#include <string>
#include <vector>

namespace helix {

int cmd_evict(const Globals& g, const std::vector<std::string>& args);

// One line per session evicted before it was analyzed (the hard-cap path), for a log or stderr.
std::vector<std::string> data_loss_messages(const RetentionPlan& plan);
// Prints data_loss_messages to stderr.
void report_losses(const RetentionPlan& plan);
// What a sweep's retention step did: losses on stderr, evictions on stdout (unless quiet).
void print_retention_step(const RetentionPlan& plan, bool quiet);

// Adds raw_soft_cap_bytes, raw_hard_cap_bytes, distilled_cap_bytes, analyzed_sessions,
// evicted_sessions, evictable_bytes, data_loss_events and tier2_over_cap to `status`.
// `tier2_bytes`: Store::status's measure (dbstat reads every page: measured once per command).
void add_retention_status(boost::json::object& status, Store& store, const Config& config,
                          int64_t tier2_bytes);

}  // namespace helix

// The usage dashboard for a date range: cost and tokens per day by flavor and by model, sessions
// per repository, outcomes, the most frequent errors and tools, and every session in a
// sortable table linking to its transcript page. All of it from Tier 2 (usage_days, digests)
// and the session rows, so it stays right after raw data is evicted.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "store/digest_store.hpp"
#include "store/store.hpp"

namespace helix {

struct ReportSession {
  SessionRow session;
  double cost_usd = 0;
  std::string page;  // its transcript page, relative to the dashboard ("" = none)
};

struct ErrorGroup {
  std::string fingerprint, sample, tool;
  int64_t count = 0, sessions = 0;
};

struct Dashboard {
  std::string since_day, until_day;                    // YYYY-MM-DD, inclusive
  std::vector<UsageCell> usage;                        // the days of the range
  std::vector<ReportSession> sessions;                 // active in the range, newest first
  std::vector<ErrorGroup> errors;                      // most frequent first
  std::vector<std::pair<std::string, int64_t>> tools;  // most called first
  std::vector<std::string> unpriced_models;            // models with tokens and no price
};

// Gathers the range's figures; `digester` is the primary digester (outcomes, errors, tools).
Dashboard gather_dashboard(Store& store, const std::string& since_day, const std::string& until_day,
                           const std::string& digester);

// The dashboard page (self-contained: charts are inline SVG, the table sorts with an inline
// script and reads without it).
std::string html_dashboard(const Dashboard& d);

}  // namespace helix

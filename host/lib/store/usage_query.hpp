// The reads behind usage reports: usage_days rows (a session's tokens and cost per UTC day and
// model) with their session's facts, the usage ledger's single model calls priced one by one
// (for local days and 5-hour blocks), and the latest rate limit of each window.
#pragma once

#include "store/digest_store.hpp"
#include "store/store.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace helix {

// Which usage a report covers. Days are UTC days (YYYY-MM-DD, inclusive, "" = open).
struct UsageScope {
  std::string since_day, until_day, flavor, repo, session_uid;
  static UsageScope of_session(std::string uid) {
    UsageScope s;
    s.session_uid = std::move(uid);
    return s;
  }
};

struct UsageTokens {
  int64_t input = 0, output = 0, cache_creation = 0, cache_read = 0, reasoning = 0, calls = 0;
  double cost_usd = 0;                   // at the price book's prices
  std::optional<double> agent_cost_usd;  // what the agents reported; none when none did
  int64_t unpriced_tokens = 0;           // tokens of calls the book has no price for
  UsageTokens& operator+=(const UsageTokens& o);
  int64_t total() const { return input + output + cache_creation + cache_read; }
};

struct UsageDayRow {
  std::string session_uid, day, model, flavor, repo, title;
  int64_t started_at_ms = 0;
  UsageTokens tokens;
};

// usage_days rows in scope, in (day, session, model) order.
void for_each_usage_day(Store& store, const UsageScope& scope,
                        const std::function<void(const UsageDayRow&)>& visit);

struct UsageCall {
  std::string session_uid, model;
  int64_t ts_ms = 0;   // the call's time, else its session's start
  UsageTokens tokens;  // calls = 1
};

// The model calls of the usage ledger in scope whose time is in [since_ms, until_ms], oldest
// first, each priced with `prices` as usage_days are (a call that names no model, with its
// session's model).
void for_each_usage_call(Store& store, const UsageScope& scope, int64_t since_ms, int64_t until_ms,
                         UsagePricer& prices, const std::function<void(const UsageCall&)>& visit);

// The latest state of one window of a provider's rate limit (helix.rate_limits/1).
struct RateLimitState {
  std::string flavor, limit_id, window, session_uid;
  double used_percent = 0;
  int64_t window_minutes = 0, resets_at_ms = 0, reported_at_ms = 0;  // 0 = unknown
};

// The most recently reported state of each (flavor, limit, window), of `flavor` ("" = all),
// ordered by flavor, limit and window.
std::vector<RateLimitState> latest_rate_limits(Store& store, const std::string& flavor);

}  // namespace helix

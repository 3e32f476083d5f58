// The reads behind usage reports: usage_days rows (a session's tokens and cost per UTC day and
// model) with their session's facts, the usage ledger's single model calls with each call's
// share of its day's cost, and the models the digests could not price.
#pragma once

#include "store/store.hpp"

#include <cstdint>
#include <functional>
#include <map>
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
  double cost_usd = 0;
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
  UsageTokens tokens;  // calls = 1; cost_usd: its share of its usage_days row's cost
};

// The model calls of the usage ledger in scope whose time is in [since_ms, until_ms], oldest
// first. A call's cost is its share of its (session, UTC day, model) row's cost, in proportion
// to its tokens weighed by Anthropic's price ratios (input 1, output 5, cache write 1.25, cache
// read 0.1): exact for every model priced in those ratios, an apportioning otherwise.
void for_each_usage_call(Store& store, const UsageScope& scope, int64_t since_ms, int64_t until_ms,
                         const std::function<void(const UsageCall&)>& visit);

// The session's tokens and cost (its usage_days rows: the primary digest's prices).
UsageTokens session_usage_totals(Store& store, const std::string& uid);

// The models the `digester`'s digests of the sessions in scope name as unpriced, with how many
// sessions each.
std::map<std::string, int64_t> unpriced_models(Store& store, const std::string& digester,
                                               const UsageScope& scope);

}  // namespace helix

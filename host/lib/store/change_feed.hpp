// What changed in the store since a push's high-water mark, and each changed session's Tier 2
// rows: the reads `helix-host push` sends to the fleet database.
#pragma once

#include "store/digest_store.hpp"
#include "store/store.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace helix {

// A position in the store's change order: sessions ordered by their change stamp (the later of
// their last ingest and last digest, in ms), then by uid.
struct ChangeMark {
  int64_t version = 0;
  std::string uid;
};

// The next `limit` sessions after `after` in change order, as (change stamp, uid). A session
// changed again later moves past the mark, so it is listed again. Throws, naming the fix, on a
// store older than schema 11 (push reads the counters it keeps).
std::vector<ChangeMark> changed_sessions(Store& store, const ChangeMark& after, int64_t limit);

// Every digest of a session: session_digests (store/digest_store.hpp).

// The session's usage ledger per UTC day and model (every usage_days column), in (day, model)
// order.
struct UsageDayRow {
  std::string day, model;  // model "" when the records name none
  int64_t calls = 0, input_tokens = 0, output_tokens = 0, cache_read_tokens = 0,
          cache_creation_tokens = 0, reasoning_tokens = 0, unpriced_tokens = 0;
  std::optional<double> cost_usd;        // at the price book's prices; none when unpriced
  std::optional<double> agent_cost_usd;  // what the agent reported; none when it did not
};
std::vector<UsageDayRow> session_usage_ledger(Store& store, const std::string& uid);

}  // namespace helix

// What one parse call produced: records, payloads, warnings and the adapter's saved state.
#pragma once

#include "model/payload_pack.hpp"
#include "model/records.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace helix {

struct RecordBatch {
  std::vector<SessionRecord> sessions;
  std::vector<EventRecord> events;
  std::vector<UsageRecord> usage;
  std::vector<RateLimitRecord> rate_limits;
  std::vector<WarningRecord> warnings;
  std::vector<std::string> payloads;  // emptied once `packs` holds them
  // The batch's payload packs, compressed by the parsing thread so that the writing thread
  // only stores them; when absent, the store packs the batch itself.
  std::optional<BatchPacks> packs;
  std::optional<std::string> saved_state;     // set when the adapter called save_state()
  std::map<std::string, int64_t> redactions;  // secrets replaced, per native session id

  void clear() { *this = RecordBatch{}; }
};

}  // namespace helix

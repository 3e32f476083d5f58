// What one parse call produced: records, payloads, warnings and the adapter's saved state.
#pragma once

#include "records.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace helix {

struct RecordBatch {
  std::vector<SessionRecord> sessions;
  std::vector<EventRecord> events;
  std::vector<UsageRecord> usage;
  std::vector<WarningRecord> warnings;
  std::vector<std::string> payloads;
  std::optional<std::string> saved_state;  // set when the adapter called save_state()
  std::map<std::string, int64_t> redactions;  // secrets replaced, per native session id

  void clear() { *this = RecordBatch{}; }
};

}  // namespace helix

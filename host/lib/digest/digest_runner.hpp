// The digest step of a sweep: runs the configured digester plugins over every session whose
// digest is missing or stale and stores the results (Tier 2).
#pragma once

#include "config/config.hpp"
#include "plugins/plugin_registry.hpp"
#include "store/store.hpp"

#include <map>
#include <string>
#include <vector>

namespace helix {

struct DigestReport {
  int64_t sessions_digested = 0;  // sessions whose digests were (re)written
  int64_t sessions_resumed = 0;   // of which kept sessions that grew, folded into a saved state
  int64_t repriced_sessions = 0;  // sessions whose costs changed because the price book did
  std::map<std::string, int64_t> by_digester;  // digests written per digester
  std::vector<std::string> problems;           // one line each, for the administrator
  double seconds = 0;
};

// A session is digested by a configured digester when it has no digest from it, when events
// arrived after that digest, or when the stored digest came from another major version of the
// plugin. A kept session that grew is resumed from the state its digest saved and streamed only
// the events after those (when none of those changed since, and the same plugin version wrote
// it); otherwise digested from its first event. A session whose raw data was evicted keeps its
// digest unless it grew since: then a digester that can resume folds the new events into the
// state saved at eviction.
DigestReport run_digests(Store& store, const PluginRegistry& plugins, const Config& config);

// The primary digester's name: the first of [digest] digesters ("" when the list is empty).
std::string primary_digester(const Config& config);

}  // namespace helix

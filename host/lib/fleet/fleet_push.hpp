// helix-host push: the sessions that changed in the local store since this host's high-water
// mark, with their digests, usage ledger and (when configured) redacted events, sent to the
// fleet database in batches that each commit together with the advanced mark.
#pragma once

#include "config/fleet_config.hpp"
#include "store/change_feed.hpp"
#include "store/store.hpp"

#include <functional>
#include <stdexcept>
#include <string>

namespace helix {

// Another push of this host holds the host's lock in the fleet database.
class PushBusy : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct PushReport {
  std::string team, host_id, host_name, member;
  int64_t sessions = 0;   // changed sessions written to the fleet
  int64_t unchanged = 0;  // listed since the mark, but the fleet already held that version
  int64_t digests = 0, usage_rows = 0, events = 0, batches = 0;
  int64_t bytes = 0;  // COPY data sent
  double seconds = 0;
  ChangeMark mark;  // the high-water mark the fleet holds for this host now
};

struct PushOptions {
  bool full = false;  // ignore the mark: offer every session again (rewrites what differs)
  std::function<void(const PushReport&)> after_batch;  // progress, after each commit
};

// Pushes from `store` as `config` says. Each batch (config.batch_sessions sessions, fewer when
// their events are large) is one transaction that replaces those sessions' rows and moves the
// mark, so an interrupted push (a kill, a lost connection) leaves whole batches behind and the
// next push resumes after the last one. Throws PushBusy, pg::Error (connection_lost() when the
// server went away) or std::runtime_error with what to fix.
PushReport push_to_fleet(Store& store, const FleetConfig& config, const PushOptions& options);

}  // namespace helix

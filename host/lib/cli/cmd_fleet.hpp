// The team memory commands: push, fleet migrate|grant, and the --fleet side of sessions, show
// and search (usage --fleet is in cmd_digest). See docs/operations.md, Team memory.
#pragma once

#include "cli/cli_support.hpp"
#include "config/config.hpp"
#include "store/search_query.hpp"
#include "store/store.hpp"

#include <boost/program_options.hpp>
#include <string>
#include <vector>

namespace helix {

// Exit code of push when another push of this host is running (as for a busy sweep).
int cmd_push(const Globals& g, const std::vector<std::string>& args);
int cmd_fleet(const Globals& g, const std::vector<std::string>& args);

// sessions --fleet, show --fleet, search --fleet: the command's parsed options.
int fleet_sessions(const Config& config, const boost::program_options::variables_map& vm,
                   const SessionFilter& filter);
int fleet_show(const Config& config, const std::string& uid, const std::string& host_id, bool json,
               bool bodies);
int fleet_search(const Config& config, const SearchQuery& query, bool json);

// What a push after a write did (sweep, hook): with [fleet] cadence = "after-sweep" it ran and
// `line` is its report, or the reason it stopped (`ok` false; the next push resumes).
struct PushOutcome {
  bool ran = false, ok = false;
  std::string line;
};
PushOutcome push_after_write(Store& store, const Config& config);

// After a sweep that wrote something: push_after_write, its line printed (on stderr when it
// failed, which does not fail the sweep).
void push_after_sweep(Store& store, const Config& config, bool quiet);

}  // namespace helix

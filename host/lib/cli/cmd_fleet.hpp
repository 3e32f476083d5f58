// The team memory commands: push, fleet migrate|grant, and the --fleet side of sessions, show
// and search (usage --fleet is in cmd_digest). See docs/operations.md, Team memory.
#pragma once

#include "app/pipeline.hpp"
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

// The pipeline's push step as one line: the report, or why it stopped.
std::string push_step_line(const PushStep& step);

}  // namespace helix

// The team memory commands: push, fleet migrate|grant, and the --fleet side of sessions, show
// and search (usage --fleet is in cmd_usage). See docs/operations.md, Team memory.
#pragma once

#include "app/pipeline.hpp"
#include "cli/cli_support.hpp"
#include "config/config.hpp"
#include "store/search_query.hpp"

#include <boost/program_options.hpp>
#include <string>
#include <vector>

namespace helix {

int cmd_push(const Globals& g, const std::vector<std::string>& args);
int cmd_fleet(const Globals& g, const std::vector<std::string>& args);

// sessions --fleet, show --fleet, search --fleet, from the command's parsed options. They read
// the fleet database only: the local store need not exist.
int fleet_sessions(const Globals& g, const Config& config,
                   const boost::program_options::variables_map& vm);
int fleet_show(const Globals& g, const Config& config,
               const boost::program_options::variables_map& vm);
int fleet_search(const Globals& g, const Config& config,
                 const boost::program_options::variables_map& vm, const std::string& text);

// The pipeline's push step as one line: the report, or why it stopped.
std::string push_step_line(const PushStep& step);

}  // namespace helix

// helix-host watch: the resident sweep (app/watch.hpp) as a command, stopped by SIGTERM or
// SIGINT.
#pragma once

#include "cli/cli_support.hpp"

#include <string>
#include <vector>

namespace helix {

int cmd_watch(const Globals& g, const std::vector<std::string>& args);

}  // namespace helix

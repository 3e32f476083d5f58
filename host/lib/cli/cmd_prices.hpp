// The price book command: prices [--json], prices import FILE, prices forget.
#pragma once

#include "cli/cli_support.hpp"

#include <string>
#include <vector>

namespace helix {

int cmd_prices(const Globals& g, const std::vector<std::string>& args);

}  // namespace helix

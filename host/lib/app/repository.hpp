// The repository a directory belongs to, attributed exactly as a sweep attributes a session's
// working directory: for the MCP server, which answers about the repository its agent runs in.
#pragma once

#include <string>

#include "config/config.hpp"

namespace helix {

std::string repository_of(const Config& config, const std::string& dir);

}  // namespace helix

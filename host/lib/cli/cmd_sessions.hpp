// The commands that read the store and the setup: sweep, sessions, show, status, warnings,
// plugins and config.
#pragma once

#include "cli/cli_support.hpp"

#include <boost/json.hpp>
#include <string>
#include <vector>

namespace helix {

int cmd_sweep(const Globals& g, const std::vector<std::string>& args);
int cmd_sessions(const Globals& g, const std::vector<std::string>& args);
int cmd_show(const Globals& g, const std::vector<std::string>& args);
int cmd_status(const Globals& g, const std::vector<std::string>& args);
int cmd_warnings(const Globals& g, const std::vector<std::string>& args);
int cmd_plugins(const Globals& g, const std::vector<std::string>& args);
int cmd_config(const Globals& g, const std::vector<std::string>& args);

// A readable summary of a digest document (what `digest` prints and `show` shows for an evicted
// session), each line indented by `indent`, cut to `width` display cells (0 = no limit).
std::string digest_summary(const boost::json::object& digest, std::size_t width,
                           std::string_view indent);

}  // namespace helix

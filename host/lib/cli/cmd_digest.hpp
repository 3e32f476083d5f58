// The Tier 2 commands: digest <uid>, env <uid>, usage; and the digest step of a sweep.
#pragma once

#include "cli/cli_support.hpp"
#include "config/config.hpp"
#include "plugins/plugin_registry.hpp"
#include "store/store.hpp"

#include <string>
#include <vector>

namespace helix {

int cmd_digest(const Globals& g, const std::vector<std::string>& args);
int cmd_env(const Globals& g, const std::vector<std::string>& args);
int cmd_usage(const Globals& g, const std::vector<std::string>& args);

// Runs the configured digesters after a sweep and prints what they digested (unless quiet);
// problems go to stderr. Returns how many sessions were digested.
int64_t digest_after_sweep(Store& store, const PluginRegistry& plugins, const Config& config,
                           bool quiet);

}  // namespace helix

// The Tier 2 commands: digest, env, usage (cmd_usage.cpp) and statusline; and what a sweep
// prints of its digest step.
#pragma once

#include "cli/cli_support.hpp"
#include "config/config.hpp"
#include "digest/digest_runner.hpp"
#include "plugins/plugin_registry.hpp"
#include "store/store.hpp"

#include <string>
#include <vector>

namespace helix {

int cmd_digest(const Globals& g, const std::vector<std::string>& args);
int cmd_env(const Globals& g, const std::vector<std::string>& args);
int cmd_usage(const Globals& g, const std::vector<std::string>& args);
// Claude Code's status line: today's cost, the session's and the active 5-hour block's.
int cmd_statusline(const Globals& g, const std::vector<std::string>& args);

// What a sweep's digest step did: a line on stdout (unless quiet), problems on stderr.
void print_digest_step(const DigestReport& report, bool quiet);

}  // namespace helix

// `helix-host hook <flavor>`: push capture from an agent's own hooks (design document §7).
#pragma once

#include "cli/cli_support.hpp"

#include <string>
#include <vector>

namespace helix {

// Reads the hook event (JSON on stdin, or as the last argument as Codex's `notify` passes it),
// finds that session's files and ingests them through the ordinary sweep pipeline. Always
// returns 0: a hook must never fail or hold up the agent. Problems go to <store dir>/hook.log.
int cmd_hook(const Globals& g, const std::vector<std::string>& args);

// `hooks install|uninstall AGENT`: edits the agent's settings (cmd_hooks.cpp).
int cmd_hooks(const Globals& g, const std::vector<std::string>& args);

}  // namespace helix

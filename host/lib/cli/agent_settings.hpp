// Editing an agent's own settings so that it calls `helix-host hook`: which file each agent
// reads, the change that installs or removes helix's hook in it, and a line diff to show it.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace helix {

// The settings file `agent` (claude, codex, grok, gemini) reads: Claude Code
// $CLAUDE_CONFIG_DIR/settings.json (~/.claude), Codex $CODEX_HOME/config.toml (~/.codex),
// Grok Build $GROK_HOME/hooks/helix.json (~/.grok; a file of helix's own), Gemini CLI
// ~/.gemini/settings.json.
std::filesystem::path agent_settings_file(std::string_view agent);

// The settings text with helix's hook (`hook_command`, e.g. "/usr/bin/helix-host hook claude")
// added or removed; unchanged when it is already so (idempotent). Throws std::runtime_error
// when the file cannot be read as the agent's format, or when Codex's single `notify` program
// is already something else (the message says how to chain it).
std::string with_hook(std::string_view agent, std::string_view settings,
                      std::string_view hook_command);
std::string without_hook(std::string_view agent, std::string_view settings);

// A unified-style line diff of `before` and `after` ("" when equal).
std::string line_diff(std::string_view before, std::string_view after, std::string_view name);

}  // namespace helix

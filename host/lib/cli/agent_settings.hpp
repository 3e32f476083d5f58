// Editing an agent's own settings so that it calls helix: which files each agent reads, the
// changes that install or remove helix's hook (`helix-host hook`) and its MCP server entry
// (`helix-host mcp`) in them, and a line diff to show a change.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace helix {

// The settings file `agent` (claude, codex, grok, gemini) reads: Claude Code
// $CLAUDE_CONFIG_DIR/settings.json (~/.claude), Codex $CODEX_HOME/config.toml (~/.codex),
// Grok Build $GROK_HOME/hooks/helix.json (~/.grok; a file of helix's own), Gemini CLI
// $GEMINI_CLI_HOME/.gemini/settings.json (~/.gemini).
std::filesystem::path agent_settings_file(std::string_view agent);

// The settings text with helix's hook (`hook_command`, e.g. "/usr/bin/helix-host hook claude")
// added or removed; unchanged when it is already so (idempotent). Throws std::runtime_error
// when the file cannot be read as the agent's format, or when Codex's single `notify` program
// is already something else (the message says how to chain it).
std::string with_hook(std::string_view agent, std::string_view settings,
                      std::string_view hook_command);
std::string without_hook(std::string_view agent, std::string_view settings);

// The file holding `agent`'s user-wide MCP servers: Claude Code ~/.claude.json (what `claude mcp
// add --scope user` writes; $CLAUDE_CONFIG_DIR/.claude.json when that is set), Codex
// $CODEX_HOME/config.toml, Grok Build $GROK_HOME/config.toml, Gemini CLI its settings.json.
std::filesystem::path agent_mcp_file(std::string_view agent);

// The config text with helix's MCP server (named "helix", running `argv`, e.g.
// {"/usr/bin/helix-host", "mcp"}) added or removed; unchanged when it is already so. An existing
// "helix" entry of helix-host's own is replaced; one of another program is never touched (throws
// std::runtime_error, as for a file that cannot be read as the agent's format).
std::string with_mcp_server(std::string_view agent, std::string_view config,
                            const std::vector<std::string>& argv);
std::string without_mcp_server(std::string_view agent, std::string_view config);

// A unified diff of `before` and `after`, three lines of context around each change ("" when
// equal).
std::string line_diff(std::string_view before, std::string_view after, std::string_view name);

}  // namespace helix

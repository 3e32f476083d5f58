// Which files hold one agent session, for push capture: an agent's hook names a session, and
// only files discovery would read anyway are ingested for it.
#pragma once

#include "config/config.hpp"
#include "plugins/plugin_registry.hpp"

#include <string>
#include <vector>

namespace helix {

// The session's sources: the discovered files of this flavor whose path names the session
// (Claude <id>.jsonl and <id>/subagents/**, Codex rollout-…-<id>.jsonl, Grok <cwd>/<id>/…; a
// flavor whose file names hold only the id's first characters says how many in helix.hook/1)
// or that are the transcript the agent named, and the companion files the adapter declares
// beside a session's directory. Only discovered files: never a path from the event alone, so a
// hook cannot make helix read a file it would not read anyway.
// Throws std::runtime_error when no loaded adapter reads `flavor`.
std::vector<std::string> session_sources(const PluginRegistry& registry, const Config& config,
                                         const std::string& flavor, const std::string& session_id,
                                         const std::string& transcript_path);

}  // namespace helix

// Finds candidate source files: each adapter's roots (env override, config, defaults)
// walked with its glob patterns. Reads directory entries only, never file contents, and
// follows no symbolic link out of the adapter's roots (a link to a file inside them is listed
// as that file).
#pragma once

#include "config/config.hpp"
#include "model/source_cursor.hpp"
#include "plugins/plugin_registry.hpp"
#include "privacy/credential_files.hpp"

#include <string>
#include <vector>

namespace helix {

struct DiscoveredSource {
  std::string path;
  uint32_t layout = HELIX_LAYOUT_LINES;  // of the first adapter pattern that matched it
  // The file as discovery's stat saw it (ino 0: not stat'ed, e.g. a hook's path): a sweep
  // tells unchanged sources apart with it, without a second stat per file.
  FileIdentity identity;
};

// A credential file an adapter's patterns matched; it is refused by name and never opened.
struct RefusedCredential {
  std::string path, plugin;
};

// A path the walk did not take, and why (a link out of the agent's roots, an unreadable
// folder): every skip is named in the sweep's summary.
struct SkippedPath {
  std::string path, reason;
};

struct Discovery {
  std::vector<DiscoveredSource> sources;               // sorted by path
  std::vector<RefusedCredential> refused_credentials;  // sorted by path, then plugin
  std::vector<SkippedPath> skipped;                    // sorted by path
};

// The roots an adapter's sources live under: its environment variable (a comma list) when
// set, else [sources.<flavor>] roots from the config, else its built-in defaults.
std::vector<std::string> adapter_roots(const helix_adapter_vtable& adapter, const Config& config);

Discovery discover(const std::vector<const PluginInfo*>& adapters, const Config& config);

// Glob match of a relative path: '*' and '?' within a segment, "**" across segments.
bool glob_match(std::string_view pattern, std::string_view relative_path);

}  // namespace helix

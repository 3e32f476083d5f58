// helix-plugin-check: loads one plugin through the host's loader and checks, over sample files,
// what the host relies on (docs/sdk.md, section 9). A conformance kit in the spirit of
// clap-validator: every check prints PASS or FAIL with what it saw.
#pragma once

#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

namespace helix {

struct PluginCheckOptions {
  std::filesystem::path plugin;                // the libhelix_<name>.so to check
  std::vector<std::filesystem::path> samples;  // files (or directories of files) to parse
  std::string config_json = "{}";              // the plugin's configuration section
  uint64_t seed = 1;                           // of the random chunkings, cuts and damage
  int rounds = 20;                             // random chunkings / growth sequences per sample
  double min_mb_per_s = 1.0;                   // slower parsing fails the speed check
  double timeout_s = 10;                       // one parse call running longer is a hang
};

// Runs every check and prints the report to `out`. Returns the exit code: 0 when every check
// passed, 1 when one failed, 2 when the plugin could not be checked at all (refused, no
// samples for an adapter).
int run_plugin_check(const PluginCheckOptions& options, std::ostream& out);

}  // namespace helix

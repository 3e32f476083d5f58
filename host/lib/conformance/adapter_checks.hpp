// The checks helix-plugin-check runs for an adapter over one sample file: it claims the file,
// every record starts where it says, the output does not depend on how the host cuts the file
// into calls or on what the adapter saw before, each record arrives exactly once as the file
// grows, a torn document fails the call, damaged input never crashes or hangs it, and it is
// fast enough.
#pragma once

#include "conformance/check_report.hpp"
#include "conformance/plugin_check.hpp"
#include "plugins/plugin_registry.hpp"

#include <filesystem>

namespace helix {

// `explicit_sample`: named by the user, so the plugin must claim it; a file found in a
// directory the plugin does not claim is skipped.
void check_adapter_sample(const PluginInfo& plugin, const PluginCheckOptions& options,
                          const std::filesystem::path& sample, bool explicit_sample,
                          CheckReport& report);
// True when the file name matches the last segment of one of the plugin's patterns.
bool matches_a_pattern(const PluginInfo& plugin, const std::filesystem::path& path);

}  // namespace helix

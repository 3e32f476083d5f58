// The checks helix-plugin-check runs for a digester, over a made-up session with every event
// kind: it digests into one JSON object, the same session gives the same digest, damaged
// sessions never crash or hang it, and a resumable one resumes to the digest of the whole.
#pragma once

#include "conformance/check_report.hpp"
#include "conformance/plugin_check.hpp"
#include "plugins/plugin_registry.hpp"

namespace helix {

void check_digester(const PluginInfo& plugin, const PluginCheckOptions& options,
                    CheckReport& report);

}  // namespace helix

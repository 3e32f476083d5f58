// One live instance of a digester plugin: streams a stored session through it and returns the
// digest it reports, checked to be one JSON object.
#pragma once

#include "digest_store.hpp"
#include "plugin_registry.hpp"
#include "store.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace helix {

class DigesterInstance {
 public:
  // Throws std::runtime_error naming the plugin when its create() fails.
  DigesterInstance(const PluginInfo& plugin, std::string_view config_json = "{}");
  ~DigesterInstance();
  DigesterInstance(const DigesterInstance&) = delete;
  DigesterInstance& operator=(const DigesterInstance&) = delete;

  const PluginInfo& plugin() const { return plugin_; }

  // begin_session -> event* -> usage* -> end_session. Throws std::runtime_error with the
  // digester's message when it fails or reports something other than a JSON object.
  std::string digest(const SessionRow& session, const std::vector<EventRow>& events,
                     const std::vector<StoredUsage>& usage) const;

 private:
  const PluginInfo& plugin_;
  helix_digester* instance_ = nullptr;
};

// The major number of a semantic version ("2.1.0" -> "2"); the whole text when it has no dot.
std::string major_version(std::string_view version);

}  // namespace helix

// One live instance of a digester plugin: streams a stored session through it and returns the
// digest it reports, checked to be one JSON object, with the resumable state it reports.
#pragma once

#include "model/rows.hpp"
#include "plugins/plugin_registry.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace helix {

// What end_session reported: the digest, and the state to resume from ("" = none).
struct DigestOutput {
  std::string json, state;
};

class DigesterInstance {
 public:
  // Throws std::runtime_error naming the plugin when its create() fails.
  DigesterInstance(const PluginInfo& plugin, std::string_view config_json = "{}");
  ~DigesterInstance();
  DigesterInstance(const DigesterInstance&) = delete;
  DigesterInstance& operator=(const DigesterInstance&) = delete;

  const PluginInfo& plugin() const { return plugin_; }
  // The plugin's table has resume_session (ABI 1.2, non-NULL). The SDK fills it only for a
  // class that overrides resume(); a plugin may still refuse a given state when resumed.
  bool can_resume() const;

  // One session, streamed: begin (or resume from a saved state; throws std::runtime_error
  // with the digester's message when it refuses the state), event*, usage*, end. end throws
  // std::runtime_error when the digester fails or reports something other than a JSON object.
  void begin(const SessionRow& session) const;
  void resume(const SessionRow& session, std::string_view state) const;
  void event(const SessionRow& session, const EventView& event) const;
  void usage(const SessionRow& session, const StoredUsage& usage) const;
  DigestOutput end(const SessionRow& session) const;

  // The whole session at once (from `resume_state` when given): begin/resume, events, usage,
  // end.
  DigestOutput run(const SessionRow& session, const std::vector<EventRow>& events,
                   const std::vector<StoredUsage>& usage,
                   const std::optional<std::string>& resume_state = std::nullopt) const;
  std::string digest(const SessionRow& session, const std::vector<EventRow>& events,
                     const std::vector<StoredUsage>& usage) const {
    return run(session, events, usage).json;
  }

 private:
  const PluginInfo& plugin_;
  helix_digester* instance_ = nullptr;
};

// An EventRow (from Store::events) as the view digesters are streamed.
EventView view_of(const EventRow& row);

}  // namespace helix

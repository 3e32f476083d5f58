// How the host runs an adapter: in its own process (AdapterInstance), or in a worker process
// with a watchdog and a memory limit (AdapterWorker), chosen per plugin by [plugins] isolation.
#pragma once

#include "model/record_batch.hpp"
#include "plugins/plugin_registry.hpp"

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace helix {

class Redactor;

// An adapter's plugin crashed, hung or outgrew its memory limit while it worked on a source:
// the source is quarantined (the plugin keeps serving others). what() names the plugin and
// says what happened.
class PluginFault : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class AdapterRunner {
 public:
  // A probe result: the plugin says its probe failed (HELIX_PROBE_FAILED); counts as 0.
  static constexpr int kProbeFailed = -1;

  virtual ~AdapterRunner() = default;
  virtual const PluginInfo& plugin() const = 0;
  // 0..100, or kProbeFailed. Throws PluginFault.
  virtual int probe(std::string_view path, std::string_view head, uint64_t size) const = 0;
  // Appends what the adapter emits to `batch`; std::runtime_error with the adapter's message
  // when it returns HELIX_ERROR, PluginFault when its process failed.
  virtual void parse(std::string_view path, uint32_t layout, uint64_t base_offset,
                     std::string_view data, std::string_view state, RecordBatch& batch) const = 0;
};

// What runs plugins in worker processes, and within which limits ([plugins] in the config).
struct IsolationPolicy {
  enum class Which { none, third_party, all } which = Which::third_party;
  double call_timeout_seconds = 120;
  int64_t memory_bytes = int64_t{2} << 30;
  bool isolates(const PluginInfo& plugin) const {
    return which == Which::all || (which == Which::third_party && !plugin.first_party);
  }
};

// The runner the policy gives `plugin`. The redactor must outlive it.
std::unique_ptr<AdapterRunner> make_adapter_runner(const PluginInfo& plugin,
                                                   std::string_view config_json,
                                                   const Redactor* redactor,
                                                   const IsolationPolicy& policy);

}  // namespace helix

// One live instance of an adapter plugin: probe and parse calls, with the emitted records
// validated and copied into a RecordBatch.
#pragma once

#include "model/record_batch.hpp"
#include "plugins/adapter_runner.hpp"
#include "plugins/plugin_registry.hpp"

#include <string_view>

namespace helix {

class AdapterInstance final : public AdapterRunner {
 public:
  // Throws std::runtime_error naming the plugin when its create() fails. With a redactor,
  // every text the adapter emits is redacted before it is kept (the sweep always passes one).
  AdapterInstance(const PluginInfo& plugin, std::string_view config_json = "{}",
                  const Redactor* redactor = nullptr);
  ~AdapterInstance() override;
  AdapterInstance(const AdapterInstance&) = delete;
  AdapterInstance& operator=(const AdapterInstance&) = delete;

  const PluginInfo& plugin() const override { return plugin_; }

  // 0..100, or kProbeFailed when the plugin reports that its probe failed (the C++ glue does
  // when probe() throws): the caller names the plugin in a warning and counts it as 0.
  int probe(std::string_view path, std::string_view head, uint64_t size) const override;

  // Appends what the adapter emits to `batch`. Throws std::runtime_error with the adapter's
  // message when it returns HELIX_ERROR.
  void parse(std::string_view path, uint32_t layout, uint64_t base_offset, std::string_view data,
             std::string_view state, RecordBatch& batch) const override;

 private:
  const PluginInfo& plugin_;
  helix_adapter* instance_ = nullptr;
  const Redactor* redactor_ = nullptr;
};

// True for the event kinds of the normalized schema.
bool is_known_event_kind(std::string_view kind);

}  // namespace helix

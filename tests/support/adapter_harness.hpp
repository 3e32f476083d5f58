// Test support: runs a real adapter plugin (.so from the build's plugin directory, loaded by the
// real PluginRegistry) over real files, the way the sweep does, and returns what it emitted.
#pragma once

#include "plugins/adapter_instance.hpp"
#include "plugins/plugin_registry.hpp"
#include "temp_dir.hpp"

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#ifndef HELIX_TEST_PLUGIN_DIR
#error "HELIX_TEST_PLUGIN_DIR must name the build's plugin directory"
#endif
#ifndef HELIX_TEST_FIXTURE_DIR
#error "HELIX_TEST_FIXTURE_DIR must name tests/fixtures"
#endif

namespace helix::test {

inline std::filesystem::path fixture(const std::string& relative) {
  return std::filesystem::path(HELIX_TEST_FIXTURE_DIR) / relative;
}

// Loads the build's plugin directory once and gives access to one adapter.
class AdapterHarness {
 public:
  explicit AdapterHarness(const std::string& plugin_name) {
    registry_.load_directory(HELIX_TEST_PLUGIN_DIR);
    const PluginInfo* info = registry_.find(plugin_name);
    if (!info) throw std::runtime_error("plugin not built or refused: " + plugin_name);
    adapter_ = std::make_unique<AdapterInstance>(*info);
  }

  const AdapterInstance& adapter() const { return *adapter_; }
  const PluginRegistry& registry() const { return registry_; }

  int probe(const std::filesystem::path& path) const {
    std::string bytes = read_file(path);
    return adapter_->probe(path.string(), std::string_view(bytes).substr(0, 64 * 1024),
                           bytes.size());
  }

  // Parses a whole file in one call (complete lines only for LINES, as the host does).
  RecordBatch parse_file(const std::filesystem::path& path,
                         uint32_t layout = HELIX_LAYOUT_LINES) const {
    std::string bytes = read_file(path);
    if (layout == HELIX_LAYOUT_LINES) {
      auto last = bytes.rfind('\n');
      bytes.resize(last == std::string::npos ? 0 : last + 1);
    }
    RecordBatch batch;
    adapter_->parse(path.string(), layout, 0, bytes, "", batch);
    return batch;
  }

  // Parses a file in chunks of whole lines of at most `chunk_bytes`, threading the adapter's
  // saved state from chunk to chunk as the host does across sweeps.
  RecordBatch parse_file_in_chunks(const std::filesystem::path& path,
                                   std::size_t chunk_bytes) const {
    std::string bytes = read_file(path);
    RecordBatch all;
    std::string state;
    std::size_t pos = 0;
    while (pos < bytes.size()) {
      std::size_t end = bytes.find('\n', std::min(bytes.size(), pos + chunk_bytes) - 1);
      if (end == std::string::npos) end = bytes.rfind('\n');
      if (end == std::string::npos || end < pos) break;  // a partial last line waits
      RecordBatch batch;
      adapter_->parse(path.string(), HELIX_LAYOUT_LINES, pos,
                      std::string_view(bytes).substr(pos, end + 1 - pos), state, batch);
      if (batch.saved_state) state = *batch.saved_state;
      append(all, std::move(batch));
      pos = end + 1;
    }
    return all;
  }

 private:
  static void append(RecordBatch& into, RecordBatch&& from) {
    const auto payload_base = static_cast<int64_t>(into.payloads.size());
    for (auto& p : from.payloads) into.payloads.push_back(std::move(p));
    for (auto& e : from.events) {
      if (e.payload_index >= 0) e.payload_index += payload_base;
      into.events.push_back(std::move(e));
    }
    for (auto& s : from.sessions) into.sessions.push_back(std::move(s));
    for (auto& u : from.usage) into.usage.push_back(std::move(u));
    for (auto& r : from.rate_limits) into.rate_limits.push_back(std::move(r));
    for (auto& w : from.warnings) into.warnings.push_back(std::move(w));
    if (from.saved_state) into.saved_state = std::move(from.saved_state);
  }

  PluginRegistry registry_;
  std::unique_ptr<AdapterInstance> adapter_;
};

}  // namespace helix::test

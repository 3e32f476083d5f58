// libFuzzer harness for one adapter plugin: the real .so (built with coverage and sanitizers),
// loaded by the host's PluginRegistry and driven through AdapterInstance as the sweep drives it:
// probe the head, then parse whole lines (or the whole document), then parse again from the
// state the adapter saved. The first input byte chooses which agent file the bytes pretend to be.
#include "plugins/adapter_instance.hpp"
#include "plugins/plugin_registry.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string_view>

namespace {

// Keep in step with the seed selectors of tests/fuzz/run-fuzzer.
constexpr std::array<std::string_view, 12> kPaths = {
    "/h/.claude/projects/-w/0a1b2c3d-0000-4000-8000-000000000001.jsonl",
    "/h/.claude/projects/-w/0a1b2c3d-0000-4000-8000-000000000001/subagents/agent-a1.jsonl",
    "/h/.claude/projects/-w/0a1b2c3d-0000-4000-8000-000000000001/subagents/agent-a1.meta.json",
    "/h/.codex/sessions/2026/01/02/"
    "rollout-2026-01-02T18-39-45-019b7f94-51b4-7593-922e-ba12b5b73b52.jsonl",
    "/h/.codex/sessions/rollout-2025-04-20-3f8a1c2e-7b4d-4e9a-9c1f-2a6b8d0e4f51.json",
    "/h/.codex/history.jsonl",
    "/h/.grok/sessions/%2Fw/019f6000-0000-7000-8000-000000000001/updates.jsonl",
    "/h/.grok/sessions/%2Fw/019f6000-0000-7000-8000-000000000001/chat_history.jsonl",
    "/h/.grok/sessions/%2Fw/019f6000-0000-7000-8000-000000000001/events.jsonl",
    "/h/.grok/sessions/%2Fw/019f6000-0000-7000-8000-000000000001/summary.json",
    "/h/.grok/sessions/%2Fw/019f6000-0000-7000-8000-000000000001/usage.json",
    "/h/.grok/sessions/%2Fw/019f6000-0000-7000-8000-000000000001/signals.json",
};

struct Target {
  helix::PluginRegistry registry;
  std::unique_ptr<helix::AdapterInstance> adapter;

  Target() {
    registry.load_directory(HELIX_FUZZ_PLUGIN_DIR);
    const helix::PluginInfo* info = registry.find(HELIX_FUZZ_PLUGIN);
    if (!info) {
      std::fprintf(stderr, "fuzz: plugin '%s' not loaded from %s\n", HELIX_FUZZ_PLUGIN,
                   HELIX_FUZZ_PLUGIN_DIR);
      for (const auto& r : registry.refused())
        std::fprintf(stderr, "  refused %s: %s\n", r.path.c_str(), r.reason.c_str());
      std::abort();
    }
    adapter = std::make_unique<helix::AdapterInstance>(*info);
  }
};

void parse(const helix::AdapterInstance& adapter, std::string_view path, uint32_t layout,
           std::string_view data, std::string_view state, helix::RecordBatch& batch) {
  try {
    adapter.parse(path, layout, 0, data, state, batch);
  } catch (const std::runtime_error&) {
    // HELIX_ERROR is a legitimate answer to bad bytes; crashes and leaks are what we look for.
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, std::size_t size) {
  static Target target;
  if (size == 0) return 0;
  const std::string_view path = kPaths[bytes[0] % kPaths.size()];
  std::string_view data(reinterpret_cast<const char*>(bytes) + 1, size - 1);
  target.adapter->probe(path, data.substr(0, 64 * 1024), data.size());
  const bool document = path.ends_with(".json");
  if (!document) data = data.substr(0, data.rfind('\n') + 1);  // whole lines, as the host gives
  const uint32_t layout = document ? HELIX_LAYOUT_DOCUMENT : HELIX_LAYOUT_LINES;
  helix::RecordBatch first;
  parse(*target.adapter, path, layout, data, "", first);
  if (first.saved_state) {
    helix::RecordBatch second;
    parse(*target.adapter, path, layout, data, *first.saved_state, second);
  }
  return 0;
}

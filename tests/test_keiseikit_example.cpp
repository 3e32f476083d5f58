// The SDK example adapter (examples/keiseikit), built in tree from the same source as the
// out-of-tree build, over its sample trace: mapping, offsets, session span and warnings.
#define BOOST_TEST_MODULE keiseikit_example
#include <boost/test/unit_test.hpp>

#include "adapter_harness.hpp"

#include <string>
#include <vector>

namespace {

const std::filesystem::path kSample =
    std::filesystem::path(HELIX_EXAMPLES_DIR) /
    "keiseikit/sample/traces/bf053cbd-a6f8-47a6-a80f-11b829d63980.jsonl";

struct Example {
  helix::PluginRegistry registry;
  std::unique_ptr<helix::AdapterInstance> adapter;
  Example() {
    registry.load_directory(std::filesystem::path(HELIX_TEST_PLUGINS_ROOT) / "keiseikit");
    const helix::PluginInfo* info = registry.find("keiseikit");
    BOOST_TEST_REQUIRE(info != nullptr);
    adapter = std::make_unique<helix::AdapterInstance>(*info);
  }
  helix::RecordBatch parse(const std::string& path, std::string_view data) const {
    helix::RecordBatch batch;
    adapter->parse(path, HELIX_LAYOUT_LINES, 0, data, "", batch);
    return batch;
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(declares_where_keiseikit_traces_live) {
  Example ex;
  const helix_adapter_vtable* vt = &*ex.registry.find("keiseikit")->adapter;
  BOOST_TEST(std::string(vt->flavor) == "keiseikit");
  BOOST_TEST(std::string(vt->root_env) == "KEISEIKIT_HOME");
  BOOST_TEST(std::string(vt->default_roots[0]) == "~/.claude/memory");
  BOOST_TEST(vt->default_roots[1] == nullptr);
  BOOST_TEST(std::string(vt->patterns[0].glob) == "traces/*.jsonl");
  BOOST_TEST(vt->patterns[0].layout == uint32_t{HELIX_LAYOUT_LINES});
  BOOST_TEST(vt->patterns[1].glob == nullptr);
}

BOOST_AUTO_TEST_CASE(probe_claims_flat_traces_only) {
  Example ex;
  const std::string sample = helix::test::read_file(kSample);
  BOOST_TEST(ex.adapter->probe(kSample.string(), sample, sample.size()) == 90);
  BOOST_TEST(ex.adapter->probe("/home/u/elsewhere/x.jsonl", sample, sample.size()) == 0);
  const std::string claude_line =
      R"({"type":"user","timestamp":"2026-04-30T18:27:10Z","sessionId":"bf053cbd"})"
      "\n";
  BOOST_TEST(ex.adapter->probe("/home/u/.claude/memory/traces/x.jsonl", claude_line, 70) == 0);
}

BOOST_AUTO_TEST_CASE(sample_trace_maps_to_events) {
  Example ex;
  const std::string sample = helix::test::read_file(kSample);
  const helix::RecordBatch batch = ex.parse(kSample.string(), sample);
  BOOST_TEST(batch.warnings.empty());

  // Offsets, kinds and tools read from the sample with python/jq.
  const std::vector<uint64_t> offsets = {0, 153, 308, 429, 613, 755};
  const std::vector<std::string> kinds = {"tool_call", "tool_result", "tool_call",
                                          "error",     "edit",        "other"};
  const std::vector<std::string> tools = {"Read", "Read", "Bash", "Bash", "Edit", ""};
  BOOST_TEST_REQUIRE(batch.events.size() == 6u);
  for (std::size_t i = 0; i < batch.events.size(); ++i) {
    const auto& e = batch.events[i];
    BOOST_TEST(e.session_id == "bf053cbd-a6f8-47a6-a80f-11b829d63980");
    BOOST_TEST(e.source_offset == offsets[i]);
    BOOST_TEST(e.kind == kinds[i]);
    BOOST_TEST(e.tool == tools[i]);
    const auto line_end = sample.find('\n', offsets[i]);
    BOOST_TEST(batch.payloads.at(e.payload_index) ==
               sample.substr(offsets[i], line_end - offsets[i]));
  }
  const auto& first = batch.events[0];
  BOOST_TEST(first.ts_ms == 1'700'000'000'000);
  BOOST_TEST(first.role == "assistant");
  BOOST_TEST(first.summary == "tool_use:Read /abs/path/file.rs");
  BOOST_TEST(first.text == "stdout text");
  BOOST_TEST(batch.events[3].role == "tool");
  BOOST_TEST(batch.events[3].summary == "tool_error:Bash");
  BOOST_TEST(batch.events[5].role == "");
  BOOST_TEST(batch.events[5].text == "stop doing that, build again");

  // One session record per line; the host folds them into [first ts, last ts].
  BOOST_TEST_REQUIRE(batch.sessions.size() == 6u);
  BOOST_TEST(batch.sessions[0].native_id == "bf053cbd-a6f8-47a6-a80f-11b829d63980");
  BOOST_TEST(batch.sessions[0].started_at_ms == 1'700'000'000'000);
  BOOST_TEST(batch.sessions[5].ended_at_ms == 1'700'000'030'000);
  BOOST_TEST(batch.usage.empty());
}

BOOST_AUTO_TEST_CASE(bad_and_unknown_records_are_reported_and_kept) {
  Example ex;
  const std::string data =
      "not json\n"
      R"({"ts":5,"kind":"mystery","session_id":"named"})"
      "\n"
      "[1,2]\n";
  const helix::RecordBatch batch = ex.parse("/m/traces/file-stem.jsonl", data);
  BOOST_TEST_REQUIRE(batch.warnings.size() == 3u);
  BOOST_TEST(batch.warnings[0].category == "invalid_json");
  BOOST_TEST(batch.warnings[0].source_offset == 0u);
  BOOST_TEST(batch.warnings[1].category == "unknown_type");
  BOOST_TEST(batch.warnings[1].source_offset == 9u);
  BOOST_TEST(batch.warnings[1].message == "unknown kind 'mystery'");
  BOOST_TEST(batch.warnings[2].category == "not_an_object");
  BOOST_TEST_REQUIRE(batch.events.size() == 1u);
  BOOST_TEST(batch.events[0].kind == "other");
  BOOST_TEST(batch.events[0].session_id == "named");
  BOOST_TEST(batch.events[0].ts_ms == 5000);
  BOOST_TEST(batch.events[0].payload_index >= 0);
}

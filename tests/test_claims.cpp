// Claims across plugins: with every first-party plugin loaded, each real fixture is won by its
// own flavor's plugin, so no adapter misparses another agent's files.
#define BOOST_TEST_MODULE claims
#include <boost/test/unit_test.hpp>

#include "adapter_harness.hpp"

#include <map>

using namespace helix;

namespace {

// The adapters of the build, and the winner of the probe for a file as the sweep picks it.
struct AllAdapters {
  PluginRegistry registry;
  std::map<std::string, std::unique_ptr<AdapterInstance>> instances;
  AllAdapters() {
    registry.load_directory(HELIX_TEST_PLUGIN_DIR);
    for (const PluginInfo* p : registry.adapters())
      instances[p->name] = std::make_unique<AdapterInstance>(*p);
  }
  std::string winner(const std::filesystem::path& file) const {
    std::string bytes = test::read_file(file);
    std::string head = bytes.substr(0, 64 * 1024);
    int best = 0;
    std::string name = "(none)";
    for (const PluginInfo* p : registry.adapters()) {  // name order, as the sweep
      int score = instances.at(p->name)->probe(file.string(), head, bytes.size());
      if (score > best) best = score, name = p->name;
    }
    return name;
  }
};

std::vector<std::filesystem::path> files_under(const std::string& dir, const std::string& suffix) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(test::fixture(dir)))
    if (e.is_regular_file() && e.path().string().ends_with(suffix)) out.push_back(e.path());
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(claude_transcripts_are_claimed_by_claude) {
  AllAdapters all;
  auto files = files_under("claude", ".jsonl");
  BOOST_TEST(files.size() >= 20u);
  for (const auto& f : files) {
    if (std::filesystem::file_size(f) == 0) continue;  // an empty file has nothing to tell
    BOOST_TEST(all.winner(f) == "claude", f.filename());
  }
}

BOOST_AUTO_TEST_CASE(codex_rollouts_are_claimed_by_the_plugin_of_their_era) {
  AllAdapters all;
  int legacy = 0, current = 0;
  for (const auto& f : files_under("codex", ".jsonl")) {
    const std::string name = f.filename().string();
    if (name == "history.jsonl") {
      BOOST_TEST(all.winner(f) == "(none)");
      continue;
    }
    const std::string head = test::read_file(f).substr(0, 200);
    const bool old_era = head.find("\"payload\"") == std::string::npos;
    BOOST_TEST(all.winner(f) == (old_era ? "codex-legacy" : "codex"), name);
    (old_era ? legacy : current)++;
  }
  BOOST_TEST(legacy >= 1);
  BOOST_TEST(current >= 8);
}

BOOST_AUTO_TEST_CASE(grok_session_files_are_claimed_by_grok) {
  AllAdapters all;
  int n = 0;
  for (const char* name : {"updates.jsonl", "events.jsonl", "chat_history.jsonl"})
    for (const auto& f : files_under("grok", name)) {
      if (std::filesystem::file_size(f) == 0) continue;
      BOOST_TEST(all.winner(f) == "grok", f.string());
      ++n;
    }
  BOOST_TEST(n >= 4);
}

// Sessions spread over several files (design document OQ6): a resumed session whose new file
// repeats the earlier records with the same uuids, and sidechains (subagent files, Claude
// 2.0's agent-*.jsonl beside the transcript) sharing the parent's sessionId. They merge into
// one session with every record once and usage counted once, whatever the file order.
#define BOOST_TEST_MODULE multi_file_sessions
#include <boost/test/unit_test.hpp>

#include "config/config.hpp"
#include "ingest/sweep.hpp"
#include "store/store.hpp"
#include "temp_dir.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cstdlib>
#include <set>

using namespace helix;

namespace {

std::string fixture(const std::string& name) {
  return test::read_file(std::filesystem::path(HELIX_TEST_FIXTURE_DIR) / name);
}

std::string first_lines(const std::string& bytes, int n) {
  std::size_t pos = 0;
  for (int i = 0; i < n; ++i) pos = bytes.find('\n', pos) + 1;
  return bytes.substr(0, pos);
}

struct Swept {
  std::vector<SessionRow> sessions;
  std::map<std::string, std::vector<std::string>> events;  // uid -> kind|uid|ordinal|text
  int64_t copies = 0;
};

// Sweeps `files` (name -> bytes) as one Claude project directory into a fresh store.
Swept sweep(const std::map<std::string, std::string>& files) {
  test::TempDir dir;
  for (const auto& [name, bytes] : files)
    test::write_file(dir / ("claude/projects/-work-demo/" + name), bytes);
  ::setenv("CLAUDE_CONFIG_DIR", (dir / "claude").c_str(), 1);
  ::setenv("CODEX_HOME", (dir / "none").c_str(), 1);
  ::setenv("GROK_HOME", (dir / "none").c_str(), 1);
  ::setenv("GEMINI_CLI_HOME", (dir / "none").c_str(), 1);
  PluginRegistry registry;
  registry.load_directory(HELIX_TEST_PLUGIN_DIR);
  Config config;
  config.final_line_grace_seconds = 0;
  Store store(dir / "store/helix.db");
  Sweep s(store, registry, config);
  Swept out;
  out.copies = s.run().copies_skipped;
  out.sessions = store.sessions(SessionFilter{});
  for (const auto& row : out.sessions) {
    auto& list = out.events[row.uid];
    for (const auto& e : store.events(row.uid, true))
      list.push_back(
          fmt::format("{}|{}|{}|{}|{}", e.kind, e.uid, e.ordinal, e.is_sidechain, e.text));
    std::sort(list.begin(), list.end());
  }
  return out;
}

std::map<std::string, std::string> directory(const std::string& fixture_dir) {
  std::map<std::string, std::string> files;
  const auto root = std::filesystem::path(HELIX_TEST_FIXTURE_DIR) / fixture_dir;
  for (const auto& f : std::filesystem::recursive_directory_iterator(root))
    if (f.is_regular_file())
      files[std::filesystem::relative(f.path(), root).string()] = test::read_file(f.path());
  return files;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_resumed_session_copying_earlier_records_counts_each_record_once) {
  const std::string all = fixture("claude/entire-2.1.17-interrupts-synthetic.jsonl");
  const std::string early = first_lines(all, 60);
  const Swept one = sweep({{"d563fb6b-39cf-4895-bb5f-681c33e58bbc.jsonl", all}});
  // The resume copy: the first file ends at line 60; the second repeats it and goes on. Both
  // orders on disk (the copy sorted first or last) must give the same session.
  for (const std::string& copy_name :
       {std::string("0-resumed.jsonl"), std::string("z-resumed.jsonl")}) {
    const Swept two =
        sweep({{"d563fb6b-39cf-4895-bb5f-681c33e58bbc.jsonl", early}, {copy_name, all}});
    BOOST_TEST_REQUIRE(two.sessions.size() == 1u);
    BOOST_TEST_REQUIRE(one.sessions.size() == 1u);
    const auto& a = one.sessions.front();
    const auto& b = two.sessions.front();
    BOOST_TEST(b.uid == a.uid);
    BOOST_TEST(b.event_count == a.event_count);
    BOOST_TEST((two.events == one.events));
    BOOST_TEST(two.copies > 0);
    // Usage de-duplicated by key: the repeated model calls are not counted twice.
    BOOST_TEST(b.usage.input_tokens == a.usage.input_tokens);
    BOOST_TEST(b.usage.output_tokens == a.usage.output_tokens);
    BOOST_TEST(b.usage.cache_read_tokens == a.usage.cache_read_tokens);
    BOOST_TEST(b.usage.cache_creation_tokens == a.usage.cache_creation_tokens);
    BOOST_TEST(a.usage.output_tokens > 0);
  }
}

// Each file swept alone gives its own events; together they form one session whose events are
// the union: records with a uid once per (uid, ordinal), records without one all kept.
void check_union(const std::string& fixture_dir) {
  const auto files = directory(fixture_dir);
  BOOST_REQUIRE(files.size() >= 2u);
  std::map<std::string, std::set<std::string>> with_uid;
  std::map<std::string, std::vector<std::string>> expected;
  std::set<std::string> session_ids;
  for (const auto& [name, bytes] : files) {
    const Swept alone = sweep({{name, bytes}});
    for (const auto& [session, events] : alone.events) {
      session_ids.insert(session);
      for (const auto& e : events) {
        const bool has_uid = e.find("||") != e.find('|');  // kind|uid|...: an empty uid
        if (!has_uid || with_uid[session].insert(e).second) expected[session].push_back(e);
      }
    }
  }
  for (auto& [session, events] : expected) std::sort(events.begin(), events.end());
  const Swept together = sweep(files);
  BOOST_TEST(together.sessions.size() == session_ids.size());
  BOOST_TEST((together.events == expected));
  int64_t events = 0;
  for (const auto& s : together.sessions) events += s.event_count;
  BOOST_TEST_MESSAGE(fmt::format("{}: {} files, {} sessions, {} events", fixture_dir, files.size(),
                                 together.sessions.size(), events));
}

BOOST_AUTO_TEST_CASE(subagent_files_join_their_parent_session) {
  check_union("claude/ccl-2.1.17-subagents-layout/-src-experiments-claude_p");
  check_union("claude/ccl-2.1.114-subagents-meta/-experiments-worktrees");
}

BOOST_AUTO_TEST_CASE(legacy_agent_files_sharing_a_session_id_merge_into_it) {
  check_union("claude/ccl-2.0.28-legacy-agent-layout/-Users-dain-workspace-danieldemmel-me-next");
}

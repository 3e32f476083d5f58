// Sessions spread over several files (design document OQ6): a resumed session whose new file
// repeats the earlier records with the same uuids, and sidechains (subagent files, Claude
// 2.0's agent-*.jsonl beside the transcript) sharing the parent's sessionId. They merge into
// one session with every record once and usage counted once, whatever the file order.
#define BOOST_TEST_MODULE multi_file_sessions
#include <boost/test/unit_test.hpp>

#include "config/config.hpp"
#include "ingest/sweep.hpp"
#include "store/search_query.hpp"
#include "store/session_counters.hpp"
#include "store/store.hpp"
#include "temp_dir.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cstdlib>
#include <memory>
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
// the union: records with a uid once per (kind, uid, ordinal), records without one all kept.
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
        // Copies are one record by (uid, ordinal), even where their texts differ (a subagent's
        // link, from its sidecar and from the parent's result): the first file's is kept.
        const std::string record = e.substr(0, e.find('|', e.find('|', e.find('|') + 1) + 1));
        if (!has_uid || with_uid[session].insert(record).second) expected[session].push_back(e);
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

// ---- forks, links and time order over the canary's runs (tests/fixtures/*/canary-*) ----------

namespace {

// A fake HOME holding one canary scenario's agent tree, swept into a store that stays open.
struct SweptHome {
  test::TempDir dir;
  std::unique_ptr<Store> store;
  std::vector<SessionRow> sessions;

  const SessionRow& session(const std::string& uid) const {
    auto it = std::find_if(sessions.begin(), sessions.end(),
                           [&](const SessionRow& s) { return s.uid == uid; });
    BOOST_TEST_REQUIRE((it != sessions.end()), "no session " << uid);
    return *it;
  }
  int hits(const std::string& phrase) {
    SearchQuery q;
    q.match = "\"" + phrase + "\"";
    q.limit = 100;
    return static_cast<int>(search(*store, q).size());
  }
};

// Copies the scenario's tree (renaming files as `rename` says: "old name" -> "new name") and
// sweeps it with the real plugins.
std::unique_ptr<SweptHome> sweep_scenario(const std::string& scenario,
                                          const std::map<std::string, std::string>& rename = {}) {
  auto home = std::make_unique<SweptHome>();
  const auto root = std::filesystem::path(HELIX_TEST_FIXTURE_DIR) / scenario;
  for (const auto& f : std::filesystem::recursive_directory_iterator(root)) {
    if (!f.is_regular_file() || f.path().filename() == "mock-replies.ndjson") continue;
    auto target = home->dir / std::filesystem::relative(f.path(), root);
    if (auto to = rename.find(f.path().filename().string()); to != rename.end())
      target = target.parent_path() / to->second;
    test::write_file(target, test::read_file(f.path()));
  }
  ::setenv("CLAUDE_CONFIG_DIR", (home->dir / ".claude").c_str(), 1);
  ::setenv("CODEX_HOME", (home->dir / ".codex").c_str(), 1);
  ::setenv("GROK_HOME", (home->dir / ".grok").c_str(), 1);
  ::setenv("GEMINI_CLI_HOME", (home->dir / "none").c_str(), 1);
  PluginRegistry registry;
  registry.load_directory(HELIX_TEST_PLUGIN_DIR);
  Config config;
  config.final_line_grace_seconds = 0;
  home->store = std::make_unique<Store>(home->dir / "store/helix.db");
  Sweep(*home->store, registry, config).run();
  home->sessions = home->store->sessions(SessionFilter{});
  return home;
}

// Each event stamped no earlier than 100 ms before the latest one stored ahead of it.
bool in_time_order(const std::vector<EventRow>& events) {
  int64_t latest = 0;
  for (const auto& e : events) {
    if (e.ts_ms == 0) continue;
    if (e.ts_ms + 100 < latest) return false;
    latest = std::max(latest, e.ts_ms);
  }
  return true;
}

}  // namespace

// --fork-session: the fork e41fc739 copies the origin 0e1b0555's first turn. Whichever file is
// read first, the copies are the origin's: found once, counted once, and the fork's title and
// start are its own.
BOOST_AUTO_TEST_CASE(a_fork_refers_to_its_origins_records_in_either_order) {
  const std::string origin = "claude:0e1b0555-1c57-42bf-9322-fce908955414";
  const std::string fork = "claude:e41fc739-04eb-4eb6-9108-1632d35fb7ba";
  for (bool origin_first : {true, false}) {
    BOOST_TEST_CONTEXT("origin read first: " << origin_first) {
      std::map<std::string, std::string> rename;
      if (!origin_first)  // the fork's file sorts first (the records name their session)
        rename["0e1b0555-1c57-42bf-9322-fce908955414.jsonl"] = "z-origin.jsonl";
      auto home = sweep_scenario("claude/canary-2.1.330/fork", rename);
      BOOST_TEST_REQUIRE(home->sessions.size() == 2u);
      const SessionRow& o = home->session(origin);
      const SessionRow& f = home->session(fork);
      BOOST_TEST(f.forked_from == origin);
      BOOST_TEST(o.forked_from.empty());
      BOOST_TEST(home->hits("Print fork-origin in the shell") == 1);
      BOOST_TEST(home->hits("Answer in a fork of this session") == 1);
      BOOST_TEST(o.turns == 1);
      BOOST_TEST(f.turns == 1);
      BOOST_TEST(f.title == "Answer in a fork of this session. [F2]");
      BOOST_TEST(f.started_at_ms > o.ended_at_ms - 1);  // not the copied records' time
      // The origin's two model calls are its own; the fork has its one.
      int64_t origin_calls = 0, fork_calls = 0;
      for (const auto& e : home->store->events(origin, false)) origin_calls += e.tokens > 0;
      for (const auto& e : home->store->events(fork, false)) fork_calls += e.tokens > 0;
      BOOST_TEST(origin_calls == 2);
      BOOST_TEST(fork_calls == 1);
      BOOST_TEST(sessions_with_wrong_counters(home->store->database()).empty());
    }
  }
}

// Grok's fork is known as one only from its summary.json, read after its chat_history: the
// copies its chat_history gave become references then.
BOOST_AUTO_TEST_CASE(a_fork_known_late_drops_its_copies) {
  auto home = sweep_scenario("grok/canary-1.0.41/fork");
  BOOST_TEST_REQUIRE(home->sessions.size() == 2u);
  const SessionRow* fork = nullptr;
  for (const auto& s : home->sessions)
    if (!s.forked_from.empty()) fork = &s;
  BOOST_TEST_REQUIRE(fork != nullptr);
  BOOST_TEST(fork->turns == 1);
  BOOST_TEST(home->hits("Print fork-origin in the shell") == 1);
  BOOST_TEST(sessions_with_wrong_counters(home->store->database()).empty());
}

// Claude Code's subagents: each transcript's events carry the id of the Agent call that
// launched it (resolved from agent-*.meta.json and the Agent results), sit in time order inside
// the parent, and the background result is found with the subagent's answer.
BOOST_AUTO_TEST_CASE(subagents_are_linked_to_their_calls_in_time_order) {
  auto home = sweep_scenario("claude/canary-2.1.330/subagents");
  BOOST_TEST_REQUIRE(home->sessions.size() == 1u);
  const auto events = home->store->events(home->sessions[0].uid, false);
  BOOST_TEST(in_time_order(events));
  std::map<std::string, int64_t> call_seq;
  for (const auto& e : events)
    if (e.kind == "tool_call" && e.tool == "Agent") call_seq[e.call_id] = e.seq;
  BOOST_TEST_REQUIRE(call_seq.size() == 2u);
  std::map<std::string, int> linked;
  for (const auto& e : events)
    if (e.is_sidechain && call_seq.count(e.call_id)) {
      ++linked[e.call_id];
      BOOST_TEST(e.seq > call_seq[e.call_id]);
    }
  BOOST_TEST(linked.size() == 2u);
  for (const auto& e : events) BOOST_TEST(!e.call_id.starts_with("agent-"), e.summary);
  BOOST_TEST(home->hits("current branch is main") == 2);
  BOOST_TEST(sessions_with_wrong_counters(home->store->database()).empty());
}

// Grok's runtime events (events.jsonl) are read after the conversation they happened among.
BOOST_AUTO_TEST_CASE(grok_runtime_events_are_placed_by_time) {
  auto home = sweep_scenario("grok/canary-1.0.41/tools");
  BOOST_TEST_REQUIRE(home->sessions.size() == 1u);
  const auto events = home->store->events(home->sessions[0].uid, false);
  BOOST_TEST(in_time_order(events));
  BOOST_TEST(sessions_with_wrong_counters(home->store->database()).empty());
}

// `helix-host watch`, the resident sweep, as a service runs it: the real binary over a sample
// agent home, lines appended to a transcript while it runs, a folder created under it, a sweep
// and a held store lock beside it, SIGTERM and SIGINT. Everything is asserted on the store;
// the waits are generous limits, never timings.
#define BOOST_TEST_MODULE watch
#include <boost/test/unit_test.hpp>

#include "app/tree_watch.hpp"
#include "host_process.hpp"
#include "sample_home.hpp"
#include "store/store.hpp"
#include "temp_dir.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <thread>

using namespace helix;

namespace {

const std::string kClaude = "29ccd257-68b1-427f-ae5f-6524b7cb6f20";
const std::string kUid = "claude:" + kClaude;
constexpr auto kPatience = std::chrono::seconds(60);  // a loaded 2-core machine, never a target

struct Home {
  test::TempDir dir;
  std::filesystem::path home = dir / "home";
  std::filesystem::path project = home / "claude/projects/-src-experiments-claude_p";
  int lines_added = 0;

  Home() { test::make_sample_home(home, dir / "xdg"); }

  std::vector<std::string> args(const std::string& store, std::vector<std::string> rest) const {
    std::vector<std::string> a{"--plugins", HELIX_TEST_PLUGIN_DIR, "--store",
                               (dir / store).string()};
    a.insert(a.end(), rest.begin(), rest.end());
    return a;
  }

  std::unique_ptr<test::HostProcess> start(const std::string& store,
                                           std::vector<std::string> rest) {
    std::filesystem::create_directories(dir / ("io-" + store));
    return std::make_unique<test::HostProcess>(args(store, std::move(rest)), dir / ("io-" + store));
  }

  test::HostResult run(const std::string& store, std::vector<std::string> rest) const {
    const auto io = dir / ("io-run-" + store);
    std::filesystem::create_directories(io);
    test::HostProcess p(args(store, std::move(rest)), io);
    return p.wait();
  }

  std::map<std::string, int64_t> stored(const std::string& store) const {
    std::map<std::string, int64_t> out;
    if (!std::filesystem::exists(dir / store / "helix.db")) return out;
    try {
      Store s(dir / store / "helix.db", true);
      for (const auto& row : s.sessions(SessionFilter{})) out[row.uid] = row.event_count;
    } catch (const std::exception&) {
      return {};  // created but not migrated yet: nothing stored
    }
    return out;
  }

  // Polls the store until `done` holds of it; false after kPatience.
  bool eventually(const std::string& store,
                  const std::function<bool(const std::map<std::string, int64_t>&)>& done) const {
    const auto end = std::chrono::steady_clock::now() + kPatience;
    while (std::chrono::steady_clock::now() < end) {
      if (done(stored(store))) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  // A new prompt at the end of a Claude session, shaped as the agent writes it.
  void append_prompt(const std::filesystem::path& file, const std::string& session) {
    std::ifstream in(file);
    std::string line, last;
    while (std::getline(in, line))
      if (!line.empty()) last = line;
    boost::json::object record = boost::json::parse(last).as_object();
    ++lines_added;
    record["parentUuid"] = record["uuid"];
    record["uuid"] = fmt::format("00000000-0000-4000-8000-{:012d}", lines_added);
    record["sessionId"] = session;
    record["type"] = "user";
    record["timestamp"] = fmt::format("2026-11-20T10:00:{:02d}.000Z", lines_added % 60);
    record["message"] = {{"role", "user"},
                         {"content", fmt::format("watch prompt {}", lines_added)}};
    record.erase("requestId");
    std::ofstream(file, std::ios::app) << boost::json::serialize(record) << "\n";
  }
};

// `copies` renamed copies of every top-level Claude transcript: enough sources that a pass
// takes a while, so that a signal may land inside it.
void add_copies(const std::filesystem::path& home, int copies) {
  std::vector<std::filesystem::path> originals;
  for (const auto& project : std::filesystem::directory_iterator(home / "claude/projects"))
    for (const auto& f : std::filesystem::directory_iterator(project))
      if (f.is_regular_file() && f.path().extension() == ".jsonl") originals.push_back(f);
  for (int k = 1; k <= copies; ++k)
    for (const auto& original : originals) {
      const std::string id = original.stem().string();
      if (id.size() < 8) continue;
      const std::string copy = fmt::format("{:08x}", 0xc0de0000 + k) + id.substr(8);
      std::string text = test::read_file(original);
      for (auto at = text.find(id); at != std::string::npos; at = text.find(id, at + copy.size()))
        text.replace(at, id.size(), copy);
      test::write_file(home / fmt::format("claude/projects/-copies-{}", k) / (copy + ".jsonl"),
                       text);
    }
}

bool has(const std::map<std::string, int64_t>& counts, const std::string& uid, int64_t events) {
  auto it = counts.find(uid);
  return it != counts.end() && it->second == events;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(watch, Home)

// With inotify: the full sweep it makes every --rescan seconds is put beyond the test's patience,
// so that only the events it follows can store the new lines.
BOOST_AUTO_TEST_CASE(a_line_appended_while_it_watches_is_stored_without_a_sweep) {
  BOOST_REQUIRE(run("reference", {"sweep", "--quiet"}).exit_code == 0);
  const auto reference = stored("reference");
  auto watch = start("store", {"watch", "--rescan", "600"});
  BOOST_REQUIRE(eventually("store", [&](const auto& s) { return s == reference; }));
  append_prompt(project / (kClaude + ".jsonl"), kClaude);
  BOOST_TEST(
      eventually("store", [&](const auto& s) { return has(s, kUid, reference.at(kUid) + 1); }));
  append_prompt(project / (kClaude + ".jsonl"), kClaude);  // a second one: it keeps following
  BOOST_TEST(
      eventually("store", [&](const auto& s) { return has(s, kUid, reference.at(kUid) + 2); }));
  BOOST_TEST(watch->running());
}

BOOST_AUTO_TEST_CASE(a_session_in_a_folder_created_while_it_watches_is_stored) {
  auto watch = start("store", {"watch", "--rescan", "600"});
  BOOST_REQUIRE(eventually("store", [&](const auto& s) { return s.contains(kUid); }));
  const auto fresh = home / "claude/projects/-src-new-project";
  std::filesystem::create_directories(fresh);
  const std::string session = "5b0b4c77-2f7e-4c1d-9d55-0123456789ab";
  std::filesystem::copy_file(project / (kClaude + ".jsonl"), fresh / (session + ".jsonl"));
  append_prompt(fresh / (session + ".jsonl"), session);
  // The copy holds kClaude's records (their session id) and the new prompt: its own session.
  BOOST_TEST(eventually("store", [&](const auto& s) {
    return std::any_of(s.begin(), s.end(),
                       [&](const auto& r) { return r.first == "claude:" + session; });
  }));
}

BOOST_AUTO_TEST_CASE(polling_finds_appended_lines_too) {
  auto watch = start("store", {"watch", "--poll", "--interval", "0.2"});
  BOOST_REQUIRE(eventually("store", [&](const auto& s) { return s.contains(kUid); }));
  const int64_t before = stored("store").at(kUid);
  append_prompt(project / (kClaude + ".jsonl"), kClaude);
  BOOST_TEST(eventually("store", [&](const auto& s) { return has(s, kUid, before + 1); }));
  watch->kill();
  BOOST_TEST(test::read_file(dir / "io-store/stdout.txt").find("polling every 0.2 s (--poll)") !=
             std::string::npos);
}

// --jsonl: stdout is a stream of `sweep --json` objects, one per pass that stored something,
// and nothing else (no "watch:" lines), so a program can follow it.
BOOST_AUTO_TEST_CASE(jsonl_prints_each_pass_as_a_sweep_summary) {
  auto watch = start("store", {"watch", "--jsonl", "--rescan", "600"});
  BOOST_REQUIRE(eventually("store", [&](const auto& s) { return s.contains(kUid); }));
  const int64_t before = stored("store").at(kUid);
  append_prompt(project / (kClaude + ".jsonl"), kClaude);
  BOOST_REQUIRE(eventually("store", [&](const auto& s) { return has(s, kUid, before + 1); }));
  ::kill(watch->pid(), SIGTERM);
  BOOST_REQUIRE(watch->wait_for(kPatience));
  const test::HostResult& r = watch->wait();
  BOOST_TEST(r.exit_code == 0, r.err);
  std::istringstream lines(r.out);
  std::vector<int64_t> added;
  for (std::string line; std::getline(lines, line);)
    added.push_back(boost::json::parse(line).at("events_added").as_int64());  // throws if not
  BOOST_TEST_REQUIRE(added.size() >= 2u, r.out);  // the first pass, then the appended line
  BOOST_TEST(added.front() > 1);
  BOOST_TEST((std::find(added.begin() + 1, added.end(), 1) != added.end()), r.out);
}

BOOST_AUTO_TEST_CASE(sigterm_and_sigint_stop_it_cleanly) {
  for (int signal : {SIGTERM, SIGINT}) {
    const std::string store = fmt::format("store{}", signal);
    auto watch = start(store, {"watch"});
    BOOST_REQUIRE(eventually(store, [&](const auto& s) { return s.contains(kUid); }));
    ::kill(watch->pid(), signal);
    BOOST_REQUIRE(watch->wait_for(kPatience));
    const test::HostResult& r = watch->wait();
    BOOST_TEST(r.exit_code == 0, "signal " << signal << ": " << r.err);
    BOOST_TEST(r.out.find("watch: stopped") != std::string::npos, r.out);
    // The store it left is whole: a sweep after it finds nothing new to read.
    const auto after = run(store, {"sweep", "--json"});
    BOOST_TEST(after.exit_code == 0, after.err);
    BOOST_TEST(boost::json::parse(after.out).at("events_added").as_int64() == 0, after.out);
  }
}

// Stopped at any moment of its first pass, it leaves a store whose next sweep completes it to
// what one sweep of the same files makes.
BOOST_AUTO_TEST_CASE(sigterm_during_a_pass_leaves_a_store_the_next_sweep_completes) {
  add_copies(home, 12);
  BOOST_REQUIRE(run("reference", {"sweep", "--quiet"}).exit_code == 0);
  const auto reference = stored("reference");
  auto watch = start("store", {"watch"});
  const auto end = std::chrono::steady_clock::now() + kPatience;
  while (!std::filesystem::exists(dir / "store/helix.db") && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ::kill(watch->pid(), SIGTERM);
  BOOST_REQUIRE(watch->wait_for(kPatience));
  const test::HostResult& r = watch->wait();
  BOOST_TEST(r.exit_code == 0, r.err);
  BOOST_TEST(r.out.find("watch: stopped") != std::string::npos, r.out);
  const auto after = run("store", {"sweep", "--quiet"});
  BOOST_TEST(after.exit_code == 0, after.err);
  BOOST_TEST(stored("store") == reference);
}

BOOST_AUTO_TEST_CASE(it_shares_the_store_lock_with_sweeps_and_hooks) {
  auto watch = start("store", {"watch"});
  BOOST_REQUIRE(eventually("store", [&](const auto& s) { return s.contains(kUid); }));
  const int64_t before = stored("store").at(kUid);
  // A sweep (or hook) holding the lock: the watch waits for it and then stores the new line.
  const int fd = ::open((dir / "store/helix.db.lock").c_str(), O_RDWR | O_CREAT, 0600);
  BOOST_REQUIRE(fd >= 0);
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0)  // the watch may be in a pass: wait for its end
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  append_prompt(project / (kClaude + ".jsonl"), kClaude);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  BOOST_TEST(has(stored("store"), kUid, before));  // nothing is written under another's lock
  ::close(fd);
  BOOST_TEST(eventually("store", [&](const auto& s) { return has(s, kUid, before + 1); }));
  // Sweeps beside it: each one either runs or says the store is busy (75); none fails, and
  // the store ends as one sweep of the same files makes it.
  for (int i = 0; i < 4; ++i) {
    append_prompt(project / (kClaude + ".jsonl"), kClaude);
    const auto r = run("store", {"sweep", "--quiet"});
    BOOST_TEST((r.exit_code == 0 || r.exit_code == 75), r.err);
  }
  BOOST_REQUIRE(run("reference", {"sweep", "--quiet"}).exit_code == 0);
  const auto reference = stored("reference");
  BOOST_TEST(eventually("store", [&](const auto& s) { return s == reference; }));
  BOOST_TEST(watch->running());
}

BOOST_AUTO_TEST_CASE(only_the_folders_sources_can_appear_under_are_followed) {
  const auto root = dir.path().string();
  const std::vector<std::string> trees =
      source_trees({{root + "/claude", "projects/*/*.jsonl"},
                    {root + "/claude", "projects/*/*/subagents/**/agent-*.jsonl"},
                    {root + "/codex", "sessions/**/rollout-*.jsonl"},
                    {root + "/codex/sessions/2026", "*.jsonl"},
                    {root + "/grok", "*.json"}});
  const std::vector<std::string> expected = {root + "/claude/projects", root + "/codex/sessions",
                                             root + "/grok"};
  BOOST_TEST(trees == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()

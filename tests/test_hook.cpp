// Push capture: `helix-host hook <flavor>` run as the agents run it (the real binary, the hook
// event on stdin or, for Codex's notify, as an argument), over a sample agent home. The hook
// ingests the one session it names (its sidechain files included) exactly as a sweep would,
// never fails, never waits for a busy store, and logs to <store>/hook.log.
#define BOOST_TEST_MODULE hook
#include <boost/test/unit_test.hpp>

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
#include <cstdlib>
#include <thread>

using namespace helix;
using Clock = std::chrono::steady_clock;

namespace {

const std::string kClaude = "29ccd257-68b1-427f-ae5f-6524b7cb6f20";  // main file + subagents/
const std::string kCodex = "019c8a4c-ed82-79a1-aa28-7738fc5ab61a";
const std::string kGrok = "01a2029c-db54-7f63-8de6-3e496b22d736";

struct Home {
  test::TempDir dir;
  std::filesystem::path home = dir / "home";

  Home() {
    test::make_sample_home(home, dir / "xdg");
    ::unsetenv("GROK_HOOK_EVENT");
  }

  std::vector<std::string> args(const std::string& store, std::vector<std::string> rest) const {
    std::vector<std::string> a{"--plugins", HELIX_TEST_PLUGIN_DIR, "--store",
                               (dir / store).string()};
    a.insert(a.end(), rest.begin(), rest.end());
    return a;
  }

  test::HostResult run(const std::string& store, std::vector<std::string> rest,
                       const std::string& stdin_text = "") const {
    test::HostProcess p(args(store, std::move(rest)), dir.path(), stdin_text);
    return p.wait();
  }

  // Event counts per session of one full sweep: what the hook must reproduce per session.
  std::map<std::string, int64_t> swept_counts() {
    static std::map<std::string, int64_t> counts;
    if (counts.empty()) {
      BOOST_REQUIRE(run("reference", {"sweep", "--quiet"}).exit_code == 0);
      Store s(dir / "reference/helix.db", true);
      for (const auto& row : s.sessions(SessionFilter{})) counts[row.uid] = row.event_count;
    }
    return counts;
  }

  std::map<std::string, int64_t> stored(const std::string& store) const {
    std::map<std::string, int64_t> out;
    if (!std::filesystem::exists(dir / store / "helix.db")) return out;
    Store s(dir / store / "helix.db", true);
    for (const auto& row : s.sessions(SessionFilter{})) out[row.uid] = row.event_count;
    return out;
  }

  std::string log(const std::string& store) const {
    const auto file = dir / store / "hook.log";
    return std::filesystem::exists(file) ? test::read_file(file) : "";
  }

  std::string claude_event(const std::string& name = "Stop") const {
    return fmt::format(
        R"({{"session_id":"{}","transcript_path":"{}","cwd":"/src","hook_event_name":"{}"}})",
        kClaude,
        (home / "claude/projects/-src-experiments-claude_p" / (kClaude + ".jsonl")).string(), name);
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(hook, Home)

BOOST_AUTO_TEST_CASE(a_claude_stop_hook_ingests_that_session_and_its_sidechains_only) {
  const auto expected = swept_counts();
  const std::string uid = "claude:" + kClaude;
  BOOST_REQUIRE(expected.count(uid));
  auto r = run("store", {"hook", "claude", "--foreground"}, claude_event());
  BOOST_TEST(r.exit_code == 0);
  const auto got = stored("store");
  BOOST_TEST(got.size() == 1u);  // only the session the event names
  BOOST_TEST(got.at(uid) == expected.at(uid));
  Store s(dir / "store/helix.db", true);
  int64_t sidechain = 0;
  for (const auto& e : s.events(uid, false)) sidechain += e.is_sidechain;
  BOOST_TEST(sidechain > 0);  // <session>/subagents/agent-*.jsonl came in with it
  BOOST_TEST(
      log("store").find(fmt::format("claude {} Stop: 2 files", kClaude)) != std::string::npos,
      log("store"));
  // SessionEnd after Stop, and the pull sweep after both: idempotent, nothing added.
  BOOST_TEST(
      run("store", {"hook", "claude", "--foreground"}, claude_event("SessionEnd")).exit_code == 0);
  BOOST_TEST(stored("store").at(uid) == expected.at(uid));
  auto sweep = run("store", {"sweep"});
  BOOST_TEST(sweep.exit_code == 0);
  BOOST_TEST((stored("store") == expected));
}

// A hook does what a pull sweep does after ingesting: the session's digest is current when the
// agent stops. Retention (eviction under the caps) follows only with cadence = "on-hook".
BOOST_AUTO_TEST_CASE(the_hook_digests_its_session_and_evicts_only_when_the_cadence_is_on_hook) {
  const std::string uid = "claude:" + kClaude;
  const auto old = std::filesystem::file_time_type::clock::now() - std::chrono::hours(3);
  for (const auto& e : std::filesystem::recursive_directory_iterator(home))
    if (e.is_regular_file()) std::filesystem::last_write_time(e.path(), old);  // not active
  for (const std::string cadence : {"daily", "on-hook"}) {
    const auto config = dir / (cadence + ".toml");
    test::write_file(config, fmt::format("[session_memory.retention]\nraw_soft_cap_bytes = "
                                         "\"1KiB\"\ncadence = \"{}\"\n",
                                         cadence));
    const std::string store = "store-" + cadence;
    auto r = run(store, {"--config", config.string(), "hook", "claude", "--foreground"},
                 claude_event("SessionEnd"));
    BOOST_TEST(r.exit_code == 0);
    const std::string text = log(store);
    BOOST_TEST(text.find("1 sessions digested") != std::string::npos, text);
    SessionRow row;
    for (const auto& s : Store(dir / store / "helix.db", true).sessions(SessionFilter{}))
      if (s.uid == uid) row = s;
    BOOST_TEST_REQUIRE(row.uid == uid, text);
    BOOST_TEST(row.analyzed_at_ms > 0);
    const bool on_hook = cadence == "on-hook";
    BOOST_TEST((row.evicted_at_ms > 0) == on_hook, cadence);
    BOOST_TEST((text.find("retention evicted 1 sessions") != std::string::npos) == on_hook, text);
    // The digest outlives the raw data it came from.
    BOOST_TEST(run(store, {"digest", uid, "--json"}).exit_code == 0, cadence);
  }
}

BOOST_AUTO_TEST_CASE(by_default_the_hook_returns_at_once_and_ingests_in_the_background) {
  const auto expected = swept_counts();
  const auto start = Clock::now();
  auto r = run("store", {"hook", "claude"}, claude_event());
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(seconds < 1.0);
  const std::string uid = "claude:" + kClaude;
  for (int i = 0; i < 200 && log("store").find(" events added") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  BOOST_TEST(stored("store")[uid] == expected.at(uid), log("store"));
}

BOOST_AUTO_TEST_CASE(a_busy_store_is_left_to_the_next_sweep_without_waiting) {
  std::filesystem::create_directories(dir / "store");
  int fd = ::open((dir / "store/helix.db.lock").c_str(), O_RDWR | O_CREAT, 0600);
  BOOST_REQUIRE(fd >= 0);
  BOOST_REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);  // as a running sweep holds it
  const auto start = Clock::now();
  auto r = run("store", {"hook", "claude", "--foreground"}, claude_event());
  BOOST_TEST(std::chrono::duration<double>(Clock::now() - start).count() < 2.0);
  ::close(fd);
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(stored("store").empty());
  BOOST_TEST(log("store").find("another sweep holds the store") != std::string::npos, log("store"));
}

BOOST_AUTO_TEST_CASE(bad_events_never_fail_the_agent_and_are_logged) {
  for (const std::string& event : {std::string("not json at all"), std::string("{}"),
                                   std::string(R"({"session_id":"../../etc"})"), std::string()}) {
    auto r = run("store", {"hook", "claude", "--foreground"}, event);
    BOOST_TEST(r.exit_code == 0, event);
  }
  BOOST_TEST(run("store", {"hook"}, claude_event()).exit_code == 0);
  // A mistyped flavor is said on stderr (the agent may show it), with the closest one.
  const auto typo = run("store", {"hook", "claud"}, claude_event());
  BOOST_TEST(typo.exit_code == 0);
  BOOST_TEST(typo.err.find("no adapter plugin reads flavor 'claud' (did you mean 'claude'?)") !=
             std::string::npos);
  const auto unknown = run("store", {"hook", "nosuchflavor", "--foreground"}, claude_event());
  BOOST_TEST(unknown.exit_code == 0);
  BOOST_TEST(unknown.err.find("no adapter plugin reads flavor 'nosuchflavor'") !=
             std::string::npos);
  const std::string text = log("store");
  BOOST_TEST(text.find("not a JSON object") != std::string::npos, text);
  BOOST_TEST(text.find("no usable session id") != std::string::npos, text);
  BOOST_TEST(text.find("no adapter plugin reads flavor 'nosuchflavor'") != std::string::npos, text);
  BOOST_TEST(stored("store").empty());
}

// A session id with a newline, terminal escapes and a token: one log line, the control bytes
// escaped, the token redacted (log injection and a leak through the log).
BOOST_AUTO_TEST_CASE(hook_log_lines_cannot_be_forged_and_hold_no_secret) {
  const std::string token = "ghp_R8aZk2Lm9QwX4vTn7YcB1sDf6GhJ3pKe0Uo5";
  const std::string id = "abc\n2026-01-01T00:00:00Z [1] forged line\x1b[31mred\x07" + token;
  const std::string event = boost::json::serialize(boost::json::object{{"session_id", id}});
  BOOST_TEST(run("inject", {"hook", "claude", "--foreground"}, event).exit_code == 0);
  const std::string text = log("inject");
  BOOST_TEST(std::count(text.begin(), text.end(), '\n') == 1, text);
  BOOST_TEST(text.find('\x1b') == std::string::npos);
  BOOST_TEST(text.find('\x07') == std::string::npos);
  BOOST_TEST(
      text.find("\\x0a2026-01-01T00:00:00Z [1] forged line\\x1b[31mred\\x07") != std::string::npos,
      text);
  BOOST_TEST(text.find(token) == std::string::npos, text);
  BOOST_TEST(text.find("[REDACTED:") != std::string::npos, text);
}

BOOST_AUTO_TEST_CASE(codex_notify_passes_the_event_as_an_argument) {
  const auto expected = swept_counts();
  const std::string event = fmt::format(
      R"({{"type":"agent-turn-complete","thread-id":"{}","turn-id":"1","cwd":"/w","input-messages":["hi"],"last-assistant-message":"done"}})",
      kCodex);
  auto r = run("store", {"hook", "codex", "--foreground", event});
  BOOST_TEST(r.exit_code == 0);
  const auto got = stored("store");
  BOOST_TEST_REQUIRE(got.size() == 1u, log("store"));
  BOOST_TEST(got.begin()->first.find(kCodex) != std::string::npos);
  BOOST_TEST(got.begin()->second == expected.at(got.begin()->first));
}

BOOST_AUTO_TEST_CASE(grok_build_hooks_are_recognised_even_from_claude_settings) {
  const auto expected = swept_counts();
  // Grok Build also runs the hooks of .claude/settings.json; its events are camelCase and it
  // sets GROK_HOOK_EVENT for every hook process.
  ::setenv("GROK_HOOK_EVENT", "Stop", 1);
  auto r = run(
      "store", {"hook", "claude", "--foreground"},
      fmt::format(R"({{"hookEventName":"Stop","sessionId":"{}","cwd":"/tmp/gh/proj"}})", kGrok));
  ::unsetenv("GROK_HOOK_EVENT");
  BOOST_TEST(r.exit_code == 0);
  const auto got = stored("store");
  BOOST_TEST_REQUIRE(got.size() == 1u, log("store"));
  BOOST_TEST(got.begin()->first == "grok:" + kGrok);
  BOOST_TEST(got.begin()->second == expected.at("grok:" + kGrok));
}

BOOST_AUTO_TEST_SUITE_END()

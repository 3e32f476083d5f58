// The helix-host command line, run as a user runs it: the real binary, real plugins, a sample
// agent home laid out from the fixtures, a real store. Checks the documented JSON shapes and
// exit codes.
#define BOOST_TEST_MODULE cli
#include <boost/test/unit_test.hpp>

#include "helix_command.hpp"
#include "store/database.hpp"
#include "temp_dir.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>
#include <boost/json.hpp>
#include <cstdio>

namespace json = boost::json;
using helix::test::Run;
using helix::test::run_helix;
using helix::test::TempDir;

namespace {

// A shared sample home and store, swept once for the whole suite.
struct Sample {
  TempDir dir;
  std::string env;
  Sample() {
    const std::string make =
        fmt::format("{}/../scripts/make-sample-home {} {}", HELIX_TEST_FIXTURE_DIR "/..",
                    HELIX_TEST_FIXTURE_DIR, (dir / "home").string());
    BOOST_REQUIRE(std::system(make.c_str()) == 0);
    env = fmt::format(
        "CLAUDE_CONFIG_DIR={0}/home/claude CODEX_HOME={0}/home/codex "
        "GROK_HOME={0}/home/grok GEMINI_CLI_HOME={0}/home/gemini XDG_CONFIG_HOME={0}/xdg ",
        dir.path().string());
  }

  Run helix(const std::string& args) const {
    return run_helix(env, dir / "store", args, dir / "stderr.txt");
  }
};

Sample& sample() {
  static Sample s;
  static bool swept = [] {
    Run r = s.helix("sweep");
    BOOST_TEST_MESSAGE(r.out << r.err);
    return r.exit_code == 0;
  }();
  BOOST_REQUIRE(swept);
  return s;
}

json::value parse(const std::string& text) { return json::parse(text); }

}  // namespace

BOOST_AUTO_TEST_CASE(sweep_prints_a_summary_and_a_second_sweep_adds_nothing) {
  Run again = sample().helix("sweep");
  BOOST_TEST(again.exit_code == 0);
  BOOST_TEST(again.out.find("events added 0") != std::string::npos);
  BOOST_TEST(again.out.find("0 new, 0 changed") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(sessions_json_lists_every_session_with_the_documented_fields) {
  Run r = sample().helix("sessions --json");
  BOOST_TEST(r.exit_code == 0);
  const auto sessions = parse(r.out).as_array();
  BOOST_TEST(sessions.size() > 10u);
  for (const auto& v : sessions) {
    const auto& s = v.as_object();
    for (const char* key : {"session_uid", "flavor",      "native_session_id", "repo",
                            "domain",      "cwd",         "git_branch",        "model",
                            "started_at",  "ended_at",    "outcome",           "cost",
                            "task_ref",    "source_path", "source_bytes",      "schema_version",
                            "ingested_at", "analyzed_at", "evicted_at",        "event_count"})
      BOOST_TEST(s.contains(key), key);
    for (const char* key :
         {"input_tokens", "output_tokens", "cache_tokens", "wall_clock_s", "turns", "retries",
          "cache_read_tokens", "cache_creation_tokens", "reasoning_tokens"})
      BOOST_TEST(s.at("cost").as_object().contains(key), key);
    const std::string uid(s.at("session_uid").as_string());
    BOOST_TEST(uid.rfind(std::string(s.at("flavor").as_string()) + ":", 0) == 0u);
  }
  Run claude_only = sample().helix("sessions --json --flavor claude");
  const json::value claude_sessions = parse(claude_only.out);
  for (const auto& v : claude_sessions.as_array())
    BOOST_TEST(v.at("flavor").as_string() == "claude");
  Run future = sample().helix("sessions --json --since 2999-01-01");
  BOOST_TEST(parse(future.out).as_array().empty());
}

BOOST_AUTO_TEST_CASE(show_json_has_the_session_and_its_events_in_order) {
  Run list = sample().helix("sessions --json --flavor claude");
  const auto sessions = parse(list.out).as_array();
  BOOST_REQUIRE(!sessions.empty());
  const auto& first = sessions.front().as_object();
  const std::string uid(first.at("session_uid").as_string());
  Run r = sample().helix("show '" + uid + "' --json");
  BOOST_TEST(r.exit_code == 0);
  const auto doc = parse(r.out).as_object();
  BOOST_TEST(doc.at("session").at("session_uid").as_string() == uid);
  const auto& events = doc.at("events").as_array();
  BOOST_TEST(static_cast<int64_t>(events.size()) == first.at("event_count").as_int64());
  int64_t previous = -1;
  for (const auto& e : events) {
    for (const char* key :
         {"seq", "parent_seq", "ts", "kind", "role", "tool", "summary", "payload_ref", "tokens",
          "is_sidechain", "source_path", "source_offset"})
      BOOST_TEST(e.as_object().contains(key), key);
    BOOST_TEST(e.at("seq").as_int64() > previous);
    previous = e.at("seq").as_int64();
  }
}

BOOST_AUTO_TEST_CASE(status_json_reports_counts_and_measured_sizes) {
  Run r = sample().helix("status --json");
  BOOST_TEST(r.exit_code == 0);
  const auto s = parse(r.out).as_object();
  for (const char* key : {"sessions", "events", "sources", "tier1_bytes", "tier2_bytes"})
    BOOST_TEST(s.contains(key), key);
  BOOST_TEST(s.at("events").as_int64() > 0);
  BOOST_TEST(s.at("tier1_bytes").as_int64() > 0);
}

BOOST_AUTO_TEST_CASE(exit_codes_follow_the_documentation) {
  Run missing = sample().helix("show claude:no-such-session");
  BOOST_TEST(missing.exit_code == 1);
  BOOST_TEST(missing.err.find("no session claude:no-such-session") != std::string::npos);
  // An empty uid is no session, not the first one the store lists.
  for (const char* command : {"show ''", "export ''", "resume ''", "show '' --json"}) {
    Run empty = sample().helix(command);
    BOOST_TEST(empty.exit_code == 1, command);
    BOOST_TEST(empty.out.empty(), command);
    BOOST_TEST(empty.err.find("no session") != std::string::npos, command);
  }
  Run unknown = sample().helix("frobnicate");
  BOOST_TEST(unknown.exit_code == 2);
  BOOST_TEST(unknown.err.find("unknown command 'frobnicate'") != std::string::npos);
  Run bad_date = sample().helix("sessions --since yesterday");
  BOOST_TEST(bad_date.exit_code == 2);
  BOOST_TEST(bad_date.err.find("is not a date") != std::string::npos);
}

// A store written by a newer helix-host is refused by every command, read-only ones too, with
// exit 3 and the reason; the store is left as it was.
BOOST_AUTO_TEST_CASE(every_command_refuses_a_store_of_a_newer_schema) {
  Sample& s = sample();
  TempDir newer;
  std::filesystem::create_directories(newer / "store");
  std::filesystem::copy_file(s.dir / "store/helix.db", newer / "store/helix.db");
  const auto db = newer / "store/helix.db";
  { helix::Database(db).exec("PRAGMA user_version = 99"); }
  auto refused = [&](const char* command) {
    Run r = run_helix(s.env, newer / "store", command, newer / "stderr.txt");
    BOOST_TEST(r.exit_code == 3, command << ": " << r.err);
    BOOST_TEST(r.err.find("schema version 99, newer than this helix-host understands") !=
                   std::string::npos,
               command << ": " << r.err);
  };
  refused("sweep");  // opening it for writing may touch SQLite's header counters, nothing more
  const auto before = helix::test::read_file(db);
  for (const char* command : {"sessions", "sessions --json", "status", "show x", "export x",
                              "search hello", "usage", "resume x", "evict --dry-run"})
    refused(command);
  BOOST_TEST((helix::test::read_file(db) == before));  // read-only commands wrote nothing
  helix::Database check(db);
  auto version = check.prepare("PRAGMA user_version");
  BOOST_TEST_REQUIRE(version.step());
  BOOST_TEST(version.integer(0) == 99);  // not migrated
}

// A digest row that is not valid JSON (a damaged store) is named by its session, digester and
// table, not reported as a parser's position alone.
BOOST_AUTO_TEST_CASE(a_corrupt_digest_names_its_session_and_table) {
  Sample& s = sample();
  TempDir copy;
  std::filesystem::create_directories(copy / "store");
  std::filesystem::copy_file(s.dir / "store/helix.db", copy / "store/helix.db");
  std::string uid;
  {
    helix::Database db(copy / "store/helix.db");
    auto first = db.prepare("SELECT session_uid FROM digests ORDER BY session_uid LIMIT 1");
    BOOST_TEST_REQUIRE(first.step());
    uid = first.text(0);
    db.exec("UPDATE digests SET json = '{\"outcome\": tru' WHERE session_uid = '" + uid + "'");
  }
  for (const char* json : {"", " --json"}) {
    Run r = run_helix(s.env, copy / "store", "digest " + uid + json, copy / "stderr.txt");
    BOOST_TEST(r.exit_code == 3, r.err);
    BOOST_TEST(r.err.find("the digest of session " + uid) != std::string::npos, r.err);
    BOOST_TEST(r.err.find("(table digests) is not valid JSON") != std::string::npos, r.err);
  }
}

BOOST_AUTO_TEST_CASE(a_second_concurrent_sweep_exits_75_at_once) {
  Sample& s = sample();
  const std::string lock = (s.dir / "store/helix.db.lock").string();
  int fd = ::open(lock.c_str(), O_RDWR | O_CREAT, 0600);
  BOOST_REQUIRE(fd >= 0);
  BOOST_REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);  // as a running sweep holds it
  Run r = s.helix("sweep");
  BOOST_TEST(r.exit_code == 75);
  BOOST_TEST(r.err.find("another sweep is running") != std::string::npos);
  Run reader = s.helix("sessions --json");  // readers are not blocked
  BOOST_TEST(reader.exit_code == 0);
  ::close(fd);
}

BOOST_AUTO_TEST_CASE(plugins_and_config_print_what_is_in_effect) {
  Run plugins = sample().helix("plugins");
  BOOST_TEST(plugins.exit_code == 0);
  BOOST_TEST(plugins.out.find("claude") != std::string::npos);
  BOOST_TEST(plugins.out.find("adapter") != std::string::npos);
  Run config = sample().helix("config");
  BOOST_TEST(config.exit_code == 0);
  BOOST_TEST(config.out.find("[session_memory.retention]") != std::string::npos);
  BOOST_TEST(config.out.find("store/helix.db") != std::string::npos);
}

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
#include <algorithm>
#include <boost/json.hpp>
#include <cstdio>
#include <map>
#include <set>

namespace json = boost::json;
using helix::test::copy_store;
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

// The array of a JSON text (or of one of its members): a copy a range-for can hold.
json::array array_at(const std::string& text, const char* key = nullptr) {
  const json::value v = json::parse(text);
  return key ? v.at(key).as_array() : v.as_array();
}

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
  Run bad_date = sample().helix("sessions --since the-day-before");
  BOOST_TEST(bad_date.exit_code == 2);
  BOOST_TEST(bad_date.err.find("is not a date") != std::string::npos);
}

// A store written by a newer helix-host is refused by every command, read-only ones too, with
// exit 3 and the reason; the store is left as it was.
BOOST_AUTO_TEST_CASE(every_command_refuses_a_store_of_a_newer_schema) {
  Sample& s = sample();
  TempDir newer;
  std::filesystem::create_directories(newer / "store");
  copy_store(s.dir / "store/helix.db", newer / "store/helix.db");
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
  copy_store(s.dir / "store/helix.db", copy / "store/helix.db");
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

// ---- The frictions of a first day (issue 18), each as a user meets it.

namespace {

// Display cells of the widest line (East Asian wide characters count two).
std::size_t widest_line(const std::string& text) {
  std::size_t widest = 0, cells = 0;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      widest = std::max(widest, cells);
      cells = 0;
      ++i;
      continue;
    }
    const std::size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    cells += n == 3 && c >= 0xE3 && c <= 0xE9 ? 2 : 1;  // CJK and kana: two cells
    i += n;
  }
  return std::max(widest, cells);
}

bool valid_utf8(const std::string& text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t n = c < 0x80         ? 1
                          : (c >> 5) == 6  ? 2
                          : (c >> 4) == 14 ? 3
                          : (c >> 3) == 30 ? 4
                                           : 0;
    if (n == 0 || i + n > text.size()) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

// A sample home with one more Claude session whose prompt and title are Japanese.
struct JapaneseSample {
  TempDir dir;
  std::string env;
  JapaneseSample() {
    const std::filesystem::path fixture =
        HELIX_TEST_FIXTURE_DIR "/claude/entire-2.0.76-tool-errors.jsonl";
    std::string text = helix::test::read_file(fixture);
    auto replace = [&](const std::string& from, const std::string& to) {
      for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    };
    replace("can you add a standard MIT license?",
            "ユーザー認証のログイン画面を実装して、エラー処理も追加してください。長いタイトルの切り"
            "方を確かめる");
    helix::test::write_file(
        dir / "home/claude/projects/-ja/cf564e14-9b07-42ad-8d9a-4faa1b79a0ed.jsonl", text);
    env = fmt::format(
        "CLAUDE_CONFIG_DIR={0}/home/claude CODEX_HOME={0}/none GROK_HOME={0}/none "
        "XDG_CONFIG_HOME={0}/xdg ",
        dir.path().string());
  }
  Run helix(const std::string& args) const {
    return run_helix(env, dir / "store", args, dir / "stderr.txt");
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(sessions_are_named_by_prefix_native_id_or_flavor_and_prefix) {
  Sample& s = sample();
  const std::string uid = "codex:01a2029b-bd0f-7b52-b27b-ba8d4ea361c8";
  for (const char* ref : {"01a2029b", "01a2029b-bd0f-7b52-b27b-ba8d4ea361c8", "codex:01a2029b",
                          "codex:01a2029b-bd0f-7b52-b27b-ba8d4ea361c8"}) {
    BOOST_TEST_CONTEXT(ref) {
      Run r = s.helix(std::string("resume --json ") + ref);
      BOOST_TEST(json::parse(r.out).at("session_uid").as_string() == uid);
      BOOST_TEST(s.helix(std::string("show ") + ref).exit_code == 0);
      BOOST_TEST(s.helix(std::string("digest ") + ref).exit_code == 0);
      BOOST_TEST(s.helix(std::string("export --format json ") + ref).exit_code == 0);
    }
  }
  // Two sessions share this prefix: both are listed, and nothing is guessed.
  Run ambiguous = s.helix("show 019f6000");
  BOOST_TEST(ambiguous.exit_code == 2);
  BOOST_TEST(ambiguous.err.find("matches more than one session") != std::string::npos);
  BOOST_TEST(ambiguous.err.find("grok:019f6000-0000-7000-8000-000000000001") != std::string::npos);
  BOOST_TEST(ambiguous.err.find("grok:019f6000-0000-7000-8000-000000000002") != std::string::npos);
  Run empty = s.helix("show ''");
  BOOST_TEST(empty.exit_code == 1);
  BOOST_TEST(empty.err.find("no session") != std::string::npos);
  // The short ids a listing prints name their session.
  Run list = s.helix("sessions --limit 3");
  const std::string first = list.out.substr(
      list.out.find('\n') + 1, list.out.find(' ', list.out.find('\n')) - list.out.find('\n') - 1);
  BOOST_TEST(first.size() < 20u);
  BOOST_TEST(s.helix("show " + first).exit_code == 0);
}

BOOST_AUTO_TEST_CASE(every_cost_report_warns_about_unpriced_models) {
  Sample& s = sample();
  // The fixtures' stub model is in no price book.
  const json::value report = json::parse(s.helix("usage --json").out);
  std::vector<std::string> unpriced;
  for (const auto& u : report.at("unpriced_models").as_array())
    unpriced.emplace_back(u.at("model").as_string());
  BOOST_TEST_REQUIRE(!unpriced.empty());
  BOOST_TEST((std::find(unpriced.begin(), unpriced.end(), "stub-model") != unpriced.end()));
  for (const char* command : {"usage", "usage --json", "usage --by model", "usage blocks",
                              "usage --by month --breakdown", "sessions"}) {
    BOOST_TEST_CONTEXT(command) {
      Run r = s.helix(command);
      BOOST_TEST(r.exit_code == 0);
      BOOST_TEST(r.err.find("warning: no price for") != std::string::npos);
      BOOST_TEST(r.err.find("stub-model") != std::string::npos);
    }
  }
  // A report whose scope has only priced models says nothing.
  Run priced = s.helix("usage --since 2025-07-13 --until 2025-07-13");
  BOOST_TEST(priced.err.find("no price") == std::string::npos);
}

// Per-event tokens (issue 16): in every Claude, Codex and Grok session of the sample, the tokens
// show --json gives its events add up to the session's usage (Codex's token_count deltas were
// on no event: every event said 0).
BOOST_AUTO_TEST_CASE(event_tokens_add_up_to_each_sessions_usage) {
  Sample& s = sample();
  std::map<std::string, int64_t> per_flavor;
  for (const auto& v : array_at(s.helix("sessions --json").out)) {
    const auto& session = v.as_object();
    const std::string uid(session.at("session_uid").as_string());
    const auto& cost = session.at("cost").as_object();
    int64_t usage = 0;
    for (const char* key :
         {"input_tokens", "output_tokens", "cache_read_tokens", "cache_creation_tokens"})
      if (cost.at(key).is_number()) usage += cost.at(key).to_number<int64_t>();
    int64_t on_events = 0;
    for (const auto& e : array_at(s.helix("show '" + uid + "' --json --all").out, "events"))
      if (const auto* t = e.as_object().if_contains("tokens"); t && t->is_number())
        on_events += t->to_number<int64_t>();
    BOOST_TEST(on_events == usage, uid);
    per_flavor[std::string(session.at("flavor").as_string())] += on_events;
  }
  for (const char* flavor : {"claude", "codex", "grok"}) BOOST_TEST(per_flavor[flavor] > 0, flavor);
}

// usage --limits (issue 16): the latest state of each rate-limit window the Codex fixtures
// reported, from their real token_count lines. Three 0.104 sessions of 2026-02-23 report both
// windows (the 12:40 one ends at 25% and 8%); the newest report is the 20:34 session's last
// line, 19:36:02.633Z: 7% of the 5-hour window, 11% of the week.
BOOST_AUTO_TEST_CASE(usage_limits_shows_the_latest_headroom_of_each_window) {
  Sample& s = sample();
  Run r = s.helix("usage --limits --json");
  BOOST_TEST_REQUIRE(r.exit_code == 0);
  std::map<std::string, json::object> named;  // "<limit>/<window>" -> its state
  for (const auto& l : array_at(r.out, "limits")) {
    const auto& o = l.as_object();
    BOOST_TEST(o.at("flavor").as_string() == "codex");
    named[std::string(o.at("limit_id").as_string()) + "/" +
          std::string(o.at("window").as_string())] = o;
  }
  BOOST_TEST_REQUIRE(named.size() == 2u);
  const auto& primary = named["codex/primary"];
  BOOST_TEST(primary.at("used_percent").as_double() == 7.0);
  BOOST_TEST(primary.at("left_percent").as_double() == 93.0);
  BOOST_TEST(primary.at("window_minutes").as_int64() == 300);
  BOOST_TEST(primary.at("resets_at").as_string() == "2026-02-23T23:48:17.000Z");
  BOOST_TEST(primary.at("reported_at").as_string() == "2026-02-23T19:36:02.633Z");
  const auto& secondary = named["codex/secondary"];
  BOOST_TEST(secondary.at("used_percent").as_double() == 11.0);
  BOOST_TEST(secondary.at("window_minutes").as_int64() == 10080);
  BOOST_TEST(secondary.at("resets_at").as_string() == "2026-03-01T09:01:42.000Z");
  BOOST_TEST(secondary.at("reset_passed").as_bool());
  BOOST_TEST(secondary.at("session").as_string() == "codex:019c8bfe-ec25-79e0-97d7-bda6a9c575ff");

  // The table gives reset times in the user's zone.
  Run tokyo = s.helix("usage --limits --timezone Asia/Tokyo");
  BOOST_TEST(tokyo.exit_code == 0);
  BOOST_TEST(tokyo.out.find("2026-03-01 18:01 (passed)") != std::string::npos, tokyo.out);
  BOOST_TEST(tokyo.out.find("2026-02-24 08:48 (passed)") != std::string::npos, tokyo.out);
  BOOST_TEST(tokyo.out.find("times in Asia/Tokyo") != std::string::npos);
  // Other flavors report none; the fleet does not hold them.
  BOOST_TEST(array_at(s.helix("usage --limits --json --flavor claude").out, "limits").empty());
  Run fleet = s.helix("usage --limits --fleet");
  BOOST_TEST(fleet.exit_code == 2);
  BOOST_TEST(fleet.err.find("cannot be used with --fleet") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(dates_take_the_forms_people_type_and_reject_malformed_ones) {
  Sample& s = sample();
  auto days = [&](const std::string& args) {
    std::vector<std::string> out;
    for (const auto& r : array_at(s.helix("usage --json " + args).out, "rows"))
      out.emplace_back(r.at("day").as_string());
    return out;
  };
  BOOST_TEST(days("--since 20260206 --until 20260206") == std::vector<std::string>{"2026-02-06"});
  BOOST_TEST(days("--since 2026-02-06 --until 2026-02-06") ==
             std::vector<std::string>{"2026-02-06"});
  BOOST_TEST(days("--since 2026-02-06T00:00:00Z --until 2026-02-06T23:59:59Z") ==
             std::vector<std::string>{"2026-02-06"});
  for (const char* relative : {"today", "yesterday", "7d", "last-week"}) {
    BOOST_TEST_CONTEXT(relative) {
      BOOST_TEST(s.helix(std::string("sessions --since ") + relative).exit_code == 0);
      BOOST_TEST(s.helix(std::string("usage --until ") + relative).exit_code == 0);
    }
  }
  for (const char* bad : {"2026x09y20", "2026-09-20T25:99:99Z", "2026-02-30", "20261301",
                          "2026-09-20T12:00:00junk", "next-tuesday"}) {
    BOOST_TEST_CONTEXT(bad) {
      Run r = s.helix(std::string("sessions --since ") + bad);
      BOOST_TEST(r.exit_code == 2);
      BOOST_TEST(r.err.find("is not a date") != std::string::npos);
    }
  }
  BOOST_TEST(s.helix("usage --since 2026-02-07 --until 2026-02-06").exit_code == 2);
}

BOOST_AUTO_TEST_CASE(days_are_the_users_days) {
  // claude:163396cf called its model at 00:49-00:52 UTC on 2026-01-27: the afternoon before in
  // Los Angeles.
  Sample& s = sample();
  auto day_tokens = [&](const std::string& env, const std::string& args) {
    std::map<std::string, int64_t> out;
    Run r = run_helix(s.env + env, s.dir / "store", "usage --json --flavor claude " + args,
                      s.dir / "stderr.txt");
    for (const auto& row : array_at(r.out, "rows"))
      out[std::string(row.at("day").as_string())] = row.at("total_tokens").as_int64();
    return out;
  };
  const auto utc = day_tokens("TZ=UTC ", "");
  const auto la = day_tokens("TZ=America/Los_Angeles ", "");
  BOOST_TEST(utc.count("2026-01-27") == 1u);
  BOOST_TEST(la.count("2026-01-26") == 1u);
  BOOST_TEST(la.count("2026-01-27") == 0u);
  BOOST_TEST(la.at("2026-01-26") == utc.at("2026-01-27"));
  int64_t utc_total = 0, la_total = 0;
  for (const auto& [day, n] : utc) utc_total += n;
  for (const auto& [day, n] : la) la_total += n;
  BOOST_TEST(utc_total == la_total);
  BOOST_TEST((day_tokens("TZ=UTC ", "--timezone America/Los_Angeles") == la));
  Run bad = s.helix("usage --timezone America/Los_Angles");
  BOOST_TEST(bad.exit_code == 2);
  BOOST_TEST(bad.err.find("did you mean 'America/Los_Angeles'") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(sessions_list_newest_first_with_limit_and_reverse) {
  Sample& s = sample();
  auto starts = [&](const std::string& args) {
    std::vector<std::string> out;
    for (const auto& v : array_at(s.helix("sessions --json " + args).out))
      out.emplace_back(v.at("started_at").is_string() ? v.at("started_at").as_string() : "");
    return out;
  };
  const auto all = starts("");
  BOOST_TEST(std::is_sorted(all.rbegin(), all.rend()));
  const auto three = starts("--limit 3");
  BOOST_TEST(three.size() == 3u);
  BOOST_TEST((three == std::vector<std::string>(all.begin(), all.begin() + 3)));
  const auto reversed = starts("--limit 3 --reverse");
  BOOST_TEST((reversed == std::vector<std::string>(three.rbegin(), three.rend())));
  for (const auto& v : array_at(s.helix("sessions --json").out))
    BOOST_TEST(v.at("cost").as_object().contains("cost_usd"));
  BOOST_TEST(s.helix("sessions --limit 1").out.find("\n1 session\n") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(search_takes_plain_words_stems_and_groups_per_session) {
  Sample& s = sample();
  for (const char* text : {"README.md", "auth-bug", "\"can't\"", "hello.txt", "'a \"phrase'"}) {
    BOOST_TEST_CONTEXT(text) {
      Run r = s.helix(std::string("search ") + text);
      BOOST_TEST(r.exit_code == 0);
      BOOST_TEST(r.err.find("syntax") == std::string::npos);
    }
  }
  // Word forms: the porter stemmer finds "directory" for "directories".
  auto sessions = [&](const std::string& query) {
    return json::parse(s.helix("search --json " + query).out).as_array().size();
  };
  BOOST_TEST(sessions("directory") > 0u);
  BOOST_TEST(sessions("directories") == sessions("directory"));
  // One entry per session, its hits inside, the best first.
  const auto grouped = json::parse(s.helix("search --json hello").out).as_array();
  std::set<std::string> uids;
  for (const auto& g : grouped) {
    BOOST_TEST(uids.insert(std::string(g.at("session_uid").as_string())).second);
    BOOST_TEST(g.at("hits").as_array().size() >= 1u);
  }
  Run jsonl = s.helix("search --jsonl hello");
  BOOST_TEST(std::count(jsonl.out.begin(), jsonl.out.end(), '\n') >
             static_cast<long>(grouped.size()));
}

// A transcript whose folder and file names are not UTF-8 (the bytes 0xff and 0xfe): every JSON
// output stays valid UTF-8 that parses, the bad bytes shown as U+FFFD.
BOOST_AUTO_TEST_CASE(file_names_that_are_not_utf8_give_valid_json) {
  TempDir dir;
  const std::filesystem::path file =
      dir / "home/claude/projects/-bad\xff\xfe" / "cf564e14-9b07-42ad-8d9a-4faa1b79a0ed\xff.jsonl";
  helix::test::write_file(file, helix::test::read_file(HELIX_TEST_FIXTURE_DIR
                                                       "/claude/entire-2.0.76-tool-errors.jsonl"));
  const std::string env = fmt::format(
      "CLAUDE_CONFIG_DIR={0}/home/claude CODEX_HOME={0}/none GROK_HOME={0}/none "
      "XDG_CONFIG_HOME={0}/xdg ",
      dir.path().string());
  BOOST_REQUIRE(run_helix(env, dir / "store", "sweep --quiet", dir / "e.txt").exit_code == 0);
  for (const char* command : {"sessions --json", "sessions --jsonl"}) {
    BOOST_TEST_CONTEXT(command) {
      const Run r = run_helix(env, dir / "store", command, dir / "e.txt");
      BOOST_TEST(r.exit_code == 0);
      BOOST_TEST(valid_utf8(r.out));
      const std::string first_line = r.out.substr(0, r.out.find('\n'));
      const json::value parsed = json::parse(first_line);
      const json::object& session =
          parsed.is_array() ? parsed.as_array().at(0).as_object() : parsed.as_object();
      const std::string path(session.at("source_path").as_string());
      BOOST_TEST(path.find("-bad\xef\xbf\xbd\xef\xbf\xbd/") != std::string::npos, path);
    }
  }
}

BOOST_AUTO_TEST_CASE(words_of_languages_without_spaces_are_found) {
  JapaneseSample ja;
  BOOST_REQUIRE(ja.helix("sweep --quiet").exit_code == 0);
  for (const char* word : {"認証", "ログイン画面", "エラー処理"}) {
    BOOST_TEST_CONTEXT(word) {
      const auto hits = json::parse(ja.helix(std::string("search --json ") + word).out).as_array();
      BOOST_TEST(hits.size() == 1u);
    }
  }
  BOOST_TEST(json::parse(ja.helix("search --json 認証 license").out).as_array().empty());
  // Titles are cut by characters, never inside one, and the line fits the terminal.
  Run list = run_helix(ja.env + "COLUMNS=60 ", ja.dir / "store", "sessions", ja.dir / "e.txt");
  BOOST_TEST(valid_utf8(list.out));
  BOOST_TEST(list.out.find("ユーザー認証") != std::string::npos);
  BOOST_TEST(widest_line(list.out) <= 60u);
}

BOOST_AUTO_TEST_CASE(at_80_columns_no_line_is_wider_than_80_cells) {
  Sample& s = sample();
  for (const char* command :
       {"sessions", "usage", "usage --by session", "usage --by model --breakdown",
        "usage --by month --breakdown", "usage --by week", "usage --by repo", "usage blocks",
        "search hello", "search --fts 'hello OR the'", "show codex:01a2029b",
        "show claude:ef958aa1 --all", "digest codex:01a2029b", "warnings", "plugins"}) {
    BOOST_TEST_CONTEXT(command) {
      Run r = run_helix(s.env + "COLUMNS=80 ", s.dir / "store", command, s.dir / "stderr.txt");
      BOOST_TEST(r.exit_code == 0);
      BOOST_TEST(widest_line(r.out) <= 80u);
      BOOST_TEST(valid_utf8(r.out));
    }
  }
  // In a real 80-column terminal (a pty whose size stty sets), with no COLUMNS to go by; the
  // tables on stdout (warnings on stderr are prose the terminal wraps).
  for (const char* command :
       {"sessions", "usage --by session", "search hello", "show codex:01a2029b"}) {
    BOOST_TEST_CONTEXT("pty " << command) {
      const auto log = s.dir / "pty80.txt";
      helix::test::run_command(
          fmt::format("script -qec \"stty cols 80 rows 24; env -u COLUMNS {} TERM=xterm {} "
                      "--plugins {} --store {} --no-pager --color=never {} 2>/dev/null\" {} "
                      ">/dev/null 2>&1",
                      s.env, HELIX_TEST_HOST_BINARY, HELIX_TEST_PLUGIN_DIR,
                      (s.dir / "store").string(), command, log.string()),
          s.dir / "stderr.txt");
      std::string text = helix::test::read_file(log);
      std::erase(text, '\r');
      const auto first = text.find('\n');  // script's own "Script started" line
      BOOST_TEST_REQUIRE(first != std::string::npos);
      const std::string output = text.substr(first + 1, text.rfind("\nScript done") - first);
      BOOST_TEST(std::count(output.begin(), output.end(), '\n') >= 3);
      BOOST_TEST(widest_line(output) <= 80u, output);
      BOOST_TEST(widest_line(output) > 60u);  // the terminal's width was used, not a default
    }
  }
  Run wide = run_helix(s.env + "COLUMNS=200 ", s.dir / "store", "usage", s.dir / "e.txt");
  BOOST_TEST(wide.out.find("CACHE WRITE") != std::string::npos);  // room for every column
  BOOST_TEST(wide.out.find(",") != std::string::npos);            // 1,234,567
}

BOOST_AUTO_TEST_CASE(each_command_has_its_own_help_and_mistakes_get_suggestions) {
  Sample& s = sample();
  Run global = s.helix("--help");
  BOOST_TEST(global.exit_code == 0);
  for (const char* command : {"sweep", "sessions", "show", "search", "usage", "statusline",
                              "export", "resume", "digest", "env", "status", "warnings", "evict",
                              "plugins", "config", "hook", "hooks", "push", "fleet"}) {
    BOOST_TEST_CONTEXT(command) {
      Run help = s.helix(std::string(command) + " --help");
      BOOST_TEST(help.exit_code == 0);
      BOOST_TEST(help.out != global.out);
      BOOST_TEST(help.out.find(std::string("usage: helix-host ") + command) == 0u);
      BOOST_TEST(help.out.find("examples:") != std::string::npos);
      BOOST_TEST(s.helix(std::string("help ") + command).out == help.out);
    }
  }
  BOOST_TEST(s.helix("sweep --help").out.find("--quiet") != std::string::npos);
  BOOST_TEST(s.helix("hook --help").out.find("--foreground") != std::string::npos);
  Run version = s.helix("--version");
  BOOST_TEST(version.exit_code == 0);
  BOOST_TEST(version.out.find("plugin ABI 1.") != std::string::npos);
  Run typo = s.helix("sesions");
  BOOST_TEST(typo.exit_code == 2);
  BOOST_TEST(typo.err.find("did you mean 'sessions'") != std::string::npos);
  Run flag = s.helix("sessions --flavour claude");
  BOOST_TEST(flag.exit_code == 2);
  BOOST_TEST(flag.err.find("did you mean '--flavor'") != std::string::npos);
  Run too_many = s.helix("show a b");
  BOOST_TEST(too_many.exit_code == 2);
  BOOST_TEST(too_many.err.find("usage: helix-host show") != std::string::npos);
}

// The team commands' command line, which needs no database (test_fleet* run them against one).
BOOST_AUTO_TEST_CASE(team_commands_check_their_command_line_before_any_database) {
  Sample& s = sample();
  Run grant = s.helix("fleet grant --team web --member alice --member bob");
  BOOST_TEST(grant.exit_code == 0, grant.err);
  BOOST_TEST(grant.out.find("helix_team_web") != std::string::npos, grant.out);
  BOOST_TEST(grant.out.find("bob") != std::string::npos, grant.out);
  Run grant_json = s.helix("fleet grant --team web --member alice --json");
  BOOST_TEST(grant_json.exit_code == 0, grant_json.err);
  const auto granted = boost::json::parse(grant_json.out).as_object();
  BOOST_TEST(granted.at("team").as_string() == "web");
  BOOST_TEST(granted.at("members").as_array().size() == 1u);
  BOOST_TEST(granted.at("admins").as_array().empty());
  BOOST_TEST(granted.at("sql").as_string().find("helix_team_web") != std::string::npos);
  BOOST_TEST(s.helix("fleet --help").out.find("--connection") != std::string::npos);
  const std::pair<const char*, const char*> cases[] = {
      {"fleet", "fleet needs a subcommand: migrate or grant"},
      {"fleet migrat", "did you mean 'migrate'"},
      {"fleet grant --team web --connection host=x",
       "--connection is an option of 'fleet migrate'"},
      {"fleet migrate --team web", "--team is an option of 'fleet grant'"},
      {"fleet grant", "fleet grant needs --team"},
      {"usage --by member", "--by member groups the team's usage: it needs --fleet"},
      {"show codex:01a2029b --host abc", "--host selects a host's copy in the fleet"},
      {"usage --fleet --by week", "--by week cannot be used with --fleet"},
      {"usage blocks --fleet", "cannot be used with --fleet"},
      {"usage --fleet --breakdown", "--breakdown cannot be used with --fleet"},
      {"search --fleet --until today hello", "--until cannot be used with --fleet"},
      {"sessions --fleet --tree", "--tree cannot be used with --fleet"},
      {"sessions --fleet", "no fleet database is configured"},
      {"push", "no fleet database is configured"},
      {"mcp --fleet", "no fleet database is configured"}};
  for (const auto& [command, says] : cases) {
    BOOST_TEST_CONTEXT(command) {
      Run r = s.helix(command);
      BOOST_TEST(r.exit_code == 2);
      BOOST_TEST(r.err.find(says) != std::string::npos, r.err);
    }
  }
}

BOOST_AUTO_TEST_CASE(wrong_filter_values_are_errors_that_name_the_valid_ones) {
  Sample& s = sample();
  const std::pair<const char*, const char*> cases[] = {
      {"sessions --flavor claud", "did you mean 'claude'"},
      {"sessions --flavor Claude", "did you mean 'claude'"},
      {"usage --flavor codx", "did you mean 'codex'"},
      {"sessions --repo mockwork", "did you mean 'mockwork"},
      {"search hello --kind errors", "did you mean 'error'"},
      {"usage --by wek", "did you mean 'week'"},
      {"export codex:01a2029b --format markdown", "md, html, json or jsonl"},
      {"hooks install claud", "did you mean 'claude'"},
      {"--color sometimes sessions", "auto, always or never"},
      {"sessions --limit 0", "--limit must be at least 1"},
      {"search hello --limit 0", "--limit must be at least 1"},
      {"usage --limit -3", "--limit must be at least 1"}};
  for (const auto& [command, says] : cases) {
    BOOST_TEST_CONTEXT(command) {
      Run r = s.helix(command);
      BOOST_TEST(r.exit_code == 2);
      BOOST_TEST(r.err.find(says) != std::string::npos);
    }
  }
  BOOST_TEST(s.helix("sessions --flavor gemini").exit_code == 0);  // known, none stored yet
}

BOOST_AUTO_TEST_CASE(colour_only_on_a_terminal_and_never_with_no_color_or_a_dumb_terminal) {
  Sample& s = sample();
  const std::string esc = "\033[";
  BOOST_TEST(s.helix("search hello").out.find(esc) == std::string::npos);  // a pipe
  BOOST_TEST(s.helix("search hello").out.find("**hello**") == std::string::npos);
  BOOST_TEST(s.helix("--color=always search hello").out.find(esc) != std::string::npos);
  // In a terminal (script(1) gives the command a pty); the pager is off to read the output.
  auto in_tty = [&](const std::string& env, const std::string& args) {
    const auto log = s.dir / "tty.txt";
    helix::test::run_command(
        fmt::format("script -qec \"env {} {} {} --plugins {} --store {} --no-pager {}\" {} "
                    ">/dev/null 2>&1",
                    s.env, env, HELIX_TEST_HOST_BINARY, HELIX_TEST_PLUGIN_DIR,
                    (s.dir / "store").string(), args, log.string()),
        s.dir / "stderr.txt");
    return helix::test::read_file(log);
  };
  BOOST_TEST(in_tty("TERM=xterm", "search hello").find(esc) != std::string::npos);
  BOOST_TEST(in_tty("TERM=xterm NO_COLOR=1", "search hello").find(esc) == std::string::npos);
  BOOST_TEST(in_tty("TERM=dumb", "search hello").find(esc) == std::string::npos);
  BOOST_TEST(in_tty("TERM=xterm", "--color=never search hello").find(esc) == std::string::npos);
}

BOOST_AUTO_TEST_CASE(warnings_wrap_to_the_terminal_and_stay_one_line_when_piped) {
  Sample& s = sample();
  // Piped (even with COLUMNS set): one line per message, for logs and scripts.
  Run piped = run_helix(s.env + "COLUMNS=60 ", s.dir / "store", "usage", s.dir / "e.txt");
  const auto warning = piped.err.find("helix-host: warning: no price for ");
  BOOST_REQUIRE(warning != std::string::npos);
  const std::string one_line = piped.err.substr(warning, piped.err.find('\n', warning) - warning);
  BOOST_TEST(one_line.size() > 120u);
  BOOST_TEST(one_line.find("adds newer prices)") != std::string::npos);
  // On a terminal of 60 columns: every line fits, the warning goes on over indented lines.
  const auto log = s.dir / "tty-warning.txt";
  helix::test::run_command(
      fmt::format("script -qec \"env {} COLUMNS=60 TERM=xterm {} --plugins {} --store {} "
                  "--no-pager usage\" {} >/dev/null 2>&1",
                  s.env, HELIX_TEST_HOST_BINARY, HELIX_TEST_PLUGIN_DIR, (s.dir / "store").string(),
                  log.string()),
      s.dir / "stderr.txt");
  std::string text = helix::test::read_file(log);
  std::erase(text, '\r');
  const auto first = text.find("helix-host: warning: no price for ");
  BOOST_REQUIRE(first != std::string::npos);
  const auto end = text.find("adds newer prices)", first);
  BOOST_REQUIRE(end != std::string::npos);
  const std::string wrapped = text.substr(first, end - first);
  BOOST_TEST(std::count(wrapped.begin(), wrapped.end(), '\n') >= 2);
  BOOST_TEST(wrapped.find("\n  ") != std::string::npos);
  BOOST_TEST(widest_line(wrapped) <= 60u, wrapped);
}

BOOST_AUTO_TEST_CASE(long_output_goes_through_the_pager_on_a_terminal_only) {
  Sample& s = sample();
  const auto paged = s.dir / "paged.txt";
  std::filesystem::remove(paged);
  helix::test::run_command(
      fmt::format("script -qec \"env {} TERM=xterm PAGER='cat > {}' {} --plugins {} --store {} "
                  "sessions\" /dev/null >/dev/null 2>&1",
                  s.env, paged.string(), HELIX_TEST_HOST_BINARY, HELIX_TEST_PLUGIN_DIR,
                  (s.dir / "store").string()),
      s.dir / "stderr.txt");
  BOOST_TEST(helix::test::read_file(paged).find("SESSION") != std::string::npos);
  std::filesystem::remove(paged);
  helix::test::run_command(
      fmt::format("script -qec \"env {} TERM=xterm PAGER='cat > {}' {} --plugins {} --store {} "
                  "--no-pager sessions\" /dev/null >/dev/null 2>&1",
                  s.env, paged.string(), HELIX_TEST_HOST_BINARY, HELIX_TEST_PLUGIN_DIR,
                  (s.dir / "store").string()),
      s.dir / "stderr.txt");
  BOOST_TEST(!std::filesystem::exists(paged));
  // Piped: never a pager.
  Run piped = run_helix(s.env + "PAGER=false ", s.dir / "store", "sessions", s.dir / "e.txt");
  BOOST_TEST(piped.out.find("SESSION") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(usage_reports_by_week_month_session_with_breakdown_and_repo) {
  Sample& s = sample();
  auto report = [&](const std::string& args) {
    Run r = s.helix("usage --json " + args);
    BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    return json::parse(r.out).as_object();
  };
  const auto by_day = report("--by day");
  const int64_t total = by_day.at("totals").at("total_tokens").as_int64();
  for (const char* by : {"week", "month", "session", "model", "repo", "flavor"}) {
    BOOST_TEST_CONTEXT(by) {
      const auto r = report(std::string("--by ") + by + " --breakdown");
      BOOST_TEST(r.at("totals").at("total_tokens").as_int64() == total);
      int64_t models = 0;
      for (const auto& row : r.at("rows").as_array()) {
        BOOST_TEST(row.as_object().contains(by));
        int64_t sum = 0;
        for (const auto& m : row.at("models").as_array()) sum += m.at("total_tokens").as_int64();
        BOOST_TEST(sum == row.at("total_tokens").as_int64());
        models += static_cast<int64_t>(row.at("models").as_array().size());
      }
      BOOST_TEST(models > 0);
    }
  }
  const auto by_month = report("--by month");
  for (const auto& row : by_month.at("rows").as_array())
    BOOST_TEST(row.at("month").as_string().size() == 7u);  // YYYY-MM
  const auto sessions = report("--by session");
  for (const auto& row : sessions.at("rows").as_array())
    for (const char* key : {"session", "title", "repo", "flavor", "started_at", "cost_usd"})
      BOOST_TEST(row.as_object().contains(key), key);
  const auto repo = report("--repo mockworkA");
  BOOST_TEST(repo.at("totals").at("total_tokens").as_int64() == 59615);
  // Plain decimals, never exponents.
  const std::string text = s.helix("usage --json --by model").out;
  for (std::size_t i = 1; i + 1 < text.size(); ++i)
    BOOST_TEST(!(std::isdigit(static_cast<unsigned char>(text[i - 1])) &&
                 (text[i] == 'E' || text[i] == 'e') &&
                 (std::isdigit(static_cast<unsigned char>(text[i + 1])) || text[i + 1] == '-' ||
                  text[i + 1] == '+')));
}

BOOST_AUTO_TEST_CASE(usage_blocks_are_five_hour_windows) {
  Sample& s = sample();
  Run r = s.helix("usage blocks --json --flavor claude");
  BOOST_REQUIRE(r.exit_code == 0);
  const auto blocks = json::parse(r.out).at("blocks").as_array();
  BOOST_REQUIRE(!blocks.empty());
  int64_t tokens = 0;
  for (const auto& b : blocks) {
    const std::string start(b.at("start").as_string());
    if (!b.at("gap").as_bool()) BOOST_TEST(start.substr(14) == "00:00.000Z");  // on the hour
    tokens += b.at("total_tokens").as_int64();
  }
  BOOST_TEST(tokens == json::parse(s.helix("usage --json --flavor claude").out)
                           .at("totals")
                           .at("total_tokens")
                           .as_int64());
}

BOOST_AUTO_TEST_CASE(statusline_reads_claude_codes_json_and_prints_one_line) {
  Sample& s = sample();
  const std::string event =
      R"({"session_id":"163396cf-348b-4175-90f5-5ca0986ac0f1",)"
      R"("model":{"display_name":"Opus"},"workspace":{"current_dir":"/tmp"}})";
  helix::test::write_file(s.dir / "statusline.json", event);
  Run r = s.helix("statusline < " + (s.dir / "statusline.json").string());
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(std::count(r.out.begin(), r.out.end(), '\n') == 1);
  BOOST_TEST(r.out.find("today $") != std::string::npos);
  BOOST_TEST(r.out.find("session $") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(every_command_speaks_json_with_the_same_field_names) {
  Sample& s = sample();
  const auto plugins = json::parse(s.helix("plugins --json").out).as_object();
  BOOST_TEST(plugins.at("loaded").as_array().size() >= 4u);
  BOOST_TEST(plugins.at("host_abi").is_string());
  const auto config = json::parse(s.helix("config --json").out).as_object();
  BOOST_TEST(config.at("store").as_string().ends_with("store/helix.db"));
  const auto sweep = json::parse(s.helix("sweep --json").out).as_object();
  BOOST_TEST(sweep.at("events_added").as_int64() == 0);
  BOOST_TEST(sweep.at("sources").at("unchanged").as_int64() > 0);
  const auto warnings = json::parse(s.helix("warnings --json").out).as_array();
  BOOST_TEST(!warnings.empty());
}

BOOST_AUTO_TEST_CASE(env_statusline_report_and_mcp_speak_json_too) {
  Sample& s = sample();
  const std::string uid = "claude:163396cf-348b-4175-90f5-5ca0986ac0f1";
  const auto session = json::parse(s.helix("show " + uid + " --json").out).at("session");
  // env: the values of the export lines, under the shared names.
  const auto env = json::parse(s.helix("env " + uid + " --json").out).as_object();
  BOOST_TEST(std::string(env.at("session_uid").as_string()) == uid);
  BOOST_TEST(env.at("repo") == session.at("repo"));
  BOOST_TEST(env.at("flavor") == "claude");
  const Run exports = s.helix("env " + uid);
  BOOST_TEST(exports.out.find(fmt::format("HELIX_TOKENS={}\n", env.at("tokens").as_int64())) !=
             std::string::npos);
  BOOST_TEST(std::string(env.at("store_db").as_string()).ends_with("/store/helix.db"));
  BOOST_TEST(exports.out.find(std::string(env.at("store_db").as_string())) != std::string::npos);
  // statusline: the figures of its line.
  helix::test::write_file(s.dir / "status.json",
                          R"({"session_id":"163396cf-348b-4175-90f5-5ca0986ac0f1"})");
  const auto line =
      json::parse(s.helix("statusline --json < " + (s.dir / "status.json").string()).out);
  BOOST_TEST(std::string(line.at("session").at("session_uid").as_string()) == uid);
  BOOST_TEST(line.at("session").at("cost_usd").as_double() ==
             session.at("cost").at("cost_usd").as_double());
  BOOST_TEST(line.at("today").at("cost_usd").is_double());
  BOOST_TEST(line.at("today").at("day").as_string().size() == 10u);
  BOOST_TEST(line.at("block").is_null());  // the fixtures' calls are long past
  // report: what it wrote, every page there.
  const auto report = json::parse(
      s.helix("report --html --since 2000-01-01 --json --out " + (s.dir / "report").string()).out);
  BOOST_TEST(std::filesystem::exists(std::string(report.at("index").as_string())));
  BOOST_TEST(report.at("sessions").as_array().size() >= 4u);
  for (const auto& r : report.at("sessions").as_array())
    BOOST_TEST(std::filesystem::exists(std::string(r.at("page").as_string())));
  // mcp: the catalogue a client's tools/list gets, without a store or a client.
  const Run catalogue = run_helix(s.env, s.dir / "no-store", "mcp --json", s.dir / "e.txt");
  BOOST_TEST(catalogue.exit_code == 0);
  const auto mcp = json::parse(catalogue.out);
  std::set<std::string> tools;
  for (const auto& t : mcp.at("tools").as_array()) {
    tools.insert(std::string(t.at("name").as_string()));
    BOOST_TEST(t.at("inputSchema").at("type") == "object");
  }
  BOOST_TEST((tools == std::set<std::string>{"search_sessions", "list_sessions", "get_session",
                                             "session_usage", "resume_command", "recall"}));
  BOOST_TEST(json::parse(s.helix("mcp --json --fleet").out).at("tools").as_array().size() >
             tools.size());
  BOOST_TEST(mcp.at("resource_templates")
                 .at(0)
                 .at("uriTemplate")
                 .as_string()
                 .starts_with("helix://session/"));
}

BOOST_AUTO_TEST_CASE(show_hides_bookkeeping_and_digest_reads_as_a_summary) {
  Sample& s = sample();
  Run quiet = s.helix("show codex:01a2029b");
  Run all = s.helix("show codex:01a2029b --all");
  BOOST_TEST(quiet.out.find("bookkeeping and context events not listed") != std::string::npos);
  BOOST_TEST(std::count(all.out.begin(), all.out.end(), '\n') >
             std::count(quiet.out.begin(), quiet.out.end(), '\n'));
  BOOST_TEST(quiet.out.find("outcome success") != std::string::npos);
  BOOST_TEST(quiet.out.find("→ exec_command") != std::string::npos);  // a tool call, one line
  Run digest = s.helix("digest codex:01a2029b");
  BOOST_TEST(digest.out.find("{\"") == std::string::npos);  // no JSON blobs
  BOOST_TEST(digest.out.find("first prompt:") != std::string::npos);
  BOOST_TEST(json::parse(s.helix("digest codex:01a2029b --json").out).is_object());
}

BOOST_AUTO_TEST_CASE(store_paths_config_errors_and_warnings) {
  Sample& s = sample();
  const std::string base =
      fmt::format("{}{} --plugins {} ", s.env, HELIX_TEST_HOST_BINARY, HELIX_TEST_PLUGIN_DIR);
  const auto err = s.dir / "e.txt";
  const std::string dir = (s.dir / "store").string(), file = (s.dir / "store/helix.db").string();
  // The same store whichever way it is named.
  for (const std::string& how :
       {"--store " + dir, "--store " + file, "HELIX_STORE_DB=" + dir, "HELIX_STORE_DB=" + file}) {
    BOOST_TEST_CONTEXT(how) {
      const bool env = how.starts_with("HELIX");
      Run r = helix::test::run_command((env ? how + " " : std::string()) + base + (env ? "" : how) +
                                           " status --json 2>" + err.string(),
                                       err);
      BOOST_TEST(r.exit_code == 0);
      BOOST_TEST(json::parse(r.out).at("store").as_string() == file);
    }
  }
  helix::test::write_file(s.dir / "bad.toml", "[session_memory.retention]\nraw_soft_cap = 1\n");
  Run bad = s.helix("--config " + (s.dir / "bad.toml").string() + " status");
  BOOST_TEST(bad.exit_code == 2);
  BOOST_TEST(bad.err.find("did you mean 'raw_soft_cap_bytes'") != std::string::npos);
  Run missing = s.helix("--config " + (s.dir / "nonexist.toml").string() + " status");
  BOOST_TEST(missing.exit_code == 2);
  BOOST_TEST(missing.err.find("nonexist.toml does not exist") != std::string::npos);
  Run warnings = s.helix("warnings --category unknown_type");
  BOOST_TEST(warnings.exit_code == 0);
  BOOST_TEST(warnings.out.find("unknown_type") != std::string::npos);
  BOOST_TEST(s.helix("warnings --category unknown_typ").err.find("did you mean") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(hooks_install_and_uninstall_edit_each_agents_settings_safely) {
  TempDir dir;
  const std::string env = fmt::format(
      "CLAUDE_CONFIG_DIR={0}/claude CODEX_HOME={0}/codex GROK_HOME={0}/grok "
      "GEMINI_CLI_HOME={0}/gemini ",
      dir.path().string());
  auto hooks = [&](const std::string& args) {
    return run_helix(env, dir / "store", "hooks " + args, dir / "stderr.txt");
  };
  // Claude Code: settings of the user's own are kept, with a backup, and come back on uninstall.
  const std::string mine =
      R"({"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify-send done"}]}]}})";
  const auto settings = dir / "claude/settings.json";
  helix::test::write_file(settings, mine);
  Run dry = hooks("install claude --dry-run");
  BOOST_TEST(dry.exit_code == 0);
  BOOST_TEST(dry.out.find("+") != std::string::npos);
  BOOST_TEST(dry.out.find(" hook claude") != std::string::npos);
  BOOST_TEST(helix::test::read_file(settings) == mine);  // a dry run writes nothing
  BOOST_TEST(hooks("install claude").exit_code == 0);
  const auto installed = json::parse(helix::test::read_file(settings));
  BOOST_TEST(installed.at("model").as_string() == "opus");
  BOOST_TEST(installed.at("hooks").at("Stop").as_array().size() == 2u);
  BOOST_TEST(installed.at("hooks").at("SessionEnd").as_array().size() == 1u);
  const std::string command(
      installed.at("hooks").at("SessionEnd").at(0).at("hooks").at(0).at("command").as_string());
  BOOST_TEST(command.find("helix-host --store ") != std::string::npos);
  BOOST_TEST(command.ends_with(" hook claude"));
  std::size_t backups = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir / "claude"))
    if (e.path().filename().string().starts_with("settings.json.helix-backup-")) {
      ++backups;
      BOOST_TEST(helix::test::read_file(e.path()) == mine);
    }
  BOOST_TEST(backups == 1u);
  const std::string once = helix::test::read_file(settings);
  Run again = hooks("install claude");
  BOOST_TEST(again.out.find("nothing to do") != std::string::npos);
  BOOST_TEST(helix::test::read_file(settings) == once);  // idempotent
  BOOST_TEST(hooks("uninstall claude").exit_code == 0);
  BOOST_TEST(json::parse(helix::test::read_file(settings)) == json::parse(mine));
  // Codex: one top-level notify, before the first table; another program is never replaced.
  const auto toml = dir / "codex/config.toml";
  helix::test::write_file(toml, "model = \"o3\"\n\n[profiles.fast]\nmodel = \"o4-mini\"\n");
  BOOST_TEST(hooks("install codex").exit_code == 0);
  const std::string with = helix::test::read_file(toml);
  BOOST_TEST(with.find("notify = [") < with.find("[profiles.fast]"));
  BOOST_TEST(with.find("\"hook\", \"codex\"]") != std::string::npos);
  BOOST_TEST(hooks("uninstall codex").exit_code == 0);
  BOOST_TEST(helix::test::read_file(toml) ==
             "model = \"o3\"\n\n[profiles.fast]\nmodel = \"o4-mini\"\n");
  helix::test::write_file(toml, "notify = [\"my-notifier\"]\n");
  Run taken = hooks("install codex");
  BOOST_TEST(taken.exit_code == 2);
  BOOST_TEST(taken.err.find("call 'helix-host hook codex \"$1\"' from it") != std::string::npos);
  BOOST_TEST(helix::test::read_file(toml) == "notify = [\"my-notifier\"]\n");  // nothing written
  // The MCP server alone, beside the user's own notify program.
  BOOST_TEST(hooks("install codex --no-hook").exit_code == 0);
  BOOST_TEST(
      helix::test::read_file(toml).starts_with("notify = [\"my-notifier\"]\n\n"
                                               "[mcp_servers.helix]\n"));
  BOOST_TEST(hooks("uninstall codex --no-hook").exit_code == 0);
  BOOST_TEST(helix::test::read_file(toml) == "notify = [\"my-notifier\"]\n");
  BOOST_TEST(hooks("install codex --no-hook --no-mcp").exit_code == 2);
  // Grok Build reads a file of helix's own; Gemini CLI its settings.json.
  BOOST_TEST(hooks("install grok").exit_code == 0);
  BOOST_TEST(std::filesystem::exists(dir / "grok/hooks/helix.json"));
  BOOST_TEST(hooks("uninstall grok").exit_code == 0);
  BOOST_TEST(!std::filesystem::exists(dir / "grok/hooks/helix.json"));
  BOOST_TEST(hooks("install gemini").exit_code == 0);
  const auto gemini = json::parse(helix::test::read_file(dir / "gemini/.gemini/settings.json"));
  BOOST_TEST(gemini.at("hooks").as_object().contains("AfterAgent"));
  BOOST_TEST(gemini.at("hooks").as_object().contains("SessionEnd"));
}

// Every backup helix made of `file`, each holding `original`.
std::size_t backups_of(const std::filesystem::path& file, const std::string& original) {
  std::size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(file.parent_path()))
    if (e.path().filename().string().starts_with(file.filename().string() + ".helix-backup-")) {
      ++n;
      BOOST_TEST(helix::test::read_file(e.path()) == original);
    }
  return n;
}

BOOST_AUTO_TEST_CASE(hooks_install_adds_claudes_user_mcp_server_beside_the_users_own) {
  TempDir dir;
  // No CLAUDE_CONFIG_DIR: Claude Code keeps its user-scope servers in ~/.claude.json.
  const std::string env =
      fmt::format("env -u CLAUDE_CONFIG_DIR HOME={0}/home ", dir.path().string());
  auto hooks = [&](const std::string& args) {
    return run_helix(env, dir / "store", "hooks " + args, dir / "stderr.txt");
  };
  const auto file = dir / "home/.claude.json";
  const std::string mine =
      R"({"numStartups":7,"projects":{"/src/a":{"mcpServers":{}}},"mcpServers":{"playwright":)"
      R"({"type":"stdio","command":"npx","args":["@playwright/mcp@latest"],"env":{}}}})";
  helix::test::write_file(file, mine);
  Run dry = hooks("install claude --dry-run");
  BOOST_TEST(dry.exit_code == 0);
  BOOST_TEST(dry.out.find("+    \"helix\": {") != std::string::npos);
  BOOST_TEST(helix::test::read_file(file) == mine);
  BOOST_TEST(!std::filesystem::exists(dir / "home/.claude/settings.json"));

  BOOST_TEST(hooks("install claude").exit_code == 0);
  const auto installed = json::parse(helix::test::read_file(file));
  const auto original = json::parse(mine);
  BOOST_TEST(installed.at("numStartups") == original.at("numStartups"));
  BOOST_TEST(installed.at("projects") == original.at("projects"));
  BOOST_TEST(installed.at("mcpServers").at("playwright") ==
             original.at("mcpServers").at("playwright"));
  const auto& helix = installed.at("mcpServers").at("helix").as_object();
  BOOST_TEST(helix.at("type") == "stdio");
  BOOST_TEST(std::string(helix.at("command").as_string()).ends_with("/helix-host"));
  BOOST_TEST(helix.at("args") ==
             json::parse(fmt::format(R"(["--store","{}","mcp"])", (dir / "store").string())));
  BOOST_TEST(helix.at("env") == json::object());
  BOOST_TEST(backups_of(file, mine) == 1u);
  BOOST_TEST(std::filesystem::exists(dir / "home/.claude/settings.json"));  // and the hook

  const std::string once = helix::test::read_file(file);
  BOOST_TEST(hooks("install claude").out.find("nothing to do") != std::string::npos);
  BOOST_TEST(helix::test::read_file(file) == once);
  const auto status = json::parse(hooks("status claude --json").out);
  BOOST_TEST(status.at("parts").at(1).at("part") == "mcp_server");
  BOOST_TEST(std::string(status.at("parts").at(1).at("file").as_string()) == file.string());
  BOOST_TEST(status.at("parts").at(1).at("installed") == true);

  const auto removed = json::parse(hooks("uninstall claude --json").out);
  BOOST_TEST(json::parse(helix::test::read_file(file)) == original);
  BOOST_TEST(removed.at("parts").at(1).at("installed") == false);
  BOOST_TEST(removed.at("files").at(0).at("removed") == true);  // settings.json was only helix's
  BOOST_TEST(!std::filesystem::exists(dir / "home/.claude/settings.json"));
  BOOST_TEST(hooks("status claude").out.find("not installed") != std::string::npos);

  // --no-mcp: the hook alone.
  BOOST_TEST(hooks("install claude --no-mcp").exit_code == 0);
  BOOST_TEST(json::parse(helix::test::read_file(file)) == original);
  BOOST_TEST(hooks("uninstall claude --no-mcp").exit_code == 0);

  // A server of another program named "helix" is never replaced, and nothing is written.
  const std::string taken = R"({"mcpServers":{"helix":{"command":"helix-notes","args":[]}}})";
  helix::test::write_file(file, taken);
  Run refused = hooks("install claude");
  BOOST_TEST(refused.exit_code == 2);
  BOOST_TEST(refused.err.find("does not run 'helix-host mcp'") != std::string::npos);
  BOOST_TEST(helix::test::read_file(file) == taken);
  BOOST_TEST(!std::filesystem::exists(dir / "home/.claude/settings.json"));
}

BOOST_AUTO_TEST_CASE(hooks_dry_run_shows_only_the_change_of_a_large_claude_json) {
  TempDir dir;
  const std::string env = fmt::format("env -u CLAUDE_CONFIG_DIR HOME={0} ", dir.path().string());
  auto hooks = [&](const std::string& args) {
    return run_helix(env, dir / "store", "hooks " + args, dir / "e.txt");
  };
  // ~/.claude.json grows with every project: thousands of lines around the one change.
  json::object projects;
  for (int i = 0; i < 3000; ++i)
    projects[fmt::format("/src/p{}", i)] = json::object{{"history", json::array{"x", "y"}}};
  const auto file = dir / ".claude.json";
  helix::test::write_file(
      file, json::serialize(json::object{{"projects", projects}, {"mcpServers", json::object{}}}));
  BOOST_TEST(hooks("install claude").exit_code == 0);
  BOOST_TEST(hooks("uninstall claude").exit_code == 0);
  const std::string two_spaces = helix::test::read_file(file);  // now in helix's layout
  BOOST_TEST(std::count(two_spaces.begin(), two_spaces.end(), '\n') > 9000);
  Run dry = hooks("install claude --dry-run");
  BOOST_TEST(dry.out.find("\n@@ -") != std::string::npos);
  BOOST_TEST(dry.out.find("+    \"helix\": {") != std::string::npos);
  BOOST_TEST(std::count(dry.out.begin(), dry.out.end(), '\n') < 80);  // hunks, not the file
  // Laid out otherwise, every line changes: the diff is the file out and in, at once.
  std::string four_spaces;
  for (std::size_t at = 0; at < two_spaces.size();) {
    const auto end = two_spaces.find('\n', at) + 1;
    const std::string line = two_spaces.substr(at, end - at);
    four_spaces += std::string(line.find_first_not_of(' '), ' ') + line;
    at = end;
  }
  helix::test::write_file(file, four_spaces);
  dry = hooks("install claude --dry-run");
  BOOST_TEST(dry.exit_code == 0, dry.err);
  BOOST_TEST(dry.out.find("+    \"helix\": {") != std::string::npos);
  BOOST_TEST(dry.out.find("\n-        \"/src/p2999\": {") != std::string::npos);
  BOOST_TEST(helix::test::read_file(file) == four_spaces);
}

BOOST_AUTO_TEST_CASE(hooks_install_adds_the_mcp_server_to_codex_grok_and_gemini_configs) {
  TempDir dir;
  const std::string env = fmt::format(
      "CODEX_HOME={0}/codex GROK_HOME={0}/grok GEMINI_CLI_HOME={0}/gemini ", dir.path().string());
  auto hooks = [&](const std::string& args) {
    return run_helix(env, dir / "store", "hooks " + args, dir / "stderr.txt");
  };
  const std::string block = fmt::format(
      "[mcp_servers.helix]\ncommand = \"{}\"\nargs = [\"--store\", \"{}\", \"mcp\"]\n",
      (std::filesystem::path(HELIX_TEST_HOST_BINARY).parent_path() / "helix-host").string(),
      (dir / "store").string());
  // Codex: the server table goes after the user's own; uninstall gives the file back byte for
  // byte (the notify hook included).
  const auto codex = dir / "codex/config.toml";
  const std::string codex_mine =
      "model = \"o3\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\nargs = [\"--port\", "
      "\"0\"]\n\n[profiles.fast]\nmodel = \"o4-mini\"\n";
  helix::test::write_file(codex, codex_mine);
  Run dry = hooks("install codex --dry-run");
  BOOST_TEST(dry.out.find("+[mcp_servers.helix]") != std::string::npos);
  BOOST_TEST(helix::test::read_file(codex) == codex_mine);
  BOOST_TEST(hooks("install codex").exit_code == 0);
  const std::string with = helix::test::read_file(codex);
  BOOST_TEST(with.ends_with("model = \"o4-mini\"\n\n" + block));
  BOOST_TEST(with.find("[mcp_servers.docs]\ncommand = \"docs-mcp\"") != std::string::npos);
  BOOST_TEST(backups_of(codex, codex_mine) == 1u);
  BOOST_TEST(hooks("install codex").out.find("nothing to do") != std::string::npos);
  BOOST_TEST(helix::test::read_file(codex) == with);
  BOOST_TEST(hooks("uninstall codex").exit_code == 0);
  BOOST_TEST(helix::test::read_file(codex) == codex_mine);
  // An entry of helix-host's own with other arguments (another store) is brought up to date,
  // in place.
  helix::test::write_file(codex,
                          "[mcp_servers.helix]\ncommand = \"/opt/helix-host\"\nargs = "
                          "[\"mcp\"]\n\n[profiles.fast]\nmodel = \"o4-mini\"\n");
  BOOST_TEST(hooks("install codex --no-mcp").exit_code == 0);  // (the hook, to test beside it)
  BOOST_TEST(hooks("install codex").exit_code == 0);
  BOOST_TEST(helix::test::read_file(codex).find(block + "\n[profiles.fast]") != std::string::npos);
  // Not TOML, or a "helix" of another program: an error naming the file, nothing written.
  const std::map<std::string, std::string> refusals = {
      {"model = \n", "is not valid TOML (line 1"},
      {"[mcp_servers.helix]\ncommand = \"notes\"\n", "does not run 'helix-host mcp'"}};
  for (const auto& [bad, why] : refusals) {
    helix::test::write_file(codex, bad);
    Run refused = hooks("install codex");
    BOOST_TEST(refused.exit_code == 2);
    BOOST_TEST(refused.err.find(codex.string() + ": ") != std::string::npos);
    BOOST_TEST(refused.err.find(why) != std::string::npos, refused.err);
    BOOST_TEST(helix::test::read_file(codex) == bad);
  }

  // Grok Build: $GROK_HOME/config.toml, created and removed again when it held nothing else.
  const auto grok = dir / "grok/config.toml";
  BOOST_TEST(hooks("install grok").exit_code == 0);
  BOOST_TEST(helix::test::read_file(grok) == block);
  BOOST_TEST(hooks("uninstall grok").exit_code == 0);
  BOOST_TEST(!std::filesystem::exists(grok));
  const std::string grok_mine = "[mcp_servers.linear]\nurl = \"https://mcp.linear.app/mcp\"\n";
  helix::test::write_file(grok, grok_mine);
  BOOST_TEST(hooks("install grok").exit_code == 0);
  BOOST_TEST(helix::test::read_file(grok) == grok_mine + "\n" + block);
  BOOST_TEST(hooks("uninstall grok").exit_code == 0);
  BOOST_TEST(helix::test::read_file(grok) == grok_mine);

  // Gemini CLI: mcpServers in the settings.json that also holds the hooks.
  const auto gemini = dir / "gemini/.gemini/settings.json";
  const std::string gemini_mine = R"({"theme":"Default","mcpServers":{"git":{"command":"uvx",)"
                                  R"("args":["mcp-server-git"],"trust":false}}})";
  helix::test::write_file(gemini, gemini_mine);
  BOOST_TEST(hooks("install gemini").exit_code == 0);
  const auto settings = json::parse(helix::test::read_file(gemini));
  BOOST_TEST(settings.at("mcpServers").at("git") ==
             json::parse(gemini_mine).at("mcpServers").at("git"));
  BOOST_TEST(settings.at("mcpServers").at("helix").at("args").at(2) == "mcp");
  BOOST_TEST(!settings.at("mcpServers").at("helix").as_object().contains("type"));
  BOOST_TEST(settings.at("hooks").as_object().contains("AfterAgent"));
  BOOST_TEST(hooks("uninstall gemini").exit_code == 0);
  BOOST_TEST(json::parse(helix::test::read_file(gemini)) == json::parse(gemini_mine));
}

// What the fleet stores reads back exactly: every pushed session of a host (the bundled Claude
// Code fixtures plus one written to be hostile: quotes, backslashes, COPY and SQL syntax, the
// fleet's own escape character, a JSON-escaped NUL, a 10 MB answer) compared field by field
// with the local store's answers, after NUL bytes were also put straight into the local store
// (PostgreSQL text cannot hold them: docs/schema.md, Team memory). And the escape itself.
#define BOOST_TEST_MODULE fleet_values
#include <boost/test/unit_test.hpp>

#include <fmt/format.h>

#include <boost/json.hpp>
#include <random>

#include "fleet/pg_text.hpp"
#include "fleet_world.hpp"
#include "store/database.hpp"
#include "store/digest_store.hpp"
#include "store/store.hpp"

namespace json = boost::json;
using helix::from_pg_text;
using helix::to_pg_text;
using helix::test::FleetHost;
using helix::test::FleetServer;
using helix::test::Run;
using helix::test::SkipWithoutPostgres;

namespace {

BOOST_TEST_GLOBAL_FIXTURE(SkipWithoutPostgres);

constexpr const char* kHostileId = "0bad0bad-0000-4000-8000-000000000001";
const std::string kHostileUid = std::string("claude:") + kHostileId;

// A prompt with everything that could break quoting, COPY's text format or the fleet's escape.
const std::string kHostilePrompt =
    "it's \"quoted\" `back` \\ \\\\ \\N \\. \\t end\ttab\nnew line\r\ncrlf "
    "\xE2\x90\x80 \xE2\x90\x80"
    "00 \xE2\x90\x80\xE2\x90\x80 emoji \xF0\x9F\x98\x80 '); DROP TABLE helix_fleet.sessions; -- "
    "$$ $grant$ %s {} \x01\x1f";

// About 10 MB of words, a word only it has at the start (within what search indexes) and one
// at its end (beyond: only the text keeps it).
std::string big_answer() {
  std::mt19937 random(7);
  std::string text = "quasarkumquat opens a ten megabyte answer\n";
  while (text.size() < 10 * 1000 * 1000)
    text += fmt::format("word{} ", random() % 5000) + (random() % 13 == 0 ? "\n" : "");
  return text + "finalwombat";
}

// A Claude Code 2.0.76 transcript of one prompt and its answer.
std::string hostile_transcript() {
  auto record = [](json::object o) {
    o["parentUuid"] = o.contains("parentUuid") ? o["parentUuid"] : nullptr;
    o["isSidechain"] = false;
    o["userType"] = "external";
    o["cwd"] = "/tmp/hostile 'dir'";
    o["sessionId"] = kHostileId;
    o["version"] = "2.0.76";
    o["gitBranch"] = "main\\\"branch";
    return json::serialize(o) + "\n";
  };
  // The prompt's JSON also carries an escaped NUL (the local store keeps U+FFFD for it).
  std::string user = record({{"type", "user"},
                             {"message", {{"role", "user"}, {"content", kHostilePrompt + "|NUL|"}}},
                             {"uuid", "u-1"},
                             {"timestamp", "2026-03-01T10:00:00.000Z"}});
  user.replace(user.find("|NUL|"), 5, "\\u0000");
  const std::string assistant =
      record({{"type", "assistant"},
              {"parentUuid", "u-1"},
              {"message",
               {{"model", "claude-opus-4-5-20251101"},
                {"id", "msg_hostile_1"},
                {"type", "message"},
                {"role", "assistant"},
                {"content", json::array{{{"type", "text"}, {"text", big_answer()}}}},
                {"stop_reason", "end_turn"},
                {"usage",
                 {{"input_tokens", 11},
                  {"cache_creation_input_tokens", 13},
                  {"cache_read_input_tokens", 17},
                  {"output_tokens", 19}}}}},
              {"requestId", "req_hostile_1"},
              {"uuid", "a-1"},
              {"timestamp", "2026-03-01T10:00:05.000Z"}});
  return user + assistant;
}

json::value parse_ok(const Run& r) {
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return json::parse(r.out);
}

// `text` as one word for the shell run_helix goes through.
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The local JSON without what the fleet never receives, or receives in another shape.
json::object without(json::object o, std::initializer_list<const char*> keys) {
  for (const char* k : keys) o.erase(k);
  return o;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_escape_round_trips_any_bytes_and_leaves_ordinary_text_alone) {
  BOOST_TEST(to_pg_text("plain text, é, 😀") == "plain text, é, 😀");
  BOOST_TEST(to_pg_text(std::string("a\0b", 3)) ==
             "a\xE2\x90\x80"
             "00b");
  BOOST_TEST(to_pg_text("\xE2\x90\x80") == "\xE2\x90\x80\xE2\x90\x80");
  BOOST_TEST(to_pg_text("bad \xC3 byte") ==
             "bad \xE2\x90\x80"
             "c3 byte");
  BOOST_TEST(from_pg_text("left \xE2\x90\x80 alone") == "left \xE2\x90\x80 alone");
  std::mt19937 random(11);
  // (Split after \x01: a hex escape takes every hex digit that follows, "\x01a" is one byte.)
  const std::string alphabet(
      "\0\x01"
      "a\\\t\n\xE2\x90\x80\xC3\xA9\xFF\xC3",
      13);
  for (int round = 0; round < 2000; ++round) {
    std::string bytes;
    for (std::size_t n = random() % 40; n > 0; --n) bytes += alphabet[random() % alphabet.size()];
    const std::string stored = to_pg_text(bytes);
    BOOST_REQUIRE(stored.find('\0') == std::string::npos);
    BOOST_REQUIRE(from_pg_text(stored) == bytes);
  }
}

BOOST_AUTO_TEST_CASE(every_pushed_session_reads_back_as_the_local_store_has_it) {
  auto& server = FleetServer::get();
  server.add_member("values", "val", "val-pw");
  FleetHost host("val", "val-pw", {"claude"});
  host.configure("values", "events = true");
  helix::test::write_file(
      host.dir() / "home/claude/projects/-tmp-hostile" / (std::string(kHostileId) + ".jsonl"),
      hostile_transcript());
  Run swept = host.helix("sweep --quiet");
  BOOST_REQUIRE_MESSAGE(swept.exit_code == 0, swept.err);
  {  // NUL bytes straight into the store, as no adapter can put them there, and a digest whose
     // JSON escapes one (PostgreSQL's jsonb would refuse it).
    helix::Database db(host.dir() / "store/helix.db");
    db.exec(
        fmt::format("UPDATE sessions SET title = 'nul' || char(0) || 'in title', cwd = char(0) || "
                    "'/starts with nul' WHERE uid = '{}'",
                    kHostileUid));
    db.exec(fmt::format(R"(UPDATE digests SET json = replace(json, '"outcome"',
                           '"nul_note":"a\u0000b\\c","outcome"') WHERE session_uid = '{}')",
                        kHostileUid));
  }
  Run pushed = host.helix("push");
  BOOST_REQUIRE_MESSAGE(pushed.exit_code == 0, pushed.err);

  const auto sessions = parse_ok(host.helix("sessions --json")).as_array();
  BOOST_REQUIRE(sessions.size() > 5u);
  bool saw_hostile = false;
  for (const auto& listed : sessions) {
    const std::string uid(listed.at("session_uid").as_string());
    saw_hostile |= uid == kHostileUid;
    const auto local = parse_ok(host.helix("show --json " + quoted(uid))).as_object();
    const auto copies = parse_ok(host.helix("show --fleet --json " + quoted(uid))).as_array();
    BOOST_REQUIRE_MESSAGE(copies.size() == 1u, uid);
    const auto& fleet = copies[0].as_object();
    BOOST_TEST(json::serialize(without(local.at("session").as_object(), {"source_path"})) ==
                   json::serialize(without(
                       fleet.at("session").as_object(),
                       {"source_path", "team", "host_id", "host_name", "member", "pushed_at"})),
               uid);
    const auto& local_events = local.at("events").as_array();
    const auto& fleet_events = fleet.at("events").as_array();
    BOOST_REQUIRE_MESSAGE(local_events.size() == fleet_events.size(), uid);
    for (std::size_t i = 0; i < local_events.size(); ++i)
      BOOST_TEST(json::serialize(without(local_events[i].as_object(),
                                         {"payload_ref", "source_path", "source_offset", "ordinal",
                                          "tokens"})) == json::serialize(fleet_events[i]),
                 uid << " event " << i);
    // Digests as their digesters wrote them (`digest --json` adds the host's current prices).
    helix::Store store(host.dir() / "store/helix.db", /*read_only=*/true);
    const auto stored = helix::session_digests(store, uid);
    const auto& fleet_digests = fleet.at("digests").as_array();
    BOOST_REQUIRE_MESSAGE(stored.size() == fleet_digests.size(), uid);
    for (std::size_t i = 0; i < stored.size(); ++i)
      BOOST_TEST(json::serialize(json::parse(stored[i].json)) ==
                     json::serialize(fleet_digests[i].at("digest")),
                 uid);
  }
  BOOST_REQUIRE(saw_hostile);

  // The hostile values themselves, as the fleet returns them.
  const auto hostile =
      parse_ok(host.helix("show --fleet --json " + kHostileUid)).as_array()[0].as_object();
  BOOST_TEST(hostile.at("session").at("title").as_string() == std::string("nul\0in title", 12));
  const auto& events = hostile.at("events").as_array();
  BOOST_REQUIRE(events.size() >= 2u);
  const std::string prompt(events[0].at("text").as_string());
  BOOST_TEST(prompt == kHostilePrompt + "\xEF\xBF\xBD");
  const std::string answer(events[1].at("text").as_string());
  BOOST_TEST(answer.size() == big_answer().size());
  BOOST_TEST(answer == big_answer());
  // Search reads the first 32 KiB of each text, as local search does.
  const auto found = parse_ok(host.helix("search --fleet --json quasarkumquat")).as_array();
  BOOST_REQUIRE(found.size() == 1u);
  BOOST_TEST(found[0].at("session_uid").as_string() == kHostileUid);
  BOOST_TEST(parse_ok(host.helix("search --fleet --json finalwombat")).as_array().empty());
  // And the schema is intact.
  BOOST_TEST(server.count("SELECT count(*) FROM helix_fleet.sessions WHERE team = 'values'") ==
             static_cast<int64_t>(sessions.size()));
}

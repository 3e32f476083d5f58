// Resumable digests (ABI 1.2) over the real fixtures, the real loader and the real binary:
// session_digest resumed at every split point of every fixture session gives the digest of all
// its events byte for byte, and a session that grows after its raw data was evicted keeps the
// digest and the usage totals of a store that never evicted it.
#define BOOST_TEST_MODULE digest_resume
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <ctime>
#include <helix/json.hpp>

#include "helix_command.hpp"
#include "plugins/digester_instance.hpp"
#include "plugins/plugin_registry.hpp"
#include "store/digest_store.hpp"
#include "store/store.hpp"
#include "temp_dir.hpp"
#include "usage_rollup_check.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
namespace json = boost::json;
using helix::test::Run;
using helix::test::TempDir;

namespace {

// The sample agent home (every fixture) with a plugin directory; stores are swept from it.
struct Home {
  TempDir dir;
  std::string env;

  // One fixed past time for every source, so files not changed since keep their mtime.
  const fs::file_time_type long_ago = fs::file_time_type::clock::now() - std::chrono::hours(48);

  Home() {
    const std::string make =
        fmt::format("{}/../scripts/make-sample-home {} {}", HELIX_TEST_FIXTURE_DIR "/..",
                    HELIX_TEST_FIXTURE_DIR, (dir / "home").string());
    BOOST_REQUIRE(std::system(make.c_str()) == 0);
    env = fmt::format(
        "CLAUDE_CONFIG_DIR={0}/home/claude CODEX_HOME={0}/home/codex "
        "GROK_HOME={0}/home/grok GEMINI_CLI_HOME={0}/home/gemini XDG_CONFIG_HOME={0}/xdg TZ=UTC ",
        dir.path().string());
    fs::create_directories(dir / "plugins");
    for (const auto& e : fs::directory_iterator(HELIX_TEST_PLUGIN_DIR))
      if (e.path().extension() == ".so")
        fs::copy_file(e.path(), dir / "plugins" / e.path().filename());
    age_every_file();
  }

  // Sources last changed two days ago: no session counts as still being written.
  void age_every_file() const {
    for (const auto& e : fs::recursive_directory_iterator(dir / "home"))
      if (e.is_regular_file()) fs::last_write_time(e.path(), long_ago);
  }

  fs::path home(const std::string& relative) const { return dir / "home" / relative; }

  // Runs helix-host on store `store` with config `config` ("" = none).
  Run helix(const std::string& store, const std::string& config, const std::string& args) const {
    const auto err_file = dir / "stderr.txt";
    std::string config_arg;
    if (!config.empty()) {
      helix::test::write_file(dir / (store + ".toml"), config);
      config_arg = " --config " + (dir / (store + ".toml")).string();
    }
    const std::string cmd = fmt::format(
        "{}{} --plugins {} --store {}{} {} 2>{}", env, HELIX_TEST_HOST_BINARY,
        (dir / "plugins").string(), (dir / store).string(), config_arg, args, err_file.string());
    return helix::test::run_command(cmd, err_file);
  }

  Run sweep(const std::string& store, const std::string& config = "") const {
    Run r = helix(store, config, "sweep");
    BOOST_TEST_MESSAGE(r.out << r.err);
    BOOST_REQUIRE(r.exit_code == 0);
    return r;
  }

  std::string digest(const std::string& store, const std::string& uid,
                     const std::string& digester = "") const {
    Run r =
        helix(store, "",
              "digest '" + uid + "' --json" + (digester.empty() ? "" : " --digester " + digester));
    BOOST_TEST_REQUIRE(r.exit_code == 0, uid << ": " << r.err);
    return r.out;
  }

  std::unique_ptr<helix::Store> open(const std::string& store) const {
    return std::make_unique<helix::Store>(dir / store / "helix.db");
  }

  // The session's usage ledger and per-day rows, as comparable text.
  std::string usage_of(const std::string& store, const std::string& uid) const {
    auto s = open(store);
    std::string out;
    auto ledger = s->database().prepare(R"sql(
      SELECT key, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens,
        reasoning_tokens FROM usage WHERE session_uid = ? ORDER BY key)sql");
    ledger.bind(1, uid);
    while (ledger.step())
      out +=
          fmt::format("usage {} {} {} {} {} {}\n", ledger.text(0), ledger.integer(1),
                      ledger.integer(2), ledger.integer(3), ledger.integer(4), ledger.integer(5));
    auto days = s->database().prepare(R"sql(
      SELECT day, model, calls, input_tokens, output_tokens, cache_read_tokens,
        cache_creation_tokens, reasoning_tokens, printf('%.9f', COALESCE(cost_usd, -1))
      FROM usage_days WHERE session_uid = ? ORDER BY day, model)sql");
    days.bind(1, uid);
    while (days.step())
      out += fmt::format("day {} {} {} {} {} {} {} {} {}\n", days.text(0), days.text(1),
                         days.integer(2), days.integer(3), days.integer(4), days.integer(5),
                         days.integer(6), days.integer(7), days.text(8));
    return out;
  }

  int64_t scalar(const std::string& store, const std::string& sql) const {
    auto s = open(store);
    auto st = s->database().prepare(sql);
    BOOST_REQUIRE(st.step());
    return st.integer(0);
  }
};

// Evict every analyzed session on each sweep; never the un-analyzed ones.
constexpr const char* kEvictAll = R"([session_memory.retention]
raw_soft_cap_bytes = 1
raw_hard_cap_bytes = "1TiB"
)";

// Appends whole lines (a file whose last line has no newline gets one first).
void append(const fs::path& file, const std::string& lines) {
  const std::string text = helix::test::read_file(file);
  std::ofstream out(file, std::ios::app | std::ios::binary);
  out << (!text.empty() && text.back() != '\n' ? "\n" : "") << lines;
}

std::vector<json::object> records(const fs::path& file) {
  std::vector<json::object> out;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(json::parse(line).as_object());
  return out;
}

// New lines for a Claude session: a prompt, then a copy of its last usage-carrying record under
// a new uuid with the same message id and request id (the same model call, so the same usage
// key) and larger output tokens.
// An ISO-8601 time `step` seconds after the latest "timestamp" of the file's records, in a
// later hour each round: growth is written after what the file holds.
std::string later_than(const fs::path& file, int round, int step) {
  int64_t latest = 0;
  for (const auto& r : records(file))
    if (const auto* t = r.if_contains("timestamp"); t && t->is_string())
      latest = std::max(latest, helix::json::iso8601_ms(t->as_string()));
  const int64_t ms = latest + (int64_t{3600} * round + step) * 1000;
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char out[32];
  std::strftime(out, sizeof out, "%Y-%m-%dT%H:%M:%S.000Z", &utc);
  return out;
}

std::string claude_growth(const fs::path& file, int round) {
  json::object prompt, call;
  for (const auto& r : records(file)) {
    const auto* type = r.if_contains("type");
    if (!type || !type->is_string()) continue;
    const auto* message = r.if_contains("message");
    if (*type == "user" && prompt.empty() && message && message->at("content").is_string())
      prompt = r;
    if (*type == "assistant" && message && message->as_object().contains("usage") &&
        r.contains("requestId"))
      call = r;
  }
  BOOST_REQUIRE(!prompt.empty());
  BOOST_REQUIRE(!call.empty());
  prompt["uuid"] = fmt::format("grow-{}-prompt", round);
  prompt["message"].as_object()["content"] = fmt::format("round {}: please go on", round);
  // Written after everything the file holds, as a session that grows is.
  prompt["timestamp"] = later_than(file, round, 0);
  call["timestamp"] = later_than(file, round, 1);
  call["uuid"] = fmt::format("grow-{}-call", round);
  call["parentUuid"] = prompt["uuid"];
  auto& usage = call["message"].as_object()["usage"].as_object();
  usage["output_tokens"] = usage["output_tokens"].to_number<int64_t>() + 7 * round;
  return json::serialize(prompt) + "\n" + json::serialize(call) + "\n";
}

// New lines for a Codex session: a prompt and an answer, and its first usage record again (the
// same response id, so the same key) with larger output tokens.
std::string codex_growth(const fs::path& file, int round) {
  json::object prompt, answer, usage_record;
  for (const auto& r : records(file)) {
    const auto type = r.at("type").as_string();
    const auto& payload = r.at("payload").as_object();
    if (type == "response_item" && payload.contains("role")) {
      if (payload.at("role") == "user" && prompt.empty()) prompt = r;
      if (payload.at("role") == "assistant") answer = r;
    }
    if (type == "token_usage_record" && usage_record.empty()) usage_record = r;
  }
  BOOST_REQUIRE(!prompt.empty());
  BOOST_REQUIRE(!answer.empty());
  BOOST_REQUIRE(!usage_record.empty());
  // New records have new item ids (a copy of a stored item would be stored once).
  prompt["payload"].as_object()["content"] =
      json::array{json::object{{"type", "input_text"}, {"text", fmt::format("round {}", round)}}};
  prompt["payload"].as_object()["id"] = fmt::format("grow-{}-prompt", round);
  answer["payload"].as_object()["id"] = fmt::format("grow-{}-answer", round);
  prompt["timestamp"] = later_than(file, round, 0);
  answer["timestamp"] = later_than(file, round, 1);
  usage_record["timestamp"] = later_than(file, round, 2);
  auto& usage = usage_record["payload"].as_object()["usage"].as_object();
  usage["output_tokens"] = usage["output_tokens"].to_number<int64_t>() + 11 * round;
  usage["total_tokens"] = usage["total_tokens"].to_number<int64_t>() + 11 * round;
  return json::serialize(prompt) + "\n" + json::serialize(answer) + "\n" +
         json::serialize(usage_record) + "\n";
}

const char* kClaudeFile =
    "claude/projects/-samples-entire-2.0.76-tool-errors/"
    "entire-2.0.76-tool-errors.jsonl";
const char* kCodexFile =
    "codex/sessions/2026/11/22/"
    "rollout-2026-11-22T09-34-50-01a2029b-bd0f-7b52-b27b-ba8d4ea361c8.jsonl";

// The uid of the session a source holds.
std::string uid_of(const Home& h, const std::string& store, const fs::path& file) {
  auto s = h.open(store);
  auto st = s->database().prepare(R"sql(
    SELECT DISTINCT e.session_uid FROM events e JOIN sources src ON src.id = e.source_id
    WHERE src.path = ? UNION
    SELECT DISTINCT u.session_uid FROM usage u JOIN sources src ON src.id = u.source_id
    WHERE src.path = ?)sql");
  st.bind(1, file.string()).bind(2, file.string());
  BOOST_REQUIRE(st.step());
  return st.text(0);
}

// The store `store` (by default `evicting`, which evicts on every sweep) against a store swept
// fresh from the same files.
void expect_same_as_fresh(const Home& h, const std::string& uid, int round,
                          const std::string& store = "evicting") {
  const std::string fresh = fmt::format("fresh-{}", round);
  h.sweep(fresh);
  const std::string kept = h.digest(store, uid), never = h.digest(fresh, uid);
  BOOST_TEST(kept == never, "round " << round << " " << uid << "\n " << store << ": " << kept
                                     << "\n fresh:    " << never);
  BOOST_TEST(h.usage_of(store, uid) == h.usage_of(fresh, uid), "round " << round);
  for (const char* sum :
       {"SUM(input_tokens)", "SUM(output_tokens)", "SUM(cache_read_tokens)", "SUM(calls)"}) {
    const std::string sql = fmt::format("SELECT {} FROM usage_days", sum);
    BOOST_TEST(h.scalar(store, sql) == h.scalar(fresh, sql), sum << " round " << round);
  }
  for (const auto& name : {store, fresh})
    helix::test::expect_rollup_equals_usage_days(h.dir / name / "helix.db",
                                                 fmt::format("{} round {}", name, round));
}

}  // namespace

// The key property: resuming from the state after k events, then streaming events k..n and all
// usage, gives the digest of all n events, for every split point of every fixture session.
BOOST_AUTO_TEST_CASE(resume_at_every_split_point_equals_the_whole_digest) {
  Home h;
  h.sweep("store");
  helix::PluginRegistry registry;
  registry.load_directory(HELIX_TEST_PLUGIN_DIR);
  const helix::PluginInfo* plugin = registry.find("session_digest");
  BOOST_TEST_REQUIRE(plugin);
  helix::DigesterInstance digester(*plugin);
  BOOST_TEST_REQUIRE(digester.can_resume());
  auto store = h.open("store");
  int64_t sessions = 0, splits = 0;
  for (const auto& session : store->sessions({})) {
    const auto events = store->events(session.uid, /*with_bodies=*/true);
    const auto usage = helix::session_usage(*store, session.uid);
    const std::string whole = digester.run(session, events, usage).json;
    for (std::size_t k = 0; k <= events.size(); ++k) {
      const std::vector<helix::EventRow> head(events.begin(),
                                              events.begin() + static_cast<long>(k));
      const std::vector<helix::EventRow> tail(events.begin() + static_cast<long>(k), events.end());
      const std::string state = digester.run(session, head, usage).state;
      BOOST_TEST_REQUIRE(!state.empty());
      const std::string resumed = digester.run(session, tail, usage, state).json;
      if (resumed != whole) {
        BOOST_TEST(resumed == whole, session.uid << " split at " << k << " of " << events.size());
        break;  // one report per session
      }
      ++splits;
    }
    ++sessions;
  }
  BOOST_TEST(sessions > 20);
  BOOST_TEST(splits > 500);
}

BOOST_AUTO_TEST_CASE(a_state_of_an_unknown_version_is_refused_and_nothing_is_digested) {
  helix::PluginRegistry registry;
  registry.load_directory(HELIX_TEST_PLUGIN_DIR);
  helix::DigesterInstance digester(*registry.find("session_digest"));
  helix::SessionRow session;
  session.uid = "test:s";
  for (const char* bad : {"{\"v\":99}", "not json", "{\"v\":1}"})
    BOOST_CHECK_EXCEPTION(
        digester.run(session, {}, {}, std::string(bad)), std::runtime_error,
        [](const std::runtime_error& e) {
          return std::string(e.what()).find("could not resume test:s from its saved state") !=
                 std::string::npos;
        });
  BOOST_CHECK_NO_THROW(digester.run(session, {}, {}));  // the instance is still usable
}

// A kept session (no eviction) that grows is resumed from the state its digest saved and
// streamed only its new events: the same digest and usage as a store swept once over the grown
// files, twice over. Claude and Codex.
BOOST_AUTO_TEST_CASE(a_kept_session_that_grows_is_resumed_with_the_digest_of_a_fresh_store) {
  Home h;
  h.sweep("kept");
  const std::string claude = uid_of(h, "kept", h.home(kClaudeFile));
  const std::string codex = uid_of(h, "kept", h.home(kCodexFile));
  for (int round = 1; round <= 2; ++round) {
    append(h.home(kClaudeFile), claude_growth(h.home(kClaudeFile), round));
    append(h.home(kCodexFile), codex_growth(h.home(kCodexFile), round));
    h.age_every_file();
    const Run r = h.sweep("kept");
    BOOST_TEST(r.out.find("2 grown sessions resumed from their saved state") != std::string::npos,
               r.out);
    for (const auto& uid : {claude, codex}) expect_same_as_fresh(h, uid, round, "kept");
  }
}

// A kept session whose earlier events changed (its file rewritten: the first prompt edited) is
// digested again from its first event, not resumed: a resumed state would still hold the old
// prompt, and the rewritten events would be counted on top of the old ones.
BOOST_AUTO_TEST_CASE(a_kept_session_whose_earlier_events_changed_is_digested_from_the_start) {
  Home h;
  h.sweep("kept");
  const std::string claude = uid_of(h, "kept", h.home(kClaudeFile));
  const auto before = json::parse(h.digest("kept", claude)).as_object();
  std::string text = helix::test::read_file(h.home(kClaudeFile));
  const std::string prompt(before.at("first_prompt").as_string());
  const std::string word = prompt.substr(0, std::min<std::size_t>(prompt.size(), 12));
  const auto at = text.find(word);
  BOOST_TEST_REQUIRE(at != std::string::npos, word);
  text.replace(at, word.size(), "Edited: " + word);
  helix::test::write_file(h.home(kClaudeFile), text + claude_growth(h.home(kClaudeFile), 1));
  h.age_every_file();
  const Run r = h.sweep("kept");
  BOOST_TEST(r.out.find("resumed") == std::string::npos, r.out);
  expect_same_as_fresh(h, claude, 1, "kept");
  const auto after = json::parse(h.digest("kept", claude)).as_object();
  BOOST_TEST(std::string(after.at("first_prompt").as_string()).starts_with("Edited: "));
}

// A kept session whose saved state its digester refuses (here: damaged in the store) is
// digested again from its first event, and the sweep says so once.
BOOST_AUTO_TEST_CASE(a_refused_saved_state_is_reported_and_the_session_digested_whole) {
  Home h;
  h.sweep("kept");
  const std::string claude = uid_of(h, "kept", h.home(kClaudeFile));
  {
    auto s = h.open("kept");
    auto damage = s->database().prepare(
        "UPDATE digests SET state = CAST('not a state' AS BLOB) WHERE session_uid = ?");
    damage.bind(1, claude).run();
  }
  append(h.home(kClaudeFile), claude_growth(h.home(kClaudeFile), 1));
  h.age_every_file();
  const Run r = h.sweep("kept");
  BOOST_TEST(r.err.find("digester 'session_digest' refused the state it saved for 1 grown "
                        "session(s)") != std::string::npos,
             r.err);
  BOOST_TEST(r.out.find("resumed") == std::string::npos, r.out);
  expect_same_as_fresh(h, claude, 1, "kept");
}

// Swept, digested, evicted; the file grows (a usage line repeating a counted key with more
// tokens); digested again from the saved state: the same digest and usage as a store that never
// evicted. Then evicted again and grown again: still the same. Claude and Codex.
BOOST_AUTO_TEST_CASE(growth_after_eviction_keeps_the_digest_and_totals_of_a_fresh_store) {
  Home h;
  h.sweep("evicting", kEvictAll);
  const std::string claude = uid_of(h, "evicting", h.home(kClaudeFile));
  const std::string codex = uid_of(h, "evicting", h.home(kCodexFile));
  for (const auto& uid : {claude, codex}) {
    BOOST_TEST(h.scalar("evicting", "SELECT evicted_at_ms IS NOT NULL FROM sessions WHERE uid = '" +
                                        uid + "'") == 1);
    BOOST_TEST(
        h.scalar("evicting", "SELECT COUNT(*) FROM events WHERE session_uid = '" + uid + "'") == 0);
    BOOST_TEST(h.scalar("evicting", "SELECT COUNT(*) FROM usage WHERE session_uid = '" + uid +
                                        "'") > 0);  // the ledger stays
  }
  for (int round = 1; round <= 2; ++round) {
    append(h.home(kClaudeFile), claude_growth(h.home(kClaudeFile), round));
    append(h.home(kCodexFile), codex_growth(h.home(kCodexFile), round));
    h.age_every_file();
    const Run r = h.sweep("evicting", kEvictAll);
    BOOST_TEST(r.err.find("cannot fold") == std::string::npos, r.err);
    for (const auto& uid : {claude, codex}) {
      expect_same_as_fresh(h, uid, round);
      // Re-evicted in the same sweep: its digest was fresh again.
      BOOST_TEST(h.scalar("evicting",
                          "SELECT COUNT(*) FROM events WHERE session_uid = '" + uid + "'") == 0);
    }
  }
}

// Claude Code resumes a session into a new file that repeats its records (same uuids, same
// session id) before the new ones. With the originals evicted, the copies are stored again, but
// the digest does not count them twice.
BOOST_AUTO_TEST_CASE(a_resume_repeating_evicted_records_in_a_new_file_counts_them_once) {
  Home h;
  h.sweep("evicting", kEvictAll);
  const std::string claude = uid_of(h, "evicting", h.home(kClaudeFile));
  std::string copy = helix::test::read_file(h.home(kClaudeFile));
  if (!copy.empty() && copy.back() != '\n') copy += '\n';
  helix::test::write_file(h.home(kClaudeFile).parent_path() / "resumed.jsonl",
                          copy + claude_growth(h.home(kClaudeFile), 1));
  h.age_every_file();
  h.sweep("evicting", kEvictAll);
  expect_same_as_fresh(h, claude, 1);
}

// Grown after eviction and digested, not evicted again yet: its events hold only the growth,
// so export and search answer from the digest, which covers every record.
BOOST_AUTO_TEST_CASE(a_grown_evicted_session_exports_and_searches_its_digest) {
  Home h;
  h.sweep("store", kEvictAll);
  const std::string claude = uid_of(h, "store", h.home(kClaudeFile));
  const auto before = json::parse(h.digest("store", claude)).as_object();
  append(h.home(kClaudeFile), claude_growth(h.home(kClaudeFile), 1));
  h.age_every_file();
  h.sweep("store");  // the default caps: it stays as grown
  BOOST_TEST(
      h.scalar("store", "SELECT COUNT(*) FROM events WHERE session_uid = '" + claude + "'") == 2);
  const Run exported = h.helix("store", "", "export '" + claude + "' --format json");
  BOOST_TEST_REQUIRE(exported.exit_code == 0, exported.err);
  const auto doc = json::parse(exported.out).as_object();
  BOOST_TEST(doc.at("evicted").as_bool());
  const auto& digest = doc.at("digests").as_array().at(0).as_object().at("digest").as_object();
  BOOST_TEST(digest.at("event_count").as_int64() == before.at("event_count").as_int64() + 2);
  // A word of the first prompt, which only the digest still holds.
  std::string word;
  for (const char c : std::string(before.at("first_prompt").as_string())) {
    if (std::isalpha(static_cast<unsigned char>(c))) {
      word += c;
    } else if (word.size() >= 6) {
      break;
    } else {
      word.clear();
    }
  }
  BOOST_TEST_REQUIRE(word.size() >= 6u);
  const Run found = h.helix("store", "", "search '" + word + "' --json --kind digest");
  BOOST_TEST_REQUIRE(found.exit_code == 0, found.err);
  BOOST_TEST(found.out.find(claude) != std::string::npos, word << ": " << found.out);
}

// Documents are re-read whole when they change: a rewritten Claude agent .meta.json (an event
// on the parent session) and a Grok usage.json (usage) after eviction are neither digested nor
// counted twice.
BOOST_AUTO_TEST_CASE(a_document_rewritten_after_eviction_is_not_counted_twice) {
  Home h;
  h.sweep("evicting", kEvictAll);
  const fs::path meta = h.home(
      "claude/projects/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents/"
      "agent-aef063ba534d73153.meta.json");
  const fs::path usage_json =
      h.home("grok/sessions/%2Ftmp%2Fgh%2Fproj/01a2029c-db54-7f63-8de6-3e496b22d736/usage.json");
  BOOST_REQUIRE(fs::exists(meta));
  BOOST_REQUIRE(fs::exists(usage_json));
  const std::string parent = "claude:ef958aa1-0e93-49f0-bb71-150f63befcd1";
  const std::string grok = "grok:01a2029c-db54-7f63-8de6-3e496b22d736";
  helix::test::write_file(
      meta,
      R"j({"agentType":"general-purpose","description":"Round 2: bob comparison (renamed)"})j");
  auto doc = json::parse(helix::test::read_file(usage_json)).as_object();
  auto& turn = doc["turns"].as_array().back().as_object();
  turn["outputTokens"] = turn["outputTokens"].to_number<int64_t>() + 40;
  helix::test::write_file(usage_json, json::serialize(doc));
  h.age_every_file();
  h.sweep("evicting", kEvictAll);
  for (const auto& uid : {parent, grok}) expect_same_as_fresh(h, uid, 1);
}

// A digester built against ABI 1.1 loads on a 1.2 host but cannot resume: a grown evicted
// session keeps its old digest from it, and the sweep says so once, counted.
BOOST_AUTO_TEST_CASE(a_digester_without_resume_keeps_its_digest_and_is_reported_once) {
  Home h;
  fs::copy_file(
      fs::path(HELIX_TEST_PLUGINS_ROOT) / "digester_abi_1_1" / "libhelix_kind_counter_abi_1_1.so",
      h.dir / "plugins" / "libhelix_kind_counter_abi_1_1.so");
  helix::PluginRegistry registry;
  registry.load_directory(h.dir / "plugins");
  BOOST_TEST(registry.refused().empty());
  const helix::PluginInfo* old_abi = registry.find("kind_counter");
  BOOST_TEST_REQUIRE(old_abi);
  BOOST_TEST(old_abi->abi_minor == 1u);
  BOOST_TEST(!helix::DigesterInstance(*old_abi).can_resume());

  const std::string config =
      std::string(kEvictAll) + "[digest]\ndigesters = [\"session_digest\", \"kind_counter\"]\n";
  h.sweep("evicting", config);
  const std::string claude = uid_of(h, "evicting", h.home(kClaudeFile));
  const std::string codex = uid_of(h, "evicting", h.home(kCodexFile));
  const std::string counted_before = h.digest("evicting", claude, "kind_counter");
  const std::string primary_before = h.digest("evicting", claude);
  append(h.home(kClaudeFile), claude_growth(h.home(kClaudeFile), 1));
  append(h.home(kCodexFile), codex_growth(h.home(kCodexFile), 1));
  h.age_every_file();
  const Run r = h.sweep("evicting", config);
  std::size_t lines = 0;
  for (std::size_t at = r.err.find("cannot fold"); at != std::string::npos;
       at = r.err.find("cannot fold", at + 1))
    ++lines;
  BOOST_TEST(lines == 1u, r.err);
  BOOST_TEST(r.err.find("digester 'kind_counter' cannot fold the growth of 2 session(s)") !=
                 std::string::npos,
             r.err);
  BOOST_TEST(h.digest("evicting", claude, "kind_counter") == counted_before);
  BOOST_TEST(h.digest("evicting", claude) != primary_before);  // session_digest folded it
}

// The growth no digester can fold is reported by the sweep that reads it, then the session
// counts as analyzed (its usage totalled, its digest kept): later sweeps neither pick nor report
// it until new records arrive, and retention evicts that growth like any analyzed session's.
BOOST_AUTO_TEST_CASE(growth_that_cannot_fold_is_reported_once_until_new_records_arrive) {
  Home h;
  fs::copy_file(
      fs::path(HELIX_TEST_PLUGINS_ROOT) / "digester_abi_1_1" / "libhelix_kind_counter_abi_1_1.so",
      h.dir / "plugins" / "libhelix_kind_counter_abi_1_1.so");
  const std::string config = "[digest]\ndigesters = [\"kind_counter\"]\n";
  const std::string evicting = std::string(kEvictAll) + config;
  h.sweep("store", evicting);
  const std::string claude = uid_of(h, "store", h.home(kClaudeFile));
  const std::string counted_before = h.digest("store", claude, "kind_counter");
  const std::string stale = "SELECT COUNT(*) FROM sessions WHERE uid = '" + claude +
                            "' AND (analyzed_at_ms IS NULL OR ingested_at_ms > analyzed_at_ms)";
  const std::string events = "SELECT COUNT(*) FROM events WHERE session_uid = '" + claude + "'";
  for (int round = 1; round <= 2; ++round) {
    append(h.home(kClaudeFile), claude_growth(h.home(kClaudeFile), round));
    h.age_every_file();
    Run r = h.sweep("store", config);  // the default caps: the growth stays
    BOOST_TEST(r.err.find("cannot fold the growth of") != std::string::npos, r.err);
    BOOST_TEST(h.scalar("store", stale) == 0);
    BOOST_TEST(h.scalar("store", events) == 2 * round);
    r = h.sweep("store", config);
    BOOST_TEST(r.err.find("cannot fold") == std::string::npos, r.err);
    BOOST_TEST(h.digest("store", claude, "kind_counter") == counted_before);
  }
  const Run r = h.sweep("store", evicting);  // analyzed: evicted within the budget
  BOOST_TEST(r.err.find("cannot fold") == std::string::npos, r.err);
  BOOST_TEST(h.scalar("store", events) == 0);
  BOOST_TEST(h.scalar("store", "SELECT COUNT(*) FROM retention_events") == 0);
}

// A digest saved without a state while growth is evicted: coverage moves past what the older
// base state saw, so that base is dropped and the next growth cannot fold (rather than being
// folded into a state that never saw the growth evicted before it).
BOOST_AUTO_TEST_CASE(coverage_widened_without_a_state_drops_the_older_base) {
  Home h;
  h.sweep("store", kEvictAll);
  const std::string claude = uid_of(h, "store", h.home(kClaudeFile));
  append(h.home(kClaudeFile), claude_growth(h.home(kClaudeFile), 1));
  h.age_every_file();
  h.sweep("store");  // folded; the growth stays
  const std::string base = "SELECT COUNT(*) FROM digests WHERE session_uid = '" + claude +
                           "' AND base_state IS NOT NULL";
  BOOST_TEST_REQUIRE(h.scalar("store", base) == 1);
  {  // as a digester that saves no state leaves its digest
    auto s = h.open("store");
    auto st = s->database().prepare("UPDATE digests SET state = NULL WHERE session_uid = ?");
    st.bind(1, claude).run();
  }
  h.sweep("store", kEvictAll);  // the growth goes
  BOOST_TEST(
      h.scalar("store", "SELECT COUNT(*) FROM events WHERE session_uid = '" + claude + "'") == 0);
  BOOST_TEST(h.scalar("store", base) == 0);
  append(h.home(kClaudeFile), claude_growth(h.home(kClaudeFile), 2));
  h.age_every_file();
  const Run r = h.sweep("store");
  BOOST_TEST(r.err.find("digester 'session_digest' cannot fold the growth of 1 session(s)") !=
                 std::string::npos,
             r.err);
}

// An SDK-built digester that does not override resume() leaves resume_session NULL: the host
// knows it cannot fold growth (and says so) without calling it; one that does override, can.
BOOST_AUTO_TEST_CASE(an_sdk_digester_can_resume_only_when_it_overrides_resume) {
  helix::PluginRegistry counters;
  counters.load_directory(fs::path(HELIX_TEST_PLUGINS_ROOT) / "digester_v1");
  const helix::PluginInfo* counter = counters.find("kind_counter");
  BOOST_TEST_REQUIRE(counter);
  BOOST_TEST(counter->abi_minor == 1u);  // it needs no resume_session: a 1.1 host runs it
  BOOST_TEST(counter->digester->resume_session == nullptr);
  BOOST_TEST(!helix::DigesterInstance(*counter).can_resume());
  helix::PluginRegistry shipped;
  shipped.load_directory(HELIX_TEST_PLUGIN_DIR);
  const helix::PluginInfo* session_digest = shipped.find("session_digest");
  BOOST_TEST_REQUIRE(session_digest);
  BOOST_TEST(session_digest->abi_minor == 2u);  // resume_session came with ABI 1.2
  BOOST_TEST(helix::DigesterInstance(*session_digest).can_resume());
}

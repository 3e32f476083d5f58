// Tier 2 over the real fixtures, through the real binary and plugins: the default digest's
// stable shape and hand-verified values, decisions and task_ref, a test digester swapped in
// through the configuration, the re-digest rules, and usage that survives Tier 1 eviction.
#define BOOST_TEST_MODULE digest
#include <boost/test/unit_test.hpp>

#include "helix_command.hpp"
#include "plugins/digester_instance.hpp"
#include "plugins/plugin_registry.hpp"
#include "schema_v10.hpp"
#include "store/database.hpp"
#include "store/schema.hpp"
#include "temp_dir.hpp"
#include "usage_rollup_check.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

namespace fs = std::filesystem;
namespace json = boost::json;
using helix::test::Run;
using helix::test::TempDir;

namespace {

// A Claude session written for these tests (no fixture holds AskUserQuestion or a decision
// brief): a prompt naming a workplan task, an AskUserQuestion call and its answer as Claude Code
// words it, a gstack decision brief answered "B", and a final answer.
const char* kDecisionSession =
    R"({"type":"user","sessionId":"d0000000-0000-4000-8000-000000000001","uuid":"u1","parentUuid":null,"timestamp":"2026-03-01T10:00:00.000Z","cwd":"/work/decisions","gitBranch":"feature/HELIX-42-digests","version":"2.1.30","message":{"role":"user","content":"Plan the digest work for AGENTIC-WP-0002-T01 please"}}
{"type":"assistant","sessionId":"d0000000-0000-4000-8000-000000000001","uuid":"a1","parentUuid":"u1","timestamp":"2026-03-01T10:00:05.000Z","cwd":"/work/decisions","gitBranch":"feature/HELIX-42-digests","version":"2.1.30","requestId":"req_1","message":{"id":"msg_1","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"tool_use","id":"toolu_1","name":"AskUserQuestion","input":{"questions":[{"question":"Which store should digests use?","header":"Store","options":[{"label":"SQLite","description":"one file"},{"label":"Files","description":"JSON files"}],"multiSelect":false}]}}],"usage":{"input_tokens":100,"output_tokens":20,"cache_creation_input_tokens":1000,"cache_read_input_tokens":5000}}}
{"type":"user","sessionId":"d0000000-0000-4000-8000-000000000001","uuid":"u2","parentUuid":"a1","timestamp":"2026-03-01T10:00:30.000Z","cwd":"/work/decisions","gitBranch":"feature/HELIX-42-digests","version":"2.1.30","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"User has answered your questions: \"Which store should digests use?\"=\"SQLite\". You can now continue with the user's answers in mind."}]},"toolUseResult":{"answers":{"Which store should digests use?":"SQLite"}}}
{"type":"assistant","sessionId":"d0000000-0000-4000-8000-000000000001","uuid":"a2","parentUuid":"u2","timestamp":"2026-03-01T10:01:00.000Z","cwd":"/work/decisions","gitBranch":"feature/HELIX-42-digests","version":"2.1.30","requestId":"req_2","message":{"id":"msg_2","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"D1 \u2014 Retention of digests\nRecommendation: B) keep forever\nA) drop after 90 days\nB) keep forever"}],"usage":{"input_tokens":10,"output_tokens":30,"cache_creation_input_tokens":0,"cache_read_input_tokens":6000}}}
{"type":"user","sessionId":"d0000000-0000-4000-8000-000000000001","uuid":"u3","parentUuid":"a2","timestamp":"2026-03-01T10:02:00.000Z","cwd":"/work/decisions","gitBranch":"feature/HELIX-42-digests","version":"2.1.30","message":{"role":"user","content":"B"}}
{"type":"assistant","sessionId":"d0000000-0000-4000-8000-000000000001","uuid":"a3","parentUuid":"u3","timestamp":"2026-03-01T10:02:10.000Z","cwd":"/work/decisions","gitBranch":"feature/HELIX-42-digests","version":"2.1.30","requestId":"req_3","message":{"id":"msg_3","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"Done: digests are kept forever."}],"usage":{"input_tokens":5,"output_tokens":7,"cache_creation_input_tokens":0,"cache_read_input_tokens":6100}}}
)";

// A Codex session written the same way: a gstack decision brief as the agent's prose (the
// event_msg agent_message and its response_item copy), answered "A" by the next prompt.
const char* kBriefSession =
    R"({"timestamp":"2026-03-02T09:00:00.000Z","type":"session_meta","payload":{"id":"019f0000-0000-7000-8000-00000000d001","timestamp":"2026-03-02T09:00:00.000Z","cwd":"/work/briefs","originator":"codex-tui","cli_version":"0.125.0","source":"cli","model_provider":"openai"}}
{"timestamp":"2026-03-02T09:00:01.000Z","type":"turn_context","payload":{"cwd":"/work/briefs","model":"gpt-5-codex"}}
{"timestamp":"2026-03-02T09:00:01.100Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"pick a cache policy"}]}}
{"timestamp":"2026-03-02T09:00:01.101Z","type":"event_msg","payload":{"type":"user_message","message":"pick a cache policy","images":[]}}
{"timestamp":"2026-03-02T09:00:05.000Z","type":"event_msg","payload":{"type":"agent_message","message":"<gstack-qid:cache-policy>\nD3 \u2014 Cache policy\nRecommendation: A) LRU\nA) LRU\nB) LFU"}}
{"timestamp":"2026-03-02T09:00:05.001Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"<gstack-qid:cache-policy>\nD3 \u2014 Cache policy\nRecommendation: A) LRU\nA) LRU\nB) LFU"}]}}
{"timestamp":"2026-03-02T09:01:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"A"}]}}
{"timestamp":"2026-03-02T09:01:00.001Z","type":"event_msg","payload":{"type":"user_message","message":"A","images":[]}}
{"timestamp":"2026-03-02T09:01:05.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"LRU it is."}]}}
)";

// A sample agent home (the fixtures plus the sessions above), a store, and a plugin directory.
struct Home {
  TempDir dir;
  std::string env;
  explicit Home(const std::vector<std::string>& plugins = {}) {
    const std::string make =
        fmt::format("{}/../scripts/make-sample-home {} {}", HELIX_TEST_FIXTURE_DIR "/..",
                    HELIX_TEST_FIXTURE_DIR, (dir / "home").string());
    BOOST_REQUIRE(std::system(make.c_str()) == 0);
    helix::test::write_file(dir /
                                "home/claude/projects/-work-decisions/"
                                "d0000000-0000-4000-8000-000000000001.jsonl",
                            kDecisionSession);
    helix::test::write_file(dir /
                                "home/codex/sessions/2026/03/02/rollout-2026-03-02T09-00-00-"
                                "019f0000-0000-7000-8000-00000000d001.jsonl",
                            kBriefSession);
    env = fmt::format(
        "CLAUDE_CONFIG_DIR={0}/home/claude CODEX_HOME={0}/home/codex "
        "GROK_HOME={0}/home/grok GEMINI_CLI_HOME={0}/home/gemini XDG_CONFIG_HOME={0}/xdg ",
        dir.path().string());
    // The build's adapters and default digester, plus the named test digesters.
    fs::create_directories(dir / "plugins");
    for (const auto& e : fs::directory_iterator(HELIX_TEST_PLUGIN_DIR))
      if (e.path().extension() == ".so")
        fs::copy_file(e.path(), dir / "plugins" / e.path().filename());
    for (const auto& p : plugins) add_plugin(p);
  }

  // Adds tests/plugins' <case>/libhelix_<name>.so, e.g. "digester_v1/kind_counter".
  void add_plugin(const std::string& case_and_name) {
    const auto slash = case_and_name.find('/');
    const fs::path from = fs::path(HELIX_TEST_PLUGINS_ROOT) / case_and_name.substr(0, slash) /
                          ("libhelix_" + case_and_name.substr(slash + 1) + ".so");
    fs::copy_file(from, dir / "plugins" / from.filename(), fs::copy_options::overwrite_existing);
  }
  void remove_plugin(const std::string& name) {
    fs::remove(dir / "plugins" / ("libhelix_" + name + ".so"));
  }

  void config(const std::string& toml) { helix::test::write_file(dir / "config.toml", toml); }

  Run helix(const std::string& args) const {
    const auto err_file = dir / "stderr.txt";
    const std::string config = fs::exists(dir / "config.toml")
                                   ? " --config " + (dir / "config.toml").string()
                                   : std::string();
    const std::string cmd = fmt::format("{}{} --plugins {} --store {}{} {} 2>{}", env,
                                        HELIX_TEST_HOST_BINARY, (dir / "plugins").string(),
                                        (dir / "store").string(), config, args, err_file.string());
    return helix::test::run_command(cmd, err_file);
  }

  Run sweep() const {
    Run r = helix("sweep");
    BOOST_TEST_MESSAGE(r.out << r.err);
    BOOST_REQUIRE(r.exit_code == 0);
    return r;
  }

  json::object digest(const std::string& uid, const std::string& digester = "") const {
    Run r =
        helix("digest '" + uid + "' --json" + (digester.empty() ? "" : " --digester " + digester));
    BOOST_TEST_REQUIRE(r.exit_code == 0, uid << ": " << r.err);
    return json::parse(r.out).as_object();
  }

  fs::path store_db() const { return dir / "store/helix.db"; }
  helix::Database db() const { return helix::Database(store_db()); }

  int64_t scalar(const std::string& sql) const {
    auto d = db();
    auto st = d.prepare(sql);
    BOOST_REQUIRE(st.step());
    return st.integer(0);
  }
  std::string scalar_text(const std::string& sql) const {
    auto d = db();
    auto st = d.prepare(sql);
    BOOST_REQUIRE(st.step());
    return st.text(0);
  }
};

// The sample home swept once with the default configuration, shared by the read-only cases.
Home& swept() {
  static Home home;
  static bool once = (home.sweep(), true);
  (void)once;
  return home;
}

int64_t at(const json::object& o, const char* key) { return o.at(key).as_int64(); }

}  // namespace

// The registry accepts digesters (ABI 1.1) and the wrapper's glue crosses the ABI both ways:
// the session and its records in, the JSON or the exception's message out.
BOOST_AUTO_TEST_CASE(digester_plugins_load_and_stream_through_the_abi) {
  helix::PluginRegistry registry;
  registry.load_directory(fs::path(HELIX_TEST_PLUGINS_ROOT) / "digester_v1");
  BOOST_TEST(registry.refused().empty());
  BOOST_TEST_REQUIRE(registry.digesters().size() == 1u);
  const helix::PluginInfo& p = *registry.digesters()[0];
  BOOST_TEST(p.kind == "digester");
  BOOST_TEST(p.name == "kind_counter");
  BOOST_TEST(p.abi_minor == 1u);  // it needs digesters (1.1), not resume_session (1.2)
  BOOST_TEST(registry.adapters().empty());
  helix::SessionRow session;
  session.uid = "test:s-1";
  session.native_id = "s-1";
  std::vector<helix::EventRow> events(3);
  events[0].kind = events[1].kind = "user_msg";
  events[2].kind = "error";
  std::vector<helix::StoredUsage> usage(1);
  usage[0].input_tokens = 5;
  usage[0].cache_read_tokens = 7;
  helix::DigesterInstance digester(p, R"({"k":1})");
  const auto o = json::parse(digester.digest(session, events, usage)).as_object();
  BOOST_TEST(o.at("session_uid").as_string() == "test:s-1");
  BOOST_TEST(o.at("kinds").at("user_msg").as_int64() == 2);
  BOOST_TEST(o.at("kinds").at("error").as_int64() == 1);
  BOOST_TEST(o.at("tokens").as_int64() == 12);
  BOOST_TEST(o.at("config").at("k").as_int64() == 1);

  helix::PluginRegistry failing;
  failing.load_directory(fs::path(HELIX_TEST_PLUGINS_ROOT) / "digester_throw");
  BOOST_TEST_REQUIRE(failing.digesters().size() == 1u);
  helix::DigesterInstance thrower(*failing.digesters()[0]);
  BOOST_CHECK_EXCEPTION(thrower.digest(session, events, usage), std::runtime_error,
                        [](const std::runtime_error& e) {
                          return std::string(e.what()).find(
                                     "digester 'kind_counter' could not digest test:s-1: test "
                                     "digester refuses event user_msg") != std::string::npos;
                        });
  // The next session starts clean (begin_session clears the error): without events nothing
  // throws, so the same instance digests it.
  BOOST_CHECK_NO_THROW(thrower.digest(session, {}, usage));
}

BOOST_AUTO_TEST_CASE(every_session_gets_the_stable_shape_field_by_field) {
  Home& h = swept();
  const int64_t sessions = h.scalar("SELECT COUNT(*) FROM sessions");
  BOOST_TEST(sessions == 31);  // 29 from the fixtures + the two decision sessions
  BOOST_TEST(h.scalar("SELECT COUNT(*) FROM digests WHERE digester = 'session_digest'") ==
             sessions);
  BOOST_TEST(h.scalar("SELECT COUNT(*) FROM sessions WHERE analyzed_at_ms IS NULL") == 0);
  auto d = h.db();
  auto uids = d.prepare("SELECT uid FROM sessions ORDER BY uid");
  while (uids.step()) {
    const std::string uid = uids.text(0);
    const auto o = h.digest(uid);
    BOOST_TEST(o.at("session_uid").as_string() == uid);
    BOOST_TEST(o.at("flavor").is_string());
    for (const char* key : {"repo", "domain", "model", "started_at", "ended_at", "first_prompt",
                            "last_assistant", "task_ref"})
      BOOST_TEST((o.at(key).is_string() || o.at(key).is_null()), uid << " " << key);
    const std::string outcome(o.at("outcome").as_string());
    BOOST_TEST((outcome == "success" || outcome == "fail" || outcome == "abandoned" ||
                outcome == "unknown"),
               uid << " " << outcome);
    const auto& cost = o.at("cost").as_object();
    for (const char* key :
         {"input_tokens", "output_tokens", "cache_tokens", "wall_clock_s", "turns", "retries",
          "cache_read_tokens", "cache_creation_tokens", "reasoning_tokens"})
      BOOST_TEST(cost.at(key).is_int64(), uid << " cost." << key);
    BOOST_TEST(at(cost, "cache_tokens") ==
               at(cost, "cache_read_tokens") + at(cost, "cache_creation_tokens"));
    BOOST_TEST(cost.at("cost_usd").is_number());
    for (const auto& [tool, n] : o.at("tool_histogram").as_object()) BOOST_TEST(n.as_int64() > 0);
    int64_t kinds = 0;
    for (const auto& [kind, n] : o.at("kind_counts").as_object()) kinds += n.as_int64();
    BOOST_TEST(at(o, "event_count") == kinds);
    BOOST_TEST(
        at(o, "event_count") ==
        h.scalar("SELECT COUNT(*) FROM events WHERE shadowed = 0 AND session_uid = '" + uid + "'"));
    BOOST_TEST(o.at("markers").is_object());
    for (const auto& e : o.at("error_snippets").as_array()) {
      const auto& s = e.as_object();
      BOOST_TEST(s.at("fingerprint").as_string().size() == 16u);
      BOOST_TEST(s.at("sample").is_string());
      BOOST_TEST(s.at("count").as_int64() >= 1);
      BOOST_TEST((s.at("tool").is_string() || s.at("tool").is_null()));
    }
    BOOST_TEST(o.at("decisions").is_array());
    BOOST_TEST(at(o, "schema_version") == 1);
    // The session row takes outcome and task_ref from the primary digest.
    auto row = d.prepare("SELECT outcome, COALESCE(task_ref, '') FROM sessions WHERE uid = ?");
    row.bind(1, uid);
    BOOST_REQUIRE(row.step());
    BOOST_TEST(row.text(0) == outcome);
    BOOST_TEST(row.text(1) ==
               (o.at("task_ref").is_null() ? "" : std::string(o.at("task_ref").as_string())));
  }
}

// Figures derived with python over the fixture files (see the comments), not from Helix.
BOOST_AUTO_TEST_CASE(digest_values_match_the_fixtures_by_hand) {
  Home& h = swept();
  // codex 0.77.0: the token_count totals of its last event; three shell calls; one prompt;
  // 16:39:45.332 -> 16:39:58.808; it ends on tool output with no answer: outcome unknown.
  auto c = h.digest("codex:019b7f94-51b4-7593-922e-ba12b5b73b52");
  auto cost = c.at("cost").as_object();
  BOOST_TEST(at(cost, "input_tokens") == 22474 - 14848);
  BOOST_TEST(at(cost, "cache_read_tokens") == 14848);
  BOOST_TEST(at(cost, "output_tokens") == 300);
  BOOST_TEST(at(cost, "reasoning_tokens") == 128);
  BOOST_TEST(at(cost, "wall_clock_s") == 13);
  BOOST_TEST(at(cost, "turns") == 1);
  BOOST_TEST(c.at("tool_histogram").as_object().at("shell").as_int64() == 3);
  BOOST_TEST(c.at("first_prompt").as_string() ==
             "what is current repository about? summarize purpuse and explain goals");
  BOOST_TEST(c.at("outcome").as_string() == "unknown");
  // gpt-5 prices: 1.25 input, 0.125 cached, 10 output per million.
  // (`digest --json` prints costs rounded to 1e-6, docs/schema.md.)
  BOOST_TEST(cost.at("cost_usd").as_double() ==
                 std::round((7626 * 1.25 + 14848 * 0.125 + 300 * 10.0)) / 1e6,
             boost::test_tools::tolerance(1e-12));
  // The pre-0.88 fork of it: only its own delta (SOURCES.md: 1000 / 7000 cached / 50 / 10).
  auto f = h.digest("codex:019b7fa0-0000-7000-8000-00000000f0c1").at("cost").as_object();
  BOOST_TEST(at(f, "input_tokens") == 1000);
  BOOST_TEST(at(f, "cache_read_tokens") == 7000);
  BOOST_TEST(at(f, "output_tokens") == 50);
  BOOST_TEST(at(f, "reasoning_tokens") == 10);
  // entire-2.0.76-tool-errors: tool_use blocks Glob 1, Write 2; one is_error result (a
  // rejected Write); usage de-duplicated by (message.id, requestId), largest kept.
  auto e = h.digest("claude:cf564e14-9b07-42ad-8d9a-4faa1b79a0ed");
  const auto& tools = e.at("tool_histogram").as_object();
  BOOST_TEST(tools.size() == 2u);
  BOOST_TEST(tools.at("Glob").as_int64() == 1);
  BOOST_TEST(tools.at("Write").as_int64() == 2);
  BOOST_TEST(e.at("markers").as_object().at("tool_error").as_int64() == 1);
  BOOST_TEST_REQUIRE(e.at("error_snippets").as_array().size() == 1u);
  BOOST_TEST(e.at("error_snippets").as_array()[0].at("tool").as_string() == "Write");
  BOOST_TEST(e.at("first_prompt").as_string() == "can you add a standard MIT license?");
  auto ec = e.at("cost").as_object();
  BOOST_TEST(at(ec, "input_tokens") == 34);
  BOOST_TEST(at(ec, "output_tokens") == 744);
  BOOST_TEST(at(ec, "cache_creation_tokens") == 41434);
  BOOST_TEST(at(ec, "cache_read_tokens") == 122052);
  // The rejected Write was retried and succeeded; no answer follows: not a failure.
  BOOST_TEST(e.at("outcome").as_string() == "unknown");
  // entire-2.1.19-agent-progress-subagent: top-level usage only (4 calls), never the nested
  // usage of its progress records.
  auto p = h.digest("claude:163396cf-348b-4175-90f5-5ca0986ac0f1").at("cost").as_object();
  BOOST_TEST(at(p, "input_tokens") == 12);
  BOOST_TEST(at(p, "output_tokens") == 8);
  BOOST_TEST(at(p, "cache_creation_tokens") == 57834);
  BOOST_TEST(at(p, "cache_read_tokens") == 112682);
  // Every grok session: the digest's tokens are its Tier 1 usage rows.
  auto d = h.db();
  auto grok = d.prepare(
      "SELECT s.uid, COALESCE(SUM(u.input_tokens), 0), COALESCE(SUM(u.output_tokens), 0) FROM "
      "sessions s LEFT JOIN usage u ON u.session_uid = s.uid WHERE s.flavor = 'grok' GROUP BY 1");
  int grok_sessions = 0;
  while (grok.step()) {
    ++grok_sessions;
    auto g = h.digest(grok.text(0)).at("cost").as_object();
    BOOST_TEST(at(g, "input_tokens") == grok.integer(1));
    BOOST_TEST(at(g, "output_tokens") == grok.integer(2));
  }
  BOOST_TEST(grok_sessions == 3);
  // grok 1.0.41 hermetic session, read off its files: usage.json session totals 4600 input of
  // which 3000 cached, 60 output, 15 reasoning, 2 turns, no costUsdTicks (stub-model: unpriced);
  // updates.jsonl: prompts "list the files here" and "now say hi", one run_terminal_command
  // (_meta x.ai/tool), both answers "The directory contains hello.txt.".
  auto g = h.digest("grok:01a2029c-db54-7f63-8de6-3e496b22d736");
  auto gc = g.at("cost").as_object();
  BOOST_TEST(at(gc, "input_tokens") == 4600 - 3000);
  BOOST_TEST(at(gc, "cache_read_tokens") == 3000);
  BOOST_TEST(at(gc, "output_tokens") == 60);
  BOOST_TEST(at(gc, "reasoning_tokens") == 15);
  BOOST_TEST(at(gc, "turns") == 2);
  BOOST_TEST(g.at("tool_histogram").as_object().size() == 1u);
  BOOST_TEST(g.at("tool_histogram").as_object().at("run_terminal_command").as_int64() == 1);
  BOOST_TEST(g.at("first_prompt").as_string() == "list the files here");
  BOOST_TEST(g.at("last_assistant").as_string() == "The directory contains hello.txt.");
  BOOST_TEST(g.at("model").as_string() == "stub-model");
}

BOOST_AUTO_TEST_CASE(decisions_task_ref_outcome_and_cost_of_the_decision_session) {
  auto o = swept().digest("claude:d0000000-0000-4000-8000-000000000001");
  const auto& decisions = o.at("decisions").as_array();
  BOOST_TEST_REQUIRE(decisions.size() == 2u);
  const auto& ask = decisions[0].as_object();
  BOOST_TEST(ask.at("source").as_string() == "ask_user_question");
  BOOST_TEST(ask.at("question").as_string() == "Which store should digests use?");
  BOOST_TEST(ask.at("options").as_array().size() == 2u);
  BOOST_TEST(ask.at("options").as_array()[0].as_string() == "SQLite");
  BOOST_TEST(ask.at("answer").as_string() == "SQLite");
  const auto& brief = decisions[1].as_object();
  BOOST_TEST(brief.at("source").as_string() == "decision_brief");
  BOOST_TEST(brief.at("id").as_string() == "D1");
  BOOST_TEST(brief.at("question").as_string() == "Retention of digests");
  BOOST_TEST(brief.at("recommendation").as_string() == "B) keep forever");
  BOOST_TEST(brief.at("options").as_array().size() == 2u);
  BOOST_TEST(brief.at("answer").as_string() == "B");
  // The branch pattern wins over the prompt's workplan id.
  BOOST_TEST(o.at("task_ref").as_string() == "HELIX-42");
  BOOST_TEST(o.at("outcome").as_string() == "success");
  BOOST_TEST(o.at("first_prompt").as_string() ==
             "Plan the digest work for AGENTIC-WP-0002-T01 please");
  BOOST_TEST(o.at("last_assistant").as_string() == "Done: digests are kept forever.");
  const auto& cost = o.at("cost").as_object();
  BOOST_TEST(at(cost, "turns") == 2);
  BOOST_TEST(at(cost, "input_tokens") == 115);
  BOOST_TEST(at(cost, "output_tokens") == 57);
  BOOST_TEST(at(cost, "cache_creation_tokens") == 1000);
  BOOST_TEST(at(cost, "cache_read_tokens") == 17100);
  // claude-sonnet-4-5: 3 input, 15 output, 0.30 cache read, 3.75 cache write per million.
  BOOST_TEST(
      cost.at("cost_usd").as_double() == (115 * 3.0 + 57 * 15.0 + 17100 * 0.3 + 1000 * 3.75) / 1e6,
      boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(a_codex_decision_brief_and_its_answer) {
  auto o = swept().digest("codex:019f0000-0000-7000-8000-00000000d001");
  const auto& decisions = o.at("decisions").as_array();
  BOOST_TEST_REQUIRE(decisions.size() == 1u);  // the agent_message and its copy are one event
  const auto& d = decisions[0].as_object();
  BOOST_TEST(d.at("source").as_string() == "decision_brief");
  BOOST_TEST(d.at("id").as_string() == "cache-policy");  // the marker wins over "D3"
  BOOST_TEST(d.at("question").as_string() == "Cache policy");
  BOOST_TEST(d.at("options").as_array().size() == 2u);
  BOOST_TEST(d.at("recommendation").as_string() == "A) LRU");
  BOOST_TEST(d.at("answer").as_string() == "A");
  BOOST_TEST(o.at("outcome").as_string() == "success");
  BOOST_TEST(o.at("cost").at("turns").as_int64() == 2);
}

BOOST_AUTO_TEST_CASE(digest_and_env_commands) {
  Home& h = swept();
  Run missing = h.helix("digest claude:no-such-session");
  BOOST_TEST(missing.exit_code == 1);
  BOOST_TEST(missing.err.find("no session claude:no-such-session") != std::string::npos);
  BOOST_TEST(h.helix("env claude:no-such-session").exit_code == 1);
  Run status = h.helix("status --json");
  const auto st = json::parse(status.out).as_object();
  BOOST_TEST(st.at("tier2_bytes").as_int64() > 0);
  // At least the digest tables' pages (other Tier 2 tables, e.g. search's, add theirs).
  BOOST_TEST(st.at("tier2_bytes").as_int64() >=
             h.scalar("SELECT SUM(pgsize) FROM dbstat WHERE name IN (SELECT name FROM "
                      "sqlite_schema WHERE tbl_name IN ('digests', 'usage_days'))"));
  Run text = h.helix("digest claude:d0000000-0000-4000-8000-000000000001");
  BOOST_TEST(text.exit_code == 0);
  BOOST_TEST(text.out.find("outcome success") != std::string::npos);
  Run env = h.helix("env claude:d0000000-0000-4000-8000-000000000001");
  BOOST_TEST(env.exit_code == 0);
  const std::string store = fs::absolute(h.dir / "store/helix.db").string();
  BOOST_TEST(env.out ==
             "export HELIX_SESSION_UID='claude:d0000000-0000-4000-8000-000000000001'\n"
             "export HELIX_REPO='decisions'\n"
             "export HELIX_FLAVOR='claude'\n"
             "export HELIX_TOKENS=172\n"
             "export HELIX_INFRA_OVERHEAD_SHARE=0.000\n"
             "export HELIX_STORE_DB='" +
                 store + "'\n");
}

// usage's totals are Tier 1's usage rows, grouped by each call's own day; they stay the same
// after a session's Tier 1 rows are deleted (what retention does) and the store is swept again.
BOOST_AUTO_TEST_CASE(usage_totals_equal_tier1_and_survive_eviction) {
  Home h;
  h.sweep();
  auto totals = [&] {
    Run r = h.helix("usage --json");
    BOOST_REQUIRE(r.exit_code == 0);
    return json::parse(r.out).as_object().at("totals").as_object();
  };
  const auto before = totals();
  helix::test::expect_rollup_equals_usage_days(h.store_db(), "after a sweep");
  BOOST_TEST(at(before, "input_tokens") == h.scalar("SELECT SUM(input_tokens) FROM usage"));
  BOOST_TEST(at(before, "output_tokens") == h.scalar("SELECT SUM(output_tokens) FROM usage"));
  BOOST_TEST(at(before, "cache_read_tokens") ==
             h.scalar("SELECT SUM(cache_read_tokens) FROM usage"));
  BOOST_TEST(at(before, "cache_creation_tokens") ==
             h.scalar("SELECT SUM(cache_creation_tokens) FROM usage"));
  BOOST_TEST(at(before, "reasoning_tokens") == h.scalar("SELECT SUM(reasoning_tokens) FROM usage"));
  // By day: each call's own UTC day (the 0.104 Codex session spans no midnight; check a sum).
  Run days = h.helix("usage --by day --flavor codex --since 2026-02-23 --json");
  const auto rows = json::parse(days.out).as_object().at("rows").as_array();
  BOOST_TEST_REQUIRE(rows.size() == 3u);
  BOOST_TEST(rows[0].at("day").as_string() == "2026-02-23");
  BOOST_TEST(rows[0].at("input_tokens").as_int64() == 458211);  // equal to ccusage's figure

  const std::string victim = "codex:019c8a4c-ed82-79a1-aa28-7738fc5ab61a";
  const auto digest_before = h.digest(victim);
  {
    auto d = h.db();
    for (const char* table : {"events", "usage", "payload_packs"})
      d.exec(fmt::format("DELETE FROM {} WHERE session_uid = '{}'", table, victim));
  }
  BOOST_TEST(h.scalar("SELECT COUNT(*) FROM usage WHERE session_uid = '" + victim + "'") == 0);
  Run again = h.sweep();
  BOOST_TEST(again.out.find("digested 0 sessions") != std::string::npos);
  const auto after = totals();
  for (const char* key : {"input_tokens", "output_tokens", "cache_read_tokens",
                          "cache_creation_tokens", "reasoning_tokens"})
    BOOST_TEST(at(after, key) == at(before, key), key);
  BOOST_TEST(after.at("cost_usd").as_double() == before.at("cost_usd").as_double());
  BOOST_TEST(json::serialize(h.digest(victim)) == json::serialize(digest_before));
  helix::test::expect_rollup_equals_usage_days(h.store_db(), "after the ledger was evicted");
}

// Every writer of usage_days marks the days it changes stale (triggers), and usage reads
// usage_days itself until the digest pass refreshes them; without a trigger, usage would
// answer from a rollup that no longer matches.
BOOST_AUTO_TEST_CASE(changed_usage_days_are_marked_stale_and_the_digest_pass_refreshes_them) {
  Home h;
  h.sweep();
  auto usage = [&](const std::string& args) {
    Run r = h.helix("usage --json " + args);
    BOOST_REQUIRE(r.exit_code == 0);
    return json::parse(r.out).as_object();
  };
  auto input_tokens = [&](const std::string& args) {
    return at(usage(args).at("totals").as_object(), "input_tokens");
  };
  auto stale_days = [&] { return h.scalar("SELECT COUNT(*) FROM usage_rollup_stale"); };
  const int64_t all = input_tokens("");
  BOOST_TEST(stale_days() == 0);
  // usage reads the rollup when it is current: a change made to the rollup alone shows.
  h.db().exec("UPDATE usage_rollup SET input_tokens = input_tokens + 1000000");
  BOOST_TEST(input_tokens("--by model") > all);
  BOOST_TEST(input_tokens("--by session") == all);  // the rollup cannot group by session
  // With a day stale, usage_days answers; the next digest pass recomputes the stale days.
  h.db().exec(
      "DELETE FROM usage_rollup; INSERT INTO usage_rollup_stale SELECT DISTINCT day FROM "
      "usage_days");
  BOOST_TEST(input_tokens("--by model") == all);
  h.sweep();
  BOOST_TEST(stale_days() == 0);
  BOOST_TEST(input_tokens("--by flavor") == all);

  const std::string victim = "codex:019c8a4c-ed82-79a1-aa28-7738fc5ab61a";
  const int64_t victims =
      h.scalar("SELECT SUM(input_tokens) FROM usage_days WHERE session_uid = '" + victim + "'");
  BOOST_REQUIRE(victims > 0);
  // DELETE marks the session's days.
  h.db().exec("DELETE FROM usage_days WHERE session_uid = '" + victim + "'");
  BOOST_TEST(stale_days() > 0);
  BOOST_TEST(input_tokens("--by day") == all - victims);
  h.sweep();
  BOOST_TEST(stale_days() == 0);
  BOOST_TEST(input_tokens("--by day") == all - victims);
  helix::test::expect_rollup_equals_usage_days(h.store_db(), "after a delete");
  // INSERT marks the new row's day.
  h.db().exec("INSERT INTO usage_days VALUES ('" + victim +
              "', '2030-01-01', 'm', 1, 7, 0, 0, 0, 0, 0.5, NULL, 0)");
  BOOST_TEST(h.scalar("SELECT COUNT(*) FROM usage_rollup_stale WHERE day = '2030-01-01'") == 1);
  BOOST_TEST(input_tokens("--by day") == all - victims + 7);
  h.sweep();
  BOOST_TEST(input_tokens("--by day --since 2030-01-01") == 7);
  // UPDATE marks the old and the new day.
  h.db().exec(
      "UPDATE usage_days SET day = '2030-01-02', input_tokens = 9 WHERE day = '2030-01-01'");
  BOOST_TEST(stale_days() == 2);
  BOOST_TEST(input_tokens("--by model") == all - victims + 9);
  h.sweep();
  std::map<std::string, double> cost_by_day;  // ("unknown", the day of untimed calls, sorts last)
  const auto late = usage("--by day --since 2030-01-01");
  for (const auto& row : late.at("rows").as_array())
    cost_by_day[std::string(row.at("day").as_string())] = row.at("cost_usd").as_double();
  BOOST_TEST(cost_by_day.count("2030-01-01") == 0u);
  BOOST_TEST(cost_by_day["2030-01-02"] == 0.5);
  helix::test::expect_rollup_equals_usage_days(h.store_db(), "after an insert and an update");
}

// A store of schema version 9 (no rollup) answers usage read-only as it is, and a writable open
// migrates it to version 10 with a rollup that gives the same reports.
BOOST_AUTO_TEST_CASE(a_version_9_store_migrates_to_a_filled_rollup) {
  Home h;
  h.sweep();
  const std::string by_model = h.helix("usage --by model --json").out;
  const std::string claude_days = h.helix("usage --flavor claude --json").out;
  h.db().exec(fmt::format(R"sql(
    BEGIN;
    {} {} {}
    {}
    DROP TRIGGER usage_rollup_stale_insert;
    DROP TRIGGER usage_rollup_stale_delete;
    DROP TRIGGER usage_rollup_stale_update;
    DROP TABLE usage_rollup;
    DROP TABLE usage_rollup_stale;
    {}
    PRAGMA user_version = 9;
    COMMIT;)sql",
                          helix::test::kUndoSchema16, helix::test::kUndoSchema15,
                          helix::test::kUndoSchema14, helix::test::kUndoSchema12,
                          helix::test::kUndoSchema11));
  // Read-only: no migration, the same tokens and costs (without the unpriced tokens).
  const auto old_report = json::parse(h.helix("usage --by model --json").out).as_object();
  BOOST_TEST(old_report.at("totals").at("cost_usd") ==
             json::parse(by_model).at("totals").at("cost_usd"));
  { helix::Store store(h.store_db()); }  // a writable open migrates
  BOOST_TEST(h.scalar("PRAGMA user_version") == helix::kStoreSchemaVersion);
  BOOST_TEST(h.scalar("SELECT COUNT(*) FROM usage_rollup") ==
             h.scalar("SELECT COUNT(*) FROM (SELECT DISTINCT d.day, d.model, s.flavor FROM "
                      "usage_days d JOIN sessions s ON s.uid = d.session_uid)"));
  helix::test::expect_rollup_equals_usage_days(h.store_db(), "migrated");
  // Token totals are exact; costs are compared as the rollup's and usage_days' sums may round
  // differently.
  auto tokens = [](const std::string& out) {
    auto o = json::parse(out).as_object();
    return std::make_pair(at(o.at("totals").as_object(), "input_tokens"),
                          o.at("rows").as_array().size());
  };
  BOOST_TEST((tokens(h.helix("usage --by model --json").out) == tokens(by_model)));
  BOOST_TEST((tokens(h.helix("usage --flavor claude --json").out) == tokens(claude_days)));
}

BOOST_AUTO_TEST_CASE(a_second_digester_is_swapped_in_through_the_config) {
  Home h({"digester_v1/kind_counter"});
  h.config(
      "[digest]\ndigesters = [\"kind_counter\"]\n[digesters.kind_counter]\ngreeting = \"hi\"\n");
  Run r = h.sweep();
  BOOST_TEST(r.out.find("(kind_counter 31)") != std::string::npos);
  BOOST_TEST(h.scalar("SELECT COUNT(*) FROM digests WHERE digester = 'session_digest'") == 0);
  auto d = h.db();
  auto sessions = d.prepare(
      "SELECT s.uid, s.task_ref, (SELECT COUNT(*) FROM events e WHERE e.session_uid = s.uid AND "
      "e.shadowed = 0), (SELECT COUNT(*) FROM usage u WHERE u.session_uid = s.uid) FROM sessions "
      "s");
  int n = 0;
  while (sessions.step()) {
    ++n;
    const auto o = h.digest(sessions.text(0));
    BOOST_TEST(at(o, "events") == sessions.integer(2));
    BOOST_TEST(at(o, "usage_records") == sessions.integer(3));
    BOOST_TEST(sessions.text(1) == fmt::format("COUNT-{}", sessions.integer(2)));
    BOOST_TEST(o.at("config").at("greeting").as_string() == "hi");
  }
  BOOST_TEST(n == 31);
  // The default digester's name is not loaded here under another config: reported, not fatal.
  h.config("[digest]\ndigesters = [\"kind_counter\", \"absent_digester\"]\n");
  Run absent = h.sweep();
  BOOST_TEST(absent.err.find("digester 'absent_digester' is configured") != std::string::npos);
}

// A grown session's usage_days rows are brought up to date row by row: a day whose totals did
// not change is not written again (so its rollup day is not summed again), a changed day is
// updated, a new day added.
BOOST_AUTO_TEST_CASE(a_grown_session_writes_only_the_usage_days_that_changed) {
  Home h;
  h.sweep();
  const std::string uid = "claude:d0000000-0000-4000-8000-000000000001";
  BOOST_TEST(h.scalar("SELECT COUNT(*) FROM usage_days WHERE session_uid = '" + uid + "'") == 1);
  h.db().exec(R"sql(
    CREATE TABLE usage_day_writes (op TEXT, day TEXT);
    CREATE TRIGGER count_inserts AFTER INSERT ON usage_days BEGIN
      INSERT INTO usage_day_writes VALUES ('insert', new.day); END;
    CREATE TRIGGER count_updates AFTER UPDATE ON usage_days BEGIN
      INSERT INTO usage_day_writes VALUES ('update', new.day); END;
    CREATE TRIGGER count_deletes AFTER DELETE ON usage_days BEGIN
      INSERT INTO usage_day_writes VALUES ('delete', old.day); END;)sql");
  // Another session's day, and this session's first day, get a call each; a new day begins.
  const std::string call =
      R"({{"type":"assistant","sessionId":"d0000000-0000-4000-8000-000000000001","uuid":"{0}","parentUuid":"a3","timestamp":"{1}","cwd":"/work/decisions","requestId":"req_{0}","message":{{"id":"msg_{0}","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{{"type":"text","text":"more"}}],"usage":{{"input_tokens":3,"output_tokens":4,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}}}})";
  helix::test::write_file(
      h.dir / "home/claude/projects/-work-decisions/d0000000-0000-4000-8000-000000000001.jsonl",
      fmt::format(fmt::runtime(call), "a4", "2026-03-01T10:03:00.000Z") + "\n" +
          fmt::format(fmt::runtime(call), "a5", "2026-03-02T08:00:00.000Z") + "\n",
      /*append=*/true);
  BOOST_TEST(h.sweep().out.find("digested 1 sessions") != std::string::npos);
  BOOST_TEST(h.scalar("SELECT COUNT(*) FROM usage_day_writes") == 2);
  BOOST_TEST(h.scalar("SELECT COUNT(*) FROM usage_day_writes WHERE op = 'update' AND "
                      "day = '2026-03-01'") == 1);
  BOOST_TEST(h.scalar("SELECT COUNT(*) FROM usage_day_writes WHERE op = 'insert' AND "
                      "day = '2026-03-02'") == 1);
  BOOST_TEST(h.scalar("SELECT calls FROM usage_days WHERE session_uid = '" + uid +
                      "' AND day = '2026-03-01'") == 4);
  helix::test::expect_rollup_equals_usage_days(h.store_db(), "after a session grew by a day");
  // Nothing new: nothing is written.
  h.db().exec("DELETE FROM usage_day_writes");
  BOOST_TEST(h.sweep().out.find("digested 0 sessions") != std::string::npos);
  BOOST_TEST(h.scalar("SELECT COUNT(*) FROM usage_day_writes") == 0);
}

BOOST_AUTO_TEST_CASE(redigest_only_new_events_or_a_new_major_version) {
  Home h({"digester_v1/kind_counter"});
  h.config("[digest]\ndigesters = [\"session_digest\", \"kind_counter\"]\n");
  h.sweep();
  BOOST_TEST(h.sweep().out.find("digested 0 sessions") != std::string::npos);
  // One new record in one session: only that session is digested again.
  const std::string uid = "claude:d0000000-0000-4000-8000-000000000001";
  const auto before = h.digest(uid);
  helix::test::write_file(
      h.dir / "home/claude/projects/-work-decisions/d0000000-0000-4000-8000-000000000001.jsonl",
      R"({"type":"user","sessionId":"d0000000-0000-4000-8000-000000000001","uuid":"u4","parentUuid":"a3","timestamp":"2026-03-01T10:05:00.000Z","cwd":"/work/decisions","message":{"role":"user","content":"do it again, please"}})"
      "\n",
      /*append=*/true);
  Run grown = h.sweep();
  BOOST_TEST(grown.out.find("digested 1 sessions") != std::string::npos);
  BOOST_TEST(grown.out.find("(kind_counter 1) (session_digest 1)") != std::string::npos);
  const auto after = h.digest(uid);
  BOOST_TEST(at(after, "event_count") == at(before, "event_count") + 1);
  BOOST_TEST(after.at("outcome").as_string() == "abandoned");  // the new prompt has no answer
  BOOST_TEST(after.at("markers").at("user_correction").as_int64() == 1);  // "again"
  helix::test::expect_rollup_equals_usage_days(h.store_db(), "after a session grew");
  // A new minor version of a digester changes nothing; a new major re-digests everything.
  h.remove_plugin("kind_counter");
  h.add_plugin("digester_v1_1/kind_counter_v1_1");
  BOOST_TEST(h.sweep().out.find("digested 0 sessions") != std::string::npos);
  h.remove_plugin("kind_counter_v1_1");
  h.add_plugin("digester_v2/kind_counter_v2");
  Run major = h.sweep();
  BOOST_TEST(major.out.find("digested 31 sessions") != std::string::npos);
  BOOST_TEST(major.out.find("(kind_counter 31)") != std::string::npos);
  BOOST_TEST(major.out.find("session_digest") == std::string::npos);
  // A digester that fails keeps the stored digest and says why.
  h.remove_plugin("kind_counter_v2");
  h.add_plugin("digester_throw/kind_counter_throw");
  helix::test::write_file(
      h.dir / "home/claude/projects/-work-decisions/d0000000-0000-4000-8000-000000000001.jsonl",
      R"({"type":"user","sessionId":"d0000000-0000-4000-8000-000000000001","uuid":"u5","parentUuid":"u4","timestamp":"2026-03-01T10:06:00.000Z","cwd":"/work/decisions","message":{"role":"user","content":"hello"}})"
      "\n",
      /*append=*/true);
  const auto kept = h.digest(uid, "kind_counter");
  Run failing = h.sweep();
  BOOST_TEST(failing.err.find("test digester refuses event") != std::string::npos);
  BOOST_TEST(json::serialize(h.digest(uid, "kind_counter")) == json::serialize(kept));
}

// entire-2.1.32-persisted-output: 28 calls of claude-opus-4-6 (python over the file: 32 input,
// 505 output, 1,511,518 cache read, 45,593 cache write, all of it 1-hour writes). The digest
// shows the host's cost at the built-in book's prices for claude-opus-4-6 (5 input, 25 output,
// 0.50 cache read, 10 for a 1-hour write per million), the digester computes none, and a price
// setting of the digester is refused with where prices went.
BOOST_AUTO_TEST_CASE(the_digest_shows_the_price_books_cost_not_the_digesters) {
  const std::string uid = "claude:531e0007-8fdd-4e98-a526-3f675a2b8f16";
  auto shown = swept().digest(uid).at("cost").as_object();
  BOOST_TEST(at(shown, "cache_read_tokens") == 1511518);
  BOOST_TEST(at(shown, "cache_creation_tokens") == 45593);
  BOOST_TEST(shown.at("cost_usd").as_double() ==
                 (32 * 5.0 + 505 * 25.0 + 1511518 * 0.5 + 45593 * 10.0) / 1e6,
             boost::test_tools::tolerance(1e-12));
  BOOST_TEST(shown.at("unpriced_models").as_array().empty());
  BOOST_TEST(shown.at("prices_as_of").as_string().find("LiteLLM BerriAI/litellm@") == 0u);
  const auto stored = json::parse(swept().scalar_text(
      "SELECT json FROM digests WHERE digester = 'session_digest' AND session_uid = '" + uid +
      "'"));
  BOOST_TEST(!stored.at("cost").as_object().contains("cost_usd"));  // the host's, not stored
  // usage reports the same cost for that day (no other session used the day).
  Run day = swept().helix("usage --by day --since 2026-02-06 --json");
  const auto rows = json::parse(day.out).as_object().at("rows").as_array();
  BOOST_TEST_REQUIRE(!rows.empty());
  BOOST_TEST(rows[0].at("day").as_string() == "2026-02-06");
  BOOST_TEST(rows[0].at("cost_usd").as_double() == shown.at("cost_usd").as_double(),
             boost::test_tools::tolerance(1e-12));

  Home h;
  h.config(
      "[digesters.session_digest.prices.\"claude-opus-4-6\"]\n"
      "input = 5.0\noutput = 25.0\ncache_read = 0.5\ncache_creation = 6.25\n");
  Run moved = h.helix("sweep");
  BOOST_TEST(moved.err.find("prices are the host's now") != std::string::npos, moved.err);
  BOOST_TEST(moved.err.find("helix-host prices import FILE") != std::string::npos);
  // A bad setting keeps the digester from starting, with the reason; the sweep goes on.
  h.config("[digesters.session_digest]\ntask_ref_branch_patterns = [\"(unclosed\"]\n");
  Run bad = h.helix("sweep");
  BOOST_TEST(bad.exit_code == 0);
  BOOST_TEST(bad.err.find("digester plugin 'session_digest'") != std::string::npos);
  BOOST_TEST(bad.err.find("is not a regular expression") != std::string::npos);
}

// Judgements from evidence, over the canary's Claude Code 2.1.330 runs: a session that ends
// with a successful /compact keeps the outcome of the turn before it; the HTTP 529 the CLI
// retried is a retry; each failing call has its own error snippet; a rejected tool use is a
// permission denial.
BOOST_AUTO_TEST_CASE(judgements_from_evidence) {
  Home h;
  const fs::path canary = fs::path(HELIX_TEST_FIXTURE_DIR) / "claude/canary-2.1.330";
  const std::string compaction =
      "compaction/.claude/projects/"
      "-tmp-helix-canary-claude-compaction-work-compaction/"
      "f58d5ed5-3e4c-4939-ad88-0176243e0ea8.jsonl";
  // Up to /compact and its output (line 38): no prompt after it.
  std::string lines = helix::test::read_file(canary / compaction), head;
  for (std::size_t pos = 0, n = 0; n < 38; ++n) {
    const std::size_t end = lines.find('\n', pos) + 1;
    head += lines.substr(pos, end - pos);
    pos = end;
  }
  helix::test::write_file(
      h.dir / "home/claude/projects/-canary/f58d5ed5-3e4c-4939-ad88-0176243e0ea8.jsonl", head);
  const std::string errors =
      "errors/.claude/projects/-tmp-helix-canary-claude-errors-work-errors/"
      "b35a071c-901f-4fb4-8b5e-61e00c620cc2.jsonl";
  helix::test::write_file(
      h.dir / "home/claude/projects/-canary/b35a071c-901f-4fb4-8b5e-61e00c620cc2.jsonl",
      helix::test::read_file(canary / errors));
  h.sweep();

  BOOST_TEST(h.digest("claude:f58d5ed5-3e4c-4939-ad88-0176243e0ea8").at("outcome").as_string() ==
             "success");

  auto e = h.digest("claude:b35a071c-901f-4fb4-8b5e-61e00c620cc2");
  BOOST_TEST(at(e.at("cost").as_object(), "retries") == 1);
  std::set<std::string> failing_tools;
  for (const auto& s : e.at("error_snippets").as_array()) {
    BOOST_TEST(s.at("count").as_int64() == 1);
    failing_tools.insert(std::string(s.at("tool").as_string()));
  }
  BOOST_TEST(failing_tools == (std::set<std::string>{"Bash", "Edit", "Read"}));
  BOOST_TEST(e.at("error_snippets").as_array().size() == 3u);

  // entire-2.0.76-tool-errors: "The user doesn't want to proceed with this tool use. The tool
  // use was rejected".
  auto rejected = h.digest("claude:cf564e14-9b07-42ad-8d9a-4faa1b79a0ed");
  BOOST_TEST(rejected.at("markers").as_object().at("permission_denied").as_int64() == 1);
}

// The price book as a user meets it, through the real binary, plugins and store: costs that no
// digester can change, `prices import` of a modified LiteLLM file taking effect at once, a bad
// file refused with nothing changed, the unpriced models named by every report with a cost,
// and Claude Code's own cost shown beside the host's.
#define BOOST_TEST_MODULE prices_cli
#include <boost/test/unit_test.hpp>

#include "helix_command.hpp"
#include "store/database.hpp"
#include "temp_dir.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <boost/json.hpp>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
namespace json = boost::json;
using helix::test::Run;
using helix::test::TempDir;

namespace {

// The session of the sample home whose model no price book knows (grok's stub-model: 1,600
// input, 3,000 cached, 60 output tokens).
constexpr const char* kUnpricedSession = "grok:01a2029c-db54-7f63-8de6-3e496b22d736";
// Claude Code 2.1.330's session with cost-state records (tests/fixtures/pricing/SOURCES.md).
constexpr const char* kCostStateSession = "claude:50fe86a8-163f-4014-a26a-97701dc7ca34";

// The sample agent home (scripts/make-sample-home) plus the cost-state transcript, a store and
// a plugin directory with the build's plugins and the test digester kind_counter.
struct Home {
  TempDir dir;
  std::string env;
  Home() {
    const std::string make =
        fmt::format("{}/../scripts/make-sample-home {} {}", HELIX_TEST_FIXTURE_DIR "/..",
                    HELIX_TEST_FIXTURE_DIR, (dir / "home").string());
    BOOST_REQUIRE(std::system(make.c_str()) == 0);
    fs::copy(fs::path(HELIX_TEST_FIXTURE_DIR) / "pricing/cc-2.1.330-cost-state/projects",
             dir / "home/claude/projects", fs::copy_options::recursive);
    env = fmt::format(
        "CLAUDE_CONFIG_DIR={0}/home/claude CODEX_HOME={0}/home/codex "
        "GROK_HOME={0}/home/grok XDG_CONFIG_HOME={0}/xdg TZ=UTC ",
        dir.path().string());
    fs::create_directories(dir / "plugins");
    for (const auto& e : fs::directory_iterator(HELIX_TEST_PLUGIN_DIR))
      if (e.path().extension() == ".so")
        fs::copy_file(e.path(), dir / "plugins" / e.path().filename());
    fs::copy_file(fs::path(HELIX_TEST_PLUGINS_ROOT) / "digester_v1/libhelix_kind_counter.so",
                  dir / "plugins/libhelix_kind_counter.so");
  }

  void config(const std::string& toml) const { std::ofstream(dir / "config.toml") << toml; }

  Run helix(const std::string& args) const {
    const auto err_file = dir / "stderr.txt";
    const std::string config = fs::exists(dir / "config.toml")
                                   ? " --config " + (dir / "config.toml").string()
                                   : std::string();
    return helix::test::run_command(
        fmt::format("{}{} --plugins {} --store {}{} {} 2>{}", env, HELIX_TEST_HOST_BINARY,
                    (dir / "plugins").string(), (dir / "store").string(), config, args,
                    err_file.string()),
        err_file);
  }

  Run ok(const std::string& args) const {
    Run r = helix(args);
    BOOST_TEST_REQUIRE(r.exit_code == 0, args << ": " << r.err);
    return r;
  }

  json::object ok_json(const std::string& args) const {
    return json::parse(ok(args).out).as_object();
  }

  fs::path store_db() const { return dir / "store/helix.db"; }
};

double cost_of(const json::object& usage, const std::string& model) {
  for (const auto& row : usage.at("rows").as_array())
    if (row.at("model").as_string() == model) return row.at("cost_usd").to_number<double>();
  BOOST_FAIL("no usage row for " << model);
  return 0;
}

int64_t tokens_of(const json::object& usage, const std::string& model, const char* field) {
  for (const auto& row : usage.at("rows").as_array())
    if (row.at("model").as_string() == model) return row.at(field).as_int64();
  return -1;
}

// The built-in book's subset of LiteLLM, read as the file a user would import.
json::object built_in_litellm() {
  std::ifstream in(fs::path(HELIX_TEST_FIXTURE_DIR) / "../../host/lib/pricing/litellm_prices.json");
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str()).as_object();
}

std::string tokens_only(const std::string& usage_json) {  // the token figures of a report
  auto o = json::parse(usage_json).as_object();
  auto strip = [](json::object& row) {
    for (const char* cost : {"cost_usd", "agent_cost_usd", "unpriced_tokens"}) row.erase(cost);
  };
  std::vector<std::string> rows;  // in any order: --by model lists the costliest first
  for (auto& row : o.at("rows").as_array()) {
    strip(row.as_object());
    rows.push_back(json::serialize(row));
  }
  std::sort(rows.begin(), rows.end());
  strip(o.at("totals").as_object());
  std::string out;
  for (const auto& r : rows) out += r + "\n";
  return out + json::serialize(o.at("totals"));
}

}  // namespace

// issue 14 item 4: with a team digester listed first (or alone), usage --json and env print
// exactly what the default digester alone gives; the digest shows the same host cost.
BOOST_AUTO_TEST_CASE(another_digester_first_changes_neither_usage_nor_env) {
  Home alone;
  alone.ok("sweep");
  Home team_first;
  team_first.config("[digest]\ndigesters = [\"kind_counter\", \"session_digest\"]\n");
  team_first.ok("sweep");
  Home team_only;
  team_only.config("[digest]\ndigesters = [\"kind_counter\"]\n");
  team_only.ok("sweep");
  for (const char* report : {"usage --json", "usage --by session --json", "usage --by model --json",
                             "usage --by flavor --json"}) {
    const std::string expected = alone.ok(report).out;
    BOOST_TEST(json::parse(expected).at("totals").at("cost_usd").to_number<double>() > 10.0);
    BOOST_TEST(team_first.ok(report).out == expected, report);
    BOOST_TEST(team_only.ok(report).out == expected, report);
  }
  for (const char* uid : {"claude:531e0007-8fdd-4e98-a526-3f675a2b8f16", kUnpricedSession,
                          "codex:019c8a4c-ed82-79a1-aa28-7738fc5ab61a"}) {
    const std::string expected = alone.ok(fmt::format("env {}", uid)).out;
    BOOST_TEST(expected.find("export HELIX_TOKENS=0\n") == std::string::npos, expected);
    BOOST_TEST(expected.find("export HELIX_REPO=''") == std::string::npos, expected);
    auto same_store = [&](const Home& h) {  // HELIX_STORE_DB names each home's own store
      std::string out = h.ok(fmt::format("env {}", uid)).out;
      return out.substr(0, out.find("export HELIX_STORE_DB"));
    };
    BOOST_TEST(same_store(team_first) == same_store(alone), uid);
    BOOST_TEST(same_store(team_only) == same_store(alone), uid);
  }
  // The default digest (second in the list) shows the host's cost, as it does when alone.
  const std::string uid = "claude:531e0007-8fdd-4e98-a526-3f675a2b8f16";
  BOOST_TEST(team_first.ok_json("digest " + uid + " --digester session_digest --json")
                 .at("cost")
                 .at("cost_usd") ==
             alone.ok_json("digest " + uid + " --json").at("cost").at("cost_usd"));
}

// issue 16: a newer LiteLLM file changes usage at once, with no sweep; forget goes back.
BOOST_AUTO_TEST_CASE(an_imported_litellm_file_reprices_usage_at_once) {
  Home h;
  h.ok("sweep");
  const auto before = h.ok_json("usage --by model --json");
  const double codex_before = cost_of(before, "gpt-5.3-codex");
  const double input = static_cast<double>(tokens_of(before, "gpt-5.3-codex", "input_tokens"));
  BOOST_REQUIRE(input > 0);
  // LiteLLM's own file, with gpt-5.3-codex's input price raised by 1 USD per million, and a
  // price for the model the book lacks.
  json::object litellm = built_in_litellm();
  litellm.erase("helix_source");
  auto& codex = litellm.at("gpt-5.3-codex").as_object();
  codex["input_cost_per_token"] = codex.at("input_cost_per_token").to_number<double>() + 1e-06;
  litellm["xai/stub-model"] = json::object{{"litellm_provider", "xai"},
                                           {"mode", "chat"},
                                           {"input_cost_per_token", 2e-06},
                                           {"output_cost_per_token", 1e-05}};
  const fs::path file = h.dir / "model_prices_and_context_window.json";
  std::ofstream(file) << json::serialize(litellm);
  const Run imported = h.ok("prices import " + file.string());
  BOOST_TEST(imported.out.find("repriced") != std::string::npos, imported.out);

  const auto after = h.ok_json("usage --by model --json");
  BOOST_TEST(cost_of(after, "gpt-5.3-codex") == codex_before + input * 1e-06,
             boost::test_tools::tolerance(1e-9));
  // stub-model: 1,600 input and 3,000 cached at 2 per million (no cache price), 60 output at 10.
  BOOST_TEST(cost_of(after, "stub-model") == (1600 + 3000) * 2e-06 + 60 * 1e-05,
             boost::test_tools::tolerance(1e-12));
  BOOST_TEST(after.at("unpriced_models").as_array().size() ==
             before.at("unpriced_models").as_array().size() - 1);
  BOOST_TEST(tokens_only(h.ok("usage --by model --json").out) ==
             tokens_only(json::serialize(before)));  // tokens untouched
  // Every report takes the new prices: the session listing and show, without a sweep.
  BOOST_TEST(h.ok("prices --json").out.find(file.string()) != std::string::npos);
  const auto shown = h.ok_json(std::string("show ") + kUnpricedSession + " --json");
  BOOST_TEST(shown.at("session").at("cost").at("cost_usd").to_number<double>() ==
                 (1600 + 3000) * 2e-06 + 60 * 1e-05,
             boost::test_tools::tolerance(1e-12));
  BOOST_TEST(shown.at("unpriced_models").as_array().empty());
  // A sweep keeps the imported prices.
  h.ok("sweep");
  BOOST_TEST(cost_of(h.ok_json("usage --by model --json"), "gpt-5.3-codex") ==
                 codex_before + input * 1e-06,
             boost::test_tools::tolerance(1e-9));

  h.ok("prices forget");
  BOOST_TEST(cost_of(h.ok_json("usage --by model --json"), "gpt-5.3-codex") == codex_before,
             boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(a_bad_price_file_is_refused_and_changes_nothing) {
  Home h;
  h.ok("sweep");
  const std::string usage = h.ok("usage --by model --json").out;
  const std::string book = h.ok("prices --json").out;
  const std::pair<const char*, const char*> bad_files[] = {
      {"{\"gpt-5.3-codex\": {\"litellm_provider\": \"openai\",", "not JSON"},
      {"[]", "the top level must be an object of models"},
      {R"({"gpt-5.3-codex": {"litellm_provider": "openai", "input_cost_per_token": 1.75,
          "output_cost_per_token": 14}})",
       "was it written per million tokens?"},
      {R"({"gpt-5.3-codex": {"litellm_provider": "openai", "input_cost_per_token": "1.75e-06",
          "output_cost_per_token": 1.4e-05}})",
       "must be a non-negative number"},
      {R"({"llama-3": {"litellm_provider": "meta", "input_cost_per_token": 1e-07,
          "output_cost_per_token": 1e-07}})",
       "no Anthropic, OpenAI, xAI or Gemini chat model"}};
  for (const auto& [text, reason] : bad_files) {
    const fs::path file = h.dir / "bad.json";
    std::ofstream(file) << text;
    const Run r = h.helix("prices import " + file.string());
    BOOST_TEST(r.exit_code == 65, text);
    BOOST_TEST(r.err.find(reason) != std::string::npos, r.err);
    BOOST_TEST(r.err.find("nothing was imported") != std::string::npos, r.err);
    BOOST_TEST(h.ok("usage --by model --json").out == usage);
    BOOST_TEST(h.ok("prices --json").out == book);
  }
  const Run missing = h.helix("prices import " + (h.dir / "absent.json").string());
  BOOST_TEST(missing.exit_code == 2);
  BOOST_TEST(missing.err.find("cannot read") != std::string::npos, missing.err);
  BOOST_TEST(h.helix("prices export").exit_code == 2);
}

// issue 18 item 2: no report shows a cost without naming what it leaves out.
BOOST_AUTO_TEST_CASE(every_report_with_a_cost_names_the_unpriced_models) {
  Home h;
  h.ok("sweep");
  const std::string warning = "stub-model (4660 tokens)";
  for (const std::string& report : std::vector<std::string>{
           "usage", "usage --json", "usage --by session", "usage --flavor grok --json", "sessions",
           "sessions --json", std::string("show ") + kUnpricedSession,
           std::string("show ") + kUnpricedSession + " --json",
           std::string("digest ") + kUnpricedSession,
           std::string("digest ") + kUnpricedSession + " --json"}) {
    const Run r = h.ok(report);
    BOOST_TEST(r.err.find("warning: no price for ") != std::string::npos, report << ": " << r.err);
    BOOST_TEST(r.err.find(warning) != std::string::npos, report << ": " << r.err);
  }
  auto has_stub = [](const json::array& unpriced) {
    for (const auto& u : unpriced)
      if (u.at("model") == "stub-model" && u.at("tokens") == 4660) return true;
    return false;
  };
  BOOST_TEST(has_stub(h.ok_json("usage --json").at("unpriced_models").as_array()));
  BOOST_TEST(h.ok_json("usage --json").at("totals").at("unpriced_tokens").as_int64() >= 4660);
  BOOST_TEST(has_stub(h.ok_json(std::string("show ") + kUnpricedSession + " --json")
                          .at("unpriced_models")
                          .as_array()));
  const auto digest = h.ok_json(std::string("digest ") + kUnpricedSession + " --json");
  BOOST_TEST(has_stub(digest.at("cost").at("unpriced").as_array()));
  BOOST_TEST(digest.at("cost").at("unpriced_models").as_array()[0] == "stub-model");
  // A report whose rows are all priced says nothing.
  const Run codex = h.ok("usage --flavor codex");
  BOOST_TEST(codex.err.find("no price for") == std::string::npos, codex.err);
}

// Claude Code's cost-state records: its own figure, beside the host's, in usage, show and the
// digest. The mock's model has no price, so the host's cost is 0 with every token unpriced.
BOOST_AUTO_TEST_CASE(claude_codes_own_cost_is_shown_beside_the_hosts) {
  Home h;
  h.ok("sweep");
  const double claude_code = 0.1433734;  // the last cost-state record's totalCostUSD
  const auto shown = h.ok_json(std::string("show ") + kCostStateSession + " --json");
  const auto& cost = shown.at("session").at("cost").as_object();
  // --json prints costs rounded to 1e-6 (docs/schema.md): compared to that.
  BOOST_TEST(cost.at("agent_cost_usd").to_number<double>() == claude_code,
             boost::test_tools::tolerance(1e-5));
  BOOST_TEST(cost.at("cost_usd").to_number<double>() == 0.0);
  BOOST_TEST(cost.at("unpriced_tokens").as_int64() == 17 + 68 + 12457 + 25565);
  const Run text = h.ok(std::string("show ") + kCostStateSession);
  BOOST_TEST(text.out.find("the agent's own figure $0.143373") != std::string::npos, text.out);
  const auto digest = h.ok_json(std::string("digest ") + kCostStateSession + " --json");
  BOOST_TEST(digest.at("cost").at("agent_cost_usd").to_number<double>() == claude_code,
             boost::test_tools::tolerance(1e-5));
  const auto by_session = h.ok_json("usage --by session --json");
  bool found = false;
  for (const auto& row : by_session.at("rows").as_array())
    if (row.at("session") == kCostStateSession) {
      found = true;
      BOOST_TEST(row.at("agent_cost_usd").to_number<double>() == claude_code,
                 boost::test_tools::tolerance(1e-5));
    }
  BOOST_TEST(found);
  BOOST_TEST(h.ok_json("usage --json").at("totals").at("agent_cost_usd").to_number<double>() ==
                 claude_code,  // the only agent that reported a cost in the sample home
             boost::test_tools::tolerance(1e-5));
  // A price for the mock's model: the host's figure appears beside Claude Code's, which stays.
  const fs::path file = h.dir / "opus55.json";
  std::ofstream(file) << R"({"claude-opus-5-5": {"litellm_provider": "anthropic", "mode": "chat",
      "input_cost_per_token": 5e-06, "output_cost_per_token": 2.5e-05,
      "cache_read_input_token_cost": 5e-07, "cache_creation_input_token_cost": 6.25e-06}})";
  h.ok("prices import " + file.string());
  const auto priced =
      h.ok_json(std::string("show ") + kCostStateSession + " --json").at("session").at("cost");
  // 17 × 5 + 68 × 25 + 12,457 × 0.5 + 25,565 × 6.25, per million
  BOOST_TEST(priced.at("cost_usd").to_number<double>() ==
                 (17 * 5.0 + 68 * 25.0 + 12457 * 0.5 + 25565 * 6.25) / 1e6,
             boost::test_tools::tolerance(1e-5));
  BOOST_TEST(priced.at("agent_cost_usd").to_number<double>() == claude_code,
             boost::test_tools::tolerance(1e-5));
}

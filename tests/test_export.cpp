// helix-host export over the real binary and real fixtures: markdown transcripts checked
// against reviewed golden files (tests/golden/README.md), the JSON and JSONL shapes, --out, and
// an evicted session, which exports its digest and says so.
#define BOOST_TEST_MODULE export
#include <boost/test/unit_test.hpp>
#include <sstream>

#include "recall/transcript.hpp"
#include "recall_home.hpp"
#include "store/database.hpp"

namespace json = boost::json;
using helix::test::RecallHome;
using helix::test::Run;
using helix::test::run_helix;
using helix::test::TempDir;

namespace {

// The bundled fixtures as agent homes (scripts/make-sample-home), swept once for the suite.
struct Sample {
  TempDir dir;
  std::string env;
  Sample() {
    const std::string make =
        fmt::format("{}/../scripts/make-sample-home {} {}", HELIX_TEST_FIXTURE_DIR "/..",
                    HELIX_TEST_FIXTURE_DIR, (dir / "home").string());
    BOOST_REQUIRE(std::system(make.c_str()) == 0);
    // An archived history: quiet for long, so a last line without its newline counts as
    // finished (the sweep's final-line grace period) and the goldens do not depend on timing.
    const std::string age = fmt::format(
        "find {} -type f -exec touch -d '2026-01-01 00:00:00' {{}} +", (dir / "home").string());
    BOOST_REQUIRE(std::system(age.c_str()) == 0);
    env = fmt::format(
        "CLAUDE_CONFIG_DIR={0}/home/claude CODEX_HOME={0}/home/codex "
        "GROK_HOME={0}/home/grok GEMINI_CLI_HOME={0}/home/gemini XDG_CONFIG_HOME={0}/xdg ",
        dir.path().string());
    BOOST_REQUIRE(helix("sweep").exit_code == 0);
  }
  Run helix(const std::string& args) const {
    return run_helix(env, dir / "store", args, dir / "stderr.txt");
  }
};

Sample& sample() {
  static Sample s;
  return s;
}

std::string golden(const std::string& uid) {
  std::string name = uid;
  name[name.find(':')] = '-';
  return helix::test::read_file(std::filesystem::path(HELIX_TEST_FIXTURE_DIR) / "../golden/export" /
                                (name + ".md"));
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(markdown_of_real_sessions_matches_the_reviewed_golden_files) {
  for (const char* uid :
       {"claude:cf564e14-9b07-42ad-8d9a-4faa1b79a0ed", "codex:01a2029b-bd0f-7b52-b27b-ba8d4ea361c8",
        "codex:019b7f94-51b4-7593-922e-ba12b5b73b52", "grok:01a2029c-db54-7f63-8de6-3e496b22d736",
        "grok:019f6000-0000-7000-8000-000000000001"}) {
    Run r = sample().helix(std::string("export ") + uid);
    BOOST_TEST_CONTEXT(uid) {
      BOOST_TEST(r.exit_code == 0);
      const auto got = lines(r.out), want = lines(golden(uid));
      BOOST_TEST(got.size() == want.size());
      for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i)
        BOOST_TEST_CONTEXT("line " << i + 1) { BOOST_TEST(got[i] == want[i]); }
      BOOST_TEST(r.out == golden(uid));
    }
  }
}

BOOST_AUTO_TEST_CASE(long_outputs_are_cut_with_a_marker_and_every_turn_is_kept) {
  // The sed output of this session is 5,680 bytes (measured with Python over the rollout).
  Run r = sample().helix("export codex:019b7f94-51b4-7593-922e-ba12b5b73b52");
  BOOST_TEST(r.out.find("[… 3680 more bytes truncated]") != std::string::npos);
  BOOST_TEST(helix::truncated("abcdef", 4) == "abcd\n[… 2 more bytes truncated]");
  BOOST_TEST(helix::truncated("ab\xC3\xA9", 3) == "ab\n[… 2 more bytes truncated]");  // é whole
  BOOST_TEST(helix::truncated("abc", 3) == "abc");
  // A large session: as many User turns as `show` has non-sidechain prompts.
  const std::string uid = "claude:29ccd257-68b1-427f-ae5f-6524b7cb6f20";
  Run md = sample().helix("export " + uid);
  Run show = sample().helix("show " + uid + " --json");
  const json::value doc = json::parse(show.out);
  std::size_t prompts = 0;
  for (const auto& e : doc.at("events").as_array())
    if (e.at("kind").as_string() == "user_msg" && !e.at("is_sidechain").as_bool() &&
        e.at("text").is_string())
      ++prompts;
  std::size_t turns = 0;
  for (const auto& line : lines(md.out)) turns += line.rfind("**User**: ", 0) == 0;
  BOOST_TEST(prompts > 0u);
  BOOST_TEST(turns == prompts);
}

BOOST_AUTO_TEST_CASE(json_and_jsonl_hold_the_normalized_records) {
  const std::string uid = "codex:01a2029b-bd0f-7b52-b27b-ba8d4ea361c8";
  Run show = sample().helix("show " + uid + " --json");
  const json::value shown = json::parse(show.out);
  const auto event_count = shown.at("events").as_array().size();
  Run r = sample().helix("export " + uid + " --format json");
  BOOST_TEST(r.exit_code == 0);
  const json::value doc = json::parse(r.out);
  BOOST_TEST(doc.at("evicted").as_bool() == false);
  BOOST_TEST(doc.at("session").at("session_uid").as_string() == uid);
  BOOST_TEST(json::serialize(doc.at("events")) == json::serialize(shown.at("events")));
  Run l = sample().helix("export " + uid + " --format jsonl");
  const auto rows = lines(l.out);
  BOOST_REQUIRE(rows.size() == event_count + 1);
  BOOST_TEST(json::parse(rows[0]).at("record").as_string() == "session");
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const json::value row = json::parse(rows[i]);
    BOOST_TEST(row.at("record").as_string() == "event");
    BOOST_TEST(row.at("session_uid").as_string() == uid);
    BOOST_TEST(row.at("seq") == shown.at("events").at(i - 1).at("seq"));
  }
  const auto out_file = sample().dir / "export.md";
  BOOST_TEST(sample().helix("export " + uid + " --out " + out_file.string()).exit_code == 0);
  BOOST_TEST(helix::test::read_file(out_file) == sample().helix("export " + uid).out);
}

BOOST_AUTO_TEST_CASE(mistakes_get_the_documented_exit_codes) {
  Run missing = sample().helix("export claude:no-such-session");
  BOOST_TEST(missing.exit_code == 1);
  BOOST_TEST(missing.err.find("no session claude:no-such-session") != std::string::npos);
  Run format = sample().helix("export codex:01a2029b-bd0f-7b52-b27b-ba8d4ea361c8 --format pdf");
  BOOST_TEST(format.exit_code == 2);
  BOOST_TEST(format.err.find("--format must be md, html, json or jsonl") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_evicted_session_exports_its_digest_and_says_so) {
  RecallHome home;  // a store of its own: the eviction below must not touch the shared one
  BOOST_REQUIRE(home.helix("sweep").exit_code == 0);
  const std::string uid = RecallHome::kClaude;
  {
    helix::Database db(home.store_db());
    auto n = db.prepare("SELECT COUNT(*) FROM digests WHERE session_uid = ?");
    n.bind(1, uid);
    n.step();
    BOOST_REQUIRE_MESSAGE(n.integer(0) > 0, "no digest written (session_digest plugin built?)");
  }
  const auto usage_rows = [&] {
    helix::Database db(home.store_db(), /*read_only=*/true);
    auto n = db.prepare("SELECT COUNT(*) FROM usage WHERE session_uid = ?");
    n.bind(1, uid);
    n.step();
    return n.integer(0);
  };
  const int64_t usage_before = usage_rows();
  BOOST_REQUIRE(usage_before > 0);
  evict_session(home, uid, 1767715200000);   // 2026-01-06 16:00:00 UTC
  BOOST_TEST(usage_rows() == usage_before);  // the cost ledger is Tier 2: it stays
  Run md = home.helix("export " + uid);
  BOOST_TEST(md.exit_code == 0);
  BOOST_TEST(md.out.find("# can you add a standard quokkafizz license?") == 0u);
  BOOST_TEST(md.out.find("was evicted from the store on 2026-01-06 16:00:00 UTC") !=
             std::string::npos);
  BOOST_TEST(md.out.find("**User** (first prompt): can you add a standard quokkafizz license?") !=
             std::string::npos);
  BOOST_TEST(md.out.find("## Digest by session_digest") != std::string::npos);
  Run j = home.helix("export " + uid + " --format json");
  const json::value doc = json::parse(j.out);
  BOOST_TEST(doc.at("evicted").as_bool());
  BOOST_TEST(!doc.as_object().contains("events"));
  BOOST_REQUIRE(!doc.at("digests").as_array().empty());
  BOOST_TEST(doc.at("digests").at(0).at("digest").at("first_prompt").as_string() ==
             "can you add a standard quokkafizz license?");
}

namespace {

// The canary's runs of Claude Code 2.1.330 (subagents, compaction) and Grok Build 1.0.41
// (subagents) as homes of their own.
struct Canary {
  TempDir dir;
  std::string env;
  Canary() {
    const std::string copy = fmt::format(
        "cp -r {0}/claude/canary-2.1.330/subagents/.claude {0}/claude/canary-2.1.330/compaction/. "
        "{1}/ && cp -r {0}/grok/canary-1.0.41/subagents/.grok {1}/",
        HELIX_TEST_FIXTURE_DIR, dir.path().string());
    BOOST_REQUIRE(std::system(copy.c_str()) == 0);
    env = fmt::format(
        "CLAUDE_CONFIG_DIR={0}/.claude CODEX_HOME={0}/none GROK_HOME={0}/.grok "
        "GEMINI_CLI_HOME={0}/none XDG_CONFIG_HOME={0}/xdg ",
        dir.path().string());
    BOOST_REQUIRE(helix("sweep").exit_code == 0);
  }
  Run helix(const std::string& args) const {
    return run_helix(env, dir / "store", args, dir / "stderr.txt");
  }
};

// The text of the <details> block whose summary line starts with `summary`.
std::string details_block(const std::string& md, const std::string& summary) {
  const auto open = md.find("<details>\n<summary>" + summary);
  if (open == std::string::npos) return {};
  std::size_t depth = 0, at = open;
  for (;;) {  // nested blocks (a subagent's own calls) close before this one
    const auto next_open = md.find("<details>", at + 1), next_close = md.find("</details>", at + 1);
    if (next_close == std::string::npos) return {};
    if (next_open < next_close) {
      ++depth;
      at = next_open;
    } else if (depth == 0) {
      return md.substr(open, next_close - open);
    } else {
      --depth;
      at = next_close;
    }
  }
}

}  // namespace

// A subagent's transcript is rendered inside the block of the Agent call that launched it, a
// background agent's notification as that call's result; a compaction's summary is folded.
BOOST_AUTO_TEST_CASE(subagents_nest_under_their_calls_and_compactions_show) {
  Canary c;
  const std::string md =
      c.helix("export claude:395fed10-2032-458c-b382-c5b471aca46a --format md").out;
  const std::string foreground = details_block(md, "Agent: ");
  BOOST_TEST_REQUIRE(!foreground.empty(), md);
  BOOST_TEST(foreground.find("Subagent:") != std::string::npos);
  BOOST_TEST(foreground.find("**Subagent prompt**: [SUB1]") != std::string::npos);
  BOOST_TEST(foreground.find("The project contains 4 regular files outside .git.") !=
             std::string::npos);
  const auto background = md.find("<result>The current branch is main.</result>");
  BOOST_TEST_REQUIRE(background != std::string::npos);
  BOOST_TEST(md.rfind("Result:", background) > md.rfind("<summary>Agent: ", background));

  // show lists each subagent's events under its call, indented.
  const std::string show = c.helix("show claude:395fed10-2032-458c-b382-c5b471aca46a").out;
  BOOST_TEST(show.find("    [side] [SUB1]") != std::string::npos, show);
  BOOST_TEST(show.find("bookkeeping and context events not listed") != std::string::npos);
  BOOST_TEST(c.helix("show claude:395fed10-2032-458c-b382-c5b471aca46a --all").out.size() >
             show.size());

  const std::string compacted =
      c.helix("export claude:f58d5ed5-3e4c-4939-ad88-0176243e0ea8 --format md").out;
  const std::string summary = details_block(compacted, "Summary of the conversation so far");
  BOOST_TEST(summary.find("Checkpoint summary") != std::string::npos, compacted);
}

// sessions --tree: Grok's subagent session under the session that launched it.
BOOST_AUTO_TEST_CASE(sessions_tree_nests_subagent_sessions) {
  Canary c;
  const std::string tree = c.helix("sessions --tree --flavor grok").out;
  std::vector<std::string> rows;
  for (const auto& line : lines(tree))
    if (line.starts_with("grok:") || line.starts_with("  grok:")) rows.push_back(line);
  BOOST_TEST_REQUIRE(rows.size() == 2u, tree);
  BOOST_TEST(rows[0].starts_with("grok:"));
  BOOST_TEST(rows[1].starts_with("  grok:"));
}

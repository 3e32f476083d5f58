// helix-host resume: the agent's own resume command as its adapter plugin declares it
// (helix.resume/1: claude --resume, codex resume, grok -r, gemini --resume; see docs/operations.md
// for where each comes from), run in the session's directory, and a plain refusal (exit 4) when the
// agent could not resume the session.
#define BOOST_TEST_MODULE resume
#include <boost/test/unit_test.hpp>

#include "cli/cmd_recall.hpp"
#include "plugins/plugin_registry.hpp"
#include "recall/resume_command.hpp"
#include "recall_home.hpp"

namespace json = boost::json;
using helix::test::RecallHome;
using helix::test::Run;

namespace {

helix::SessionRow session(const std::string& flavor, const std::string& id) {
  helix::SessionRow s;
  s.flavor = flavor;
  s.native_id = id;
  s.uid = flavor + ":" + id;
  s.cwd = "/work/my repo";
  s.source_path = "/home/u/.agent/" + id + ".jsonl";
  return s;
}

// The resume recipe the named first-party plugin declares.
std::optional<helix::ResumeRecipe> recipe(const std::string& plugin) {
  static const auto registry = [] {
    auto r = std::make_unique<helix::PluginRegistry>();
    r->load_directory(HELIX_TEST_PLUGIN_DIR);
    return r;
  }();
  const helix::PluginInfo* p = registry->find(plugin);
  BOOST_TEST_REQUIRE(p);
  return helix::resume_recipe(*p);
}

helix::ResumePlan plan_resume(const helix::SessionRow& s, const std::string& adapter,
                              bool source_exists, bool cwd_exists) {
  return helix::plan_resume(s, recipe(adapter), source_exists, cwd_exists);
}

}  // namespace

BOOST_AUTO_TEST_CASE(each_flavor_resumes_with_its_own_command) {
  auto claude = plan_resume(session("claude", "cf564e14"), "claude", true, true);
  BOOST_TEST(claude.possible);
  BOOST_TEST(claude.argv == (std::vector<std::string>{"claude", "--resume", "cf564e14"}));
  BOOST_TEST(claude.shell_line() == "cd '/work/my repo' && claude --resume cf564e14");
  auto codex = plan_resume(session("codex", "01a2029b"), "codex", true, true);
  BOOST_TEST(codex.argv == (std::vector<std::string>{"codex", "resume", "01a2029b"}));
  auto grok = plan_resume(session("grok", "01a2029c"), "grok", true, true);
  BOOST_TEST(grok.argv == (std::vector<std::string>{"grok", "-r", "01a2029c"}));
  // Gemini CLI, an out-of-tree plugin, declares its command the same way.
  auto gemini = plan_resume(session("gemini", "eabd608e"), "gemini", true, true);
  BOOST_TEST(gemini.shell_line() == "cd '/work/my repo' && gemini --resume eabd608e");
  BOOST_TEST(helix::shell_quote("it's") == "'it'\\''s'");
  BOOST_TEST(helix::shell_quote("/plain/path-1.2") == "/plain/path-1.2");
}

BOOST_AUTO_TEST_CASE(sessions_the_agent_cannot_resume_are_refused_with_the_reason) {
  auto sub = session("claude", "agent-a2271d1");
  sub.parent_uid = "claude:29ccd257";
  auto p = plan_resume(sub, "claude", true, true);
  BOOST_TEST(!p.possible);
  BOOST_TEST(p.reason.find("subagent") != std::string::npos);
  BOOST_TEST(p.reason.find("claude:29ccd257") != std::string::npos);
  p = plan_resume(session("codex", "3f8a1c2e"), "codex-legacy", true, true);
  BOOST_TEST(!p.possible);
  BOOST_TEST(p.reason.find("rust-v0.32") != std::string::npos);
  p = helix::plan_resume(session("keiseikit", "k1"), std::nullopt, true, true);
  BOOST_TEST(!p.possible);
  BOOST_TEST(p.reason.find("does not know how keiseikit resumes") != std::string::npos);
  p = plan_resume(session("claude", "gone"), "claude", false, true);
  BOOST_TEST(!p.possible);
  BOOST_TEST(p.reason.find("no longer on disk") != std::string::npos);
  p = plan_resume(session("grok", "moved"), "grok", true, false);
  BOOST_TEST(!p.possible);
  BOOST_TEST(p.reason.find("no longer exists") != std::string::npos);
}

// A third-party flavor's declared command serves it like the first-party ones; a command
// without the cwd flag runs anywhere.
BOOST_AUTO_TEST_CASE(a_declared_command_serves_any_flavor) {
  helix::ResumeRecipe gemini{"Gemini CLI", {"gemini", "--resume={session_id}"}, "", false, false};
  auto s = session("gemini", "5c1a9e7f");
  s.cwd.clear();
  auto p = helix::plan_resume(s, gemini, true, false);
  BOOST_TEST(p.possible);
  BOOST_TEST(p.shell_line() == "gemini --resume=5c1a9e7f");
}

BOOST_AUTO_TEST_CASE(the_real_binary_prints_the_command_or_exits_4) {
  RecallHome home;
  BOOST_REQUIRE(home.helix("sweep").exit_code == 0);
  const std::pair<const char*, std::string> expected[] = {
      {RecallHome::kClaude, "claude --resume cf564e14-9b07-42ad-8d9a-4faa1b79a0ed"},
      {RecallHome::kCodex, "codex resume 01a2029b-bd0f-7b52-b27b-ba8d4ea361c8"},
      {RecallHome::kGrok, "grok -r 01a2029c-db54-7f63-8de6-3e496b22d736"}};
  for (const auto& [uid, command] : expected) {
    Run r = home.helix(std::string("resume ") + uid);
    const std::string flavor = std::string(uid).substr(0, std::string(uid).find(':'));
    BOOST_TEST_CONTEXT(uid) {
      BOOST_TEST(r.exit_code == 0);
      BOOST_TEST(r.out == fmt::format("cd {} && {}\n", home.work(flavor), command));
    }
  }
  Run j = home.helix(std::string("resume --json ") + RecallHome::kGrok);
  const json::value doc = json::parse(j.out);
  BOOST_TEST(doc.at("possible").as_bool());
  BOOST_TEST(doc.at("cwd").as_string() == home.work("grok"));
  BOOST_TEST(doc.at("argv").as_array().size() == 3u);

  // The transcript is gone from disk: the agent has nothing to resume from.
  std::filesystem::remove(home.claude_file());
  Run gone = home.helix(std::string("resume ") + RecallHome::kClaude);
  BOOST_TEST(gone.exit_code == 4);
  BOOST_TEST(gone.out.empty());
  BOOST_TEST(gone.err.find("cannot resume") != std::string::npos);
  BOOST_TEST(gone.err.find("no longer on disk") != std::string::npos);
  // The working directory is gone.
  std::filesystem::remove_all(home.work("codex"));
  Run moved = home.helix(std::string("resume ") + RecallHome::kCodex);
  BOOST_TEST(moved.exit_code == 4);
  BOOST_TEST(moved.err.find("no longer exists") != std::string::npos);
  BOOST_TEST(home.helix("resume claude:no-such-session").exit_code == 1);
  BOOST_TEST(home.helix("resume").exit_code == 2);
}

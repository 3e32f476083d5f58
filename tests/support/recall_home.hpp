// Test support for the recall suites (search, export, resume): an agent home built from real
// fixtures with planted words and working directories that exist, and the real helix-host run
// over it the way a user runs it.
#pragma once

#include <fmt/format.h>

#include <boost/json.hpp>
#include <chrono>
#include <filesystem>
#include <string>

#include "helix_command.hpp"
#include "retention/retention.hpp"
#include "store/store.hpp"
#include "temp_dir.hpp"

namespace helix::test {

inline std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// Real sessions, one per flavor, with a planted word each and their cwd moved to a directory
// that exists here:
//   claude:cf564e14-9b07-42ad-8d9a-4faa1b79a0ed  "standard MIT license" -> "standard quokkafizz
//   license" codex:01a2029b-bd0f-7b52-b27b-ba8d4ea361c8   "hello-from-mock" ->
//   "hello-from-zebrawomble" grok:01a2029c-db54-7f63-8de6-3e496b22d736    "list the files here" ->
//   "list the marmosetglyph files here"
//                                                 (in chat_history.jsonl and updates.jsonl both)
class RecallHome {
 public:
  static constexpr const char* kClaude = "claude:cf564e14-9b07-42ad-8d9a-4faa1b79a0ed";
  static constexpr const char* kCodex = "codex:01a2029b-bd0f-7b52-b27b-ba8d4ea361c8";
  static constexpr const char* kGrok = "grok:01a2029c-db54-7f63-8de6-3e496b22d736";

  RecallHome() {
    const std::filesystem::path fx = HELIX_TEST_FIXTURE_DIR;
    std::filesystem::create_directories(work("claude"));
    std::filesystem::create_directories(work("codex"));
    std::filesystem::create_directories(work("grok"));
    plant(fx / "claude/entire-2.0.76-tool-errors.jsonl", claude_file(),
          {{"standard MIT license", "standard quokkafizz license"},
           {"/Users/soph/Work/entire/devenv/cli", work("claude")}});
    const std::string rollout =
        "rollout-2026-11-22T09-34-50-01a2029b-bd0f-7b52-b27b-ba8d4ea361c8.jsonl";
    plant(fx / "codex" / rollout, dir_ / "home/codex/sessions/2026/11/22" / rollout,
          {{"hello-from-mock", "hello-from-zebrawomble"}, {"/tmp/mockworkA", work("codex")}});
    const auto grok_src = fx / "grok/hermetic-grok-1.0.41/grok_home/sessions/%2Ftmp%2Fgh%2Fproj";
    for (const auto& entry : std::filesystem::recursive_directory_iterator(grok_src)) {
      if (!entry.is_regular_file()) continue;
      const auto rel = std::filesystem::relative(entry.path(), grok_src);
      plant(entry.path(), grok_dir().parent_path() / rel,
            {{"list the files here", "list the marmosetglyph files here"},
             {"/tmp/gh/proj", work("grok")}});
    }
    // Quiet for long, like an archived history (see the sweep's final-line grace period).
    const auto old = std::filesystem::file_time_type::clock::now() - std::chrono::hours(24);
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_ / "home"))
      if (entry.is_regular_file()) std::filesystem::last_write_time(entry.path(), old);
    env_ = fmt::format(
        "CLAUDE_CONFIG_DIR={0}/home/claude CODEX_HOME={0}/home/codex "
        "GROK_HOME={0}/home/grok GEMINI_CLI_HOME={0}/home/gemini XDG_CONFIG_HOME={0}/xdg ",
        dir_.path().string());
  }

  std::filesystem::path claude_file() const {
    return dir_ / "home/claude/projects/-planted/cf564e14-9b07-42ad-8d9a-4faa1b79a0ed.jsonl";
  }
  std::filesystem::path grok_dir() const {
    // Grok groups sessions by their percent-encoded working directory.
    return dir_ / "home/grok/sessions" / replace_all(work("grok"), "/", "%2F") /
           "01a2029c-db54-7f63-8de6-3e496b22d736";
  }
  std::string work(const std::string& flavor) const { return (dir_ / "work" / flavor).string(); }
  std::filesystem::path store_db() const { return dir_ / "store/helix.db"; }
  const TempDir& dir() const { return dir_; }

  // Runs helix-host with this home, the build's plugins and this store.
  Run helix(const std::string& args) const {
    return run_helix(env_, dir_ / "store", args, dir_ / "stderr.txt");
  }

  static void plant(const std::filesystem::path& from, const std::filesystem::path& to,
                    const std::vector<std::pair<std::string, std::string>>& edits) {
    std::string text = read_file(from);
    for (const auto& [a, b] : edits) text = replace_all(text, a, b);
    write_file(to, text);
  }

 private:
  TempDir dir_;
  std::string env_;
};

// `search ... --json` parsed; fails the test on a non-zero exit.
inline boost::json::array search_json(const RecallHome& home, const std::string& args) {
  Run r = home.helix("search --json " + args);
  if (r.exit_code != 0)
    throw std::runtime_error(fmt::format("search {} exited {}: {}", args, r.exit_code, r.err));
  return boost::json::parse(r.out).as_array();
}

// Evicts one session through the real retention engine, as its budget pass would at `now_ms`:
// Tier 1 rows go, digests keep their states as base, the usage ledger stays.
inline void evict_session(const RecallHome& home, const std::string& uid, int64_t now_ms) {
  Store store(home.store_db());
  RetentionPlan plan;
  plan.steps.push_back({uid, "budget", 0, /*analyzed=*/true});
  Retention(store, RetentionConfig{}, now_ms).apply(plan);
}

}  // namespace helix::test

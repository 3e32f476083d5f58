// claude_tools.cpp: classifies Claude Code tool calls (edits, test runs) for the event kinds.
#include "claude_tools.hpp"

#include <array>
#include <helix/json.hpp>
#include <vector>

namespace helix::claude {
namespace {

// Programs that only ever run tests.
constexpr std::array<std::string_view, 11> kTestRunners = {
    "pytest", "py.test", "jest", "vitest",  "mocha",   "ctest",
    "rspec",  "phpunit", "tox",  "nextest", "unittest"};
// Programs whose `test` subcommand (or `run test`) runs the suite: npm test, cargo test, go test...
constexpr std::array<std::string_view, 17> kTestLaunchers = {
    "npm",     "yarn",   "pnpm", "bun", "cargo", "go",   "make", "mvn",  "gradle",
    "gradlew", "dotnet", "deno", "mix", "swift", "just", "run",  "ninja"};
constexpr std::array<std::string_view, 4> kEditTools = {"Edit", "Write", "MultiEdit",
                                                        "NotebookEdit"};

template <std::size_t N>
bool contains(const std::array<std::string_view, N>& list, std::string_view word) {
  for (auto w : list)
    if (w == word) return true;
  return false;
}

// Shell words without quotes and paths ("./node_modules/.bin/jest" -> "jest").
std::vector<std::string_view> command_words(std::string_view command) {
  constexpr std::string_view kSeparators = " \t\r\n;&|()`'\"";
  std::vector<std::string_view> words;
  std::size_t pos = 0;
  while ((pos = command.find_first_not_of(kSeparators, pos)) != std::string_view::npos) {
    std::size_t end = std::min(command.find_first_of(kSeparators, pos), command.size());
    std::string_view word = command.substr(pos, end - pos);
    if (auto slash = word.rfind('/'); slash != std::string_view::npos)
      word.remove_prefix(slash + 1);
    words.push_back(word);
    pos = end;
  }
  return words;
}

bool is_test_subcommand(std::string_view launcher, std::string_view word) {
  if (word == "test" || word == "tests" || word.starts_with("test:")) return true;
  return word == "check" && (launcher == "make" || launcher == "ninja");
}

}  // namespace

bool runs_tests(std::string_view command) {
  auto words = command_words(command);
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (contains(kTestRunners, words[i])) return true;
    if (i > 0 && contains(kTestLaunchers, words[i - 1]) &&
        is_test_subcommand(words[i - 1], words[i]))
      return true;
  }
  return false;
}

std::string_view tool_call_kind(std::string_view name, const boost::json::object* input) {
  if (contains(kEditTools, name)) return "edit";
  if (name == "Bash" && input && runs_tests(json::str(*input, "command"))) return "test_run";
  return "tool_call";
}

std::string_view tool_call_detail(const boost::json::object* input) {
  if (!input) return {};
  for (std::string_view key : {"command", "file_path", "notebook_path", "pattern", "url", "query",
                               "description", "prompt", "subject", "path", "skill"}) {
    auto value = json::str(*input, key);
    if (!value.empty()) return value;
  }
  return {};
}

}  // namespace helix::claude

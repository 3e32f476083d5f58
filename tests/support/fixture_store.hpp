// Test support: every bundled fixture (all flavors) laid out as agent homes by
// scripts/make-sample-home and swept by the real helix-host into a fresh store, once per test
// program.
#pragma once

#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "helix_command.hpp"
#include "temp_dir.hpp"

namespace helix::test {

class FixtureStore {
 public:
  // The suite's one store (sweeping takes a few hundred milliseconds; the tests only read it).
  static const FixtureStore& shared() {
    static const FixtureStore store;
    return store;
  }

  std::filesystem::path db() const { return dir_ / "store/helix.db"; }
  // A directory under the home whose name is `repo`: the store attributes it to that repository.
  std::filesystem::path repo_dir(const std::string& repo) const {
    const auto d = dir_ / "repos" / repo;
    std::filesystem::create_directories(d);
    return d;
  }
  Run helix(const std::string& args) const {
    return run_helix(env_, dir_ / "store", args, dir_ / "stderr.txt");
  }

 private:
  FixtureStore() {
    const std::filesystem::path fixtures = HELIX_TEST_FIXTURE_DIR;
    const auto script = fixtures.parent_path().parent_path() / "scripts/make-sample-home";
    Run laid = run_command(fmt::format("{} {} {} 2>{}", script.string(), fixtures.string(),
                                       (dir_ / "home").string(), (dir_ / "layout.txt").string()),
                           dir_ / "layout.txt");
    if (laid.exit_code != 0) throw std::runtime_error("make-sample-home failed: " + laid.err);
    std::filesystem::create_directories(dir_ / "xdg");
    env_ = fmt::format(
        "CLAUDE_CONFIG_DIR={0}/home/claude CODEX_HOME={0}/home/codex GROK_HOME={0}/home/grok "
        "XDG_CONFIG_HOME={0}/xdg TZ=UTC ",
        dir_.path().string());
    Run swept = helix("sweep --quiet");
    if (swept.exit_code != 0) throw std::runtime_error("sweep failed: " + swept.err);
  }

  TempDir dir_;
  std::string env_;
};

}  // namespace helix::test

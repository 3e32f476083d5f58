// Test support: the sample agent home (every bundled fixture of every flavor) and the agents'
// home variables pointing into it, as the suites that run the real binary on it need.
#pragma once

#include <boost/test/unit_test.hpp>

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

namespace helix::test {

// Writes the sample home at `home` (scripts/make-sample-home) and points CLAUDE_CONFIG_DIR,
// CODEX_HOME, GROK_HOME and GEMINI_CLI_HOME into it; XDG_CONFIG_HOME is `xdg` (no user config).
inline void make_sample_home(const std::filesystem::path& home, const std::filesystem::path& xdg) {
  const std::string make =
      fmt::format("{}/../../scripts/make-sample-home {} {} >/dev/null", HELIX_TEST_FIXTURE_DIR,
                  HELIX_TEST_FIXTURE_DIR, home.string());
  BOOST_REQUIRE(std::system(make.c_str()) == 0);
  ::setenv("CLAUDE_CONFIG_DIR", (home / "claude").c_str(), 1);
  ::setenv("CODEX_HOME", (home / "codex").c_str(), 1);
  ::setenv("GROK_HOME", (home / "grok").c_str(), 1);
  ::setenv("GEMINI_CLI_HOME", (home / "gemini").c_str(), 1);
  ::setenv("XDG_CONFIG_HOME", xdg.c_str(), 1);
}

}  // namespace helix::test

// Test support: one helix-host command run the way a user types it (through the shell, with
// environment assignments in front), with its exit code, standard output and standard error.
#pragma once

#include <sys/wait.h>

#include <fmt/format.h>
#include <cstdio>
#include <filesystem>
#include <string>

#include "temp_dir.hpp"

#ifndef HELIX_TEST_HOST_BINARY
#error "HELIX_TEST_HOST_BINARY must name the built helix-host"
#endif

namespace helix::test {

struct Run {
  int exit_code;
  std::string out, err;
};

// Runs one shell command line whose stderr the caller sent to `err_file` (overwritten by it).
inline Run run_command(const std::string& cmd, const std::filesystem::path& err_file) {
  Run r{0, "", ""};
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) return {-1, "", "popen failed: " + cmd};
  char buf[65536];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) r.out.append(buf, n);
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = read_file(err_file);
  return r;
}

// Runs `<env>helix-host --plugins <the build's plugins> --store <store_dir> <args>`. `env` is
// empty or assignments ending in a space; stderr is kept in `err_file` (overwritten).
inline Run run_helix(const std::string& env, const std::filesystem::path& store_dir,
                     const std::string& args, const std::filesystem::path& err_file) {
  return run_command(
      fmt::format("{}{} --plugins {} --store {} {} 2>{}", env, HELIX_TEST_HOST_BINARY,
                  HELIX_TEST_PLUGIN_DIR, store_dir.string(), args, err_file.string()),
      err_file);
}

}  // namespace helix::test

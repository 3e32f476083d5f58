// Test support: the real helix-host binary as a child process that can be waited for, killed
// with SIGKILL at any moment, and measured (exit status, output, peak resident memory).
#pragma once

#include "temp_dir.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#ifndef HELIX_TEST_HOST_BINARY
#error "HELIX_TEST_HOST_BINARY must name the built helix-host"
#endif

namespace helix::test {

struct HostResult {
  int exit_code = -1;  // -1 when a signal ended it
  int signal = 0;
  long peak_rss_kib = 0;  // the child's VmHWM, from wait4's rusage
  std::string out, err;
};

class HostProcess {
 public:
  // Starts `helix-host args...`; stdin from `stdin_text`, stdout and stderr to files in `io_dir`.
  HostProcess(const std::vector<std::string>& args, const std::filesystem::path& io_dir,
              const std::string& stdin_text = "")
      : out_(io_dir / "stdout.txt"), err_(io_dir / "stderr.txt") {
    const auto in = io_dir / "stdin.txt";
    write_file(in, stdin_text);
    std::vector<std::string> argv_text{HELIX_TEST_HOST_BINARY};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      redirect(in, O_RDONLY, STDIN_FILENO);
      redirect(out_, O_WRONLY | O_CREAT | O_TRUNC, STDOUT_FILENO);
      redirect(err_, O_WRONLY | O_CREAT | O_TRUNC, STDERR_FILENO);
      std::vector<char*> argv;
      for (auto& a : argv_text) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
  }
  ~HostProcess() {
    if (!done_) {
      ::kill(pid_, SIGKILL);
      wait();
    }
  }
  HostProcess(const HostProcess&) = delete;
  HostProcess& operator=(const HostProcess&) = delete;

  pid_t pid() const { return pid_; }

  bool running() {
    if (!done_) reap(WNOHANG);
    return !done_;
  }

  // SIGKILL now; true when it was still running (the kill landed mid-run).
  bool kill() {
    if (!running()) return false;
    ::kill(pid_, SIGKILL);
    wait();
    return result_.signal == SIGKILL;
  }

  const HostResult& wait() {
    while (!done_) reap(0);
    return result_;
  }

  // Waits at most `limit`; false when it is still running then.
  bool wait_for(std::chrono::milliseconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (running() && std::chrono::steady_clock::now() < end)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return !running();
  }

 private:
  static void redirect(const std::filesystem::path& file, int flags, int fd) {
    int f = ::open(file.c_str(), flags, 0600);
    if (f < 0 || ::dup2(f, fd) < 0) ::_exit(126);
    ::close(f);
  }

  void reap(int options) {
    int status = 0;
    struct rusage usage {};
    pid_t r = ::wait4(pid_, &status, options, &usage);
    if (r == 0 || (r < 0 && errno == EINTR)) return;
    done_ = true;
    if (r < 0) return;
    result_.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result_.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    result_.peak_rss_kib = usage.ru_maxrss;
    result_.out = read_file(out_);
    result_.err = read_file(err_);
  }

  std::filesystem::path out_, err_;
  pid_t pid_ = -1;
  bool done_ = false;
  HostResult result_;
};

}  // namespace helix::test

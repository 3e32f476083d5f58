#include "conformance/isolated_call.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace helix {

std::string run_isolated(const std::function<void()>& call, double timeout_s) {
  const pid_t pid = ::fork();
  if (pid < 0) return fmt::format("fork failed: {}", std::strerror(errno));
  if (pid == 0) {
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM}) ::signal(sig, SIG_DFL);
    ::alarm(static_cast<unsigned>(timeout_s) + 1);
    try {
      call();
    } catch (...) {
    }
    std::_Exit(0);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
    return fmt::format("hung: no return within {} s", timeout_s);
  if (WIFSIGNALED(status))
    return fmt::format("crashed with signal {} ({})", WTERMSIG(status),
                       ::strsignal(WTERMSIG(status)));
  return fmt::format("exited with status {}", WEXITSTATUS(status));
}

}  // namespace helix

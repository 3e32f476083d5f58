#include "cli/terminal.hpp"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <iostream>

namespace helix {
namespace {

pid_t pager_pid = -1;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::size_t terminal_width(bool tty) {
  const std::string columns = env("COLUMNS");
  std::size_t n = 0;
  if (!columns.empty()) {
    auto [end, ec] = std::from_chars(columns.data(), columns.data() + columns.size(), n);
    if (ec == std::errc() && end == columns.data() + columns.size() && n >= 20) return n;
  }
  winsize ws{};
  if (tty && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
  return 0;
}

std::string wrap(const OutputStyle& style, const char* code, std::string_view text) {
  if (!style.color || text.empty()) return std::string(text);
  return std::string(code) + std::string(text) + "\033[0m";
}

}  // namespace

OutputStyle decide_output_style(std::string_view color_option, bool no_pager) {
  const bool tty = ::isatty(STDOUT_FILENO) == 1;
  OutputStyle s;
  if (color_option == "always")
    s.color = true;
  else if (color_option == "auto")
    s.color = tty && env("NO_COLOR").empty() && env("TERM") != "dumb";
  s.width = terminal_width(tty);
  s.may_page = tty && !no_pager;
  return s;
}

void start_pager(const OutputStyle& style) {
  if (!style.may_page || pager_pid > 0) return;
  const char* configured = std::getenv("PAGER");
  const std::string pager = configured ? configured : "less";
  if (pager.empty() || pager == "cat") return;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return;
  std::cout.flush();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return;
  }
  if (pid == 0) {
    ::dup2(fds[0], STDIN_FILENO);
    ::setenv("LESS", "FRX", 0);  // as git: quit when it fits, keep colours, no screen clearing
    ::execl("/bin/sh", "sh", "-c", pager.c_str(), static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  ::dup2(fds[1], STDOUT_FILENO);
  ::close(fds[0]);
  ::close(fds[1]);
  pager_pid = pid;
}

void finish_pager() {
  if (pager_pid <= 0) return;
  std::cout.flush();
  ::close(STDOUT_FILENO);  // the pager sees the end of its input
  int status = 0;
  while (::waitpid(pager_pid, &status, 0) < 0 && errno == EINTR) {
  }
  pager_pid = -1;
}

std::string bold(const OutputStyle& style, std::string_view text) {
  return wrap(style, "\033[1m", text);
}
std::string dim(const OutputStyle& style, std::string_view text) {
  return wrap(style, "\033[2m", text);
}

}  // namespace helix

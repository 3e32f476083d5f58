#include "cli/terminal.hpp"

#include "cli/table.hpp"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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

// The width of the terminal on `fd` (COLUMNS first, as tables take it); 0 when not a tty.
std::size_t terminal_width(bool tty, int fd = STDOUT_FILENO) {
  const std::string columns = env("COLUMNS");
  std::size_t n = 0;
  if (!columns.empty()) {
    auto [end, ec] = std::from_chars(columns.data(), columns.data() + columns.size(), n);
    if (ec == std::errc() && end == columns.data() + columns.size() && n >= 20) return n;
  }
  winsize ws{};
  if (tty && ::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
  return 0;
}

std::string wrap(const OutputStyle& style, const char* code, std::string_view text) {
  if (!style.color || text.empty()) return std::string(text);
  return std::string(code) + std::string(text) + "\033[0m";
}

}  // namespace

std::string wrap_words(std::string_view text, std::size_t width, std::string_view indent) {
  if (width == 0) return std::string(text);
  std::string out;
  std::size_t used = 0;  // cells on the current line
  while (!text.empty()) {
    const auto end = std::min(text.find(' '), text.size());
    const std::string_view word = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    const std::size_t cells = display_width(word);
    if (used > 0 && used + 1 + cells > width) {
      out += "\n";
      out += indent;
      used = display_width(indent);
    } else if (used > 0) {
      out += ' ';
      ++used;
    }
    out += word;
    used += cells;
  }
  return out;
}

void print_message(std::string_view message) {
  const bool tty = ::isatty(STDERR_FILENO) == 1;
  const std::string text = "helix-host: " + std::string(message);
  std::cerr << wrap_words(text, tty ? terminal_width(tty, STDERR_FILENO) : 0, "  ") << "\n";
}

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

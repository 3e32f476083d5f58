// Opens plugin directories and files by descriptor from / down, judging each step on its own
// descriptor, so that the file helix-host checked is the file it loads.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace helix {

// An open file descriptor, closed when it dies.
class OwnedFd {
 public:
  OwnedFd() = default;
  explicit OwnedFd(int fd) : fd_(fd) {}
  ~OwnedFd();
  OwnedFd(OwnedFd&& other) noexcept : fd_(other.release()) {}
  OwnedFd& operator=(OwnedFd&& other) noexcept;
  OwnedFd(const OwnedFd&) = delete;
  OwnedFd& operator=(const OwnedFd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

// What the path names ("plugin directory", "plugin file") and what its parent folder is called
// in messages ("plugin directory", "directory of the plugin file").
struct TrustedRole {
  std::string_view what;
  std::string_view parent_what;
  bool directory = false;  // the path must be a directory (else a regular file)
};

// A descriptor of a path nobody but its owner can change, or why there is none.
struct TrustedOpen {
  OwnedFd fd;           // open for reading; valid when `problem` is empty
  std::string problem;  // one line an administrator can act on
  bool link = false;    // open_trusted_entry only: the entry is a symbolic link (not opened)
};

// Opens the absolute path `path` (canonical: no links, no "..") one component at a time with
// O_NOFOLLOW, as ssh judges its keys' folders: every folder from / down and the path itself
// belong to this user or root, and neither its group nor others may write them (a folder with
// the sticky bit, like /tmp, may be writable by all: nobody can rename what it holds away from
// its owner). A component replaced by a symbolic link meanwhile is refused, not followed.
TrustedOpen open_trusted(const std::filesystem::path& path, const TrustedRole& role);

// Opens the entry path.filename() of the trusted directory `dir_fd` (path names it in messages)
// the same way. A symbolic link is not opened: `link` says so, and the caller may open its
// canonical target with open_trusted.
TrustedOpen open_trusted_entry(int dir_fd, const std::filesystem::path& path,
                               const TrustedRole& role);

}  // namespace helix

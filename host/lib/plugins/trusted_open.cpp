#include "plugins/trusted_open.hpp"

#include "base/ownership.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

namespace helix {

OwnedFd::~OwnedFd() {
  if (fd_ >= 0) ::close(fd_);
}

OwnedFd& OwnedFd::operator=(OwnedFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

namespace {

constexpr std::string_view kStake = "could change the code helix-host runs";

// Why the folder `path` (`label` in the message) lets another user swap what it holds, or "".
std::string unsafe_ancestor(const struct stat& st, const std::filesystem::path& path,
                            const std::string& label) {
  struct stat judged = st;
  // A sticky folder (like /tmp) only lets each user rename or remove their own entries, and
  // the next component's owner is checked in turn.
  if (S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX)) judged.st_mode &= ~(S_IWGRP | S_IWOTH);
  return changeable_by_others(judged, label, path.string(), kStake);
}

// Opens `name` in `dir_fd` without following a link; `leaf` opens the final component.
int open_step(int dir_fd, const char* name, bool leaf, bool directory) {
  int flags = O_CLOEXEC | O_NOFOLLOW;
  if (!leaf)
    flags |= O_PATH | O_DIRECTORY;
  else
    flags |= O_RDONLY | O_NONBLOCK | (directory ? O_DIRECTORY : 0);
  return ::openat(dir_fd, name, flags);
}

std::string open_failure(const std::filesystem::path& path, int error) {
  if (error == ELOOP)
    return fmt::format(
        "{} is a symbolic link (or became one while it was checked); plugins "
        "load only through real folders",
        path.string());
  return fmt::format("cannot open {}: {}", path.string(), std::strerror(error));
}

// Why the opened path itself cannot be trusted, or "".
std::string leaf_problem(const struct stat& st, const std::filesystem::path& path,
                         const TrustedRole& role) {
  const bool right_type = role.directory ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode);
  if (!right_type)
    return fmt::format("the {} {} is not a {}", role.what, path.string(),
                       role.directory ? "directory" : "regular file");
  return changeable_by_others(st, role.what, path.string(), kStake);
}

TrustedOpen judged_leaf(OwnedFd fd, const std::filesystem::path& path, const TrustedRole& role) {
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return {{}, open_failure(path, errno)};
  if (auto problem = leaf_problem(st, path, role); !problem.empty()) return {{}, problem};
  return {std::move(fd), {}};
}

}  // namespace

TrustedOpen open_trusted(const std::filesystem::path& path, const TrustedRole& role) {
  if (!path.is_absolute()) return {{}, fmt::format("{} is not an absolute path", path.string())};
  const std::filesystem::path relative = path.relative_path();
  const std::vector<std::filesystem::path> parts(relative.begin(), relative.end());
  OwnedFd current(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
  std::filesystem::path walked = "/";
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const bool leaf = i + 1 == parts.size();
    struct stat st {};
    if (!current.valid() || ::fstat(current.get(), &st) != 0)
      return {{}, open_failure(walked, errno)};
    const std::string label =
        leaf ? std::string(role.parent_what) : fmt::format("folder above the {}", role.what);
    if (auto problem = unsafe_ancestor(st, walked, label); !problem.empty()) return {{}, problem};
    walked /= parts[i];
    current = OwnedFd(open_step(current.get(), parts[i].c_str(), leaf, role.directory));
    if (!current.valid()) return {{}, open_failure(walked, errno)};
  }
  return judged_leaf(std::move(current), path, role);
}

TrustedOpen open_trusted_entry(int dir_fd, const std::filesystem::path& path,
                               const TrustedRole& role) {
  OwnedFd fd(open_step(dir_fd, path.filename().c_str(), true, role.directory));
  if (!fd.valid()) {
    TrustedOpen out{{}, open_failure(path, errno)};
    out.link = errno == ELOOP;
    return out;
  }
  return judged_leaf(std::move(fd), path, role);
}

}  // namespace helix

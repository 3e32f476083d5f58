#include "base/private_files.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace helix {
namespace {

// Removes the group and other bits of a path the caller owns; leaves other owners' alone.
void narrow(const std::filesystem::path& path, mode_t mode) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || st.st_uid != ::geteuid()) return;
  if ((st.st_mode & 07777) != mode && ::chmod(path.c_str(), mode) != 0)
    throw std::runtime_error(fmt::format("cannot make {} private to its owner (chmod {:o}): {}",
                                         path.string(), mode, std::strerror(errno)));
}

}  // namespace

void make_private_dir(const std::filesystem::path& dir) {
  if (dir.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw std::runtime_error(
        fmt::format("cannot create the store directory {}: {}", dir.string(), ec.message()));
  narrow(dir, 0700);
}

void make_private_file(const std::filesystem::path& file, bool create) {
  if (create) {
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) ::close(fd);  // a new, empty file: no SQLite connection can hold it yet
  }
  narrow(file, 0600);
}

}  // namespace helix

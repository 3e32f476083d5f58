#include "base/private_files.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

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
  // Every missing folder on the way is created 0700 (whatever the umask), top down: a parent
  // made 0777 would let others swap the store's directory.
  std::vector<std::filesystem::path> missing;
  std::error_code ec;
  for (auto p = dir; !p.empty() && !std::filesystem::exists(p, ec); p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (::mkdir(it->c_str(), 0700) != 0 && errno != EEXIST)
      throw std::runtime_error(fmt::format("cannot create the store directory {}: {}", it->string(),
                                           std::strerror(errno)));
    narrow(*it, 0700);
  }
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

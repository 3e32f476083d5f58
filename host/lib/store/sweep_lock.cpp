#include "store/sweep_lock.hpp"

#include "base/private_files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#include <stdexcept>

namespace helix {

SweepLock::SweepLock(const std::filesystem::path& db_file) {
  make_private_dir(db_file.parent_path());  // the store directory is private (0700)
  const std::string path = db_file.string() + ".lock";
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd_ < 0) throw std::runtime_error("cannot create the sweep lock " + path);
  acquired_ = ::flock(fd_, LOCK_EX | LOCK_NB) == 0;
}

SweepLock::~SweepLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace helix

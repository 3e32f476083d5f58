// The store's sweep lock: one writer at a time, shared by `sweep` and `hook`.
#pragma once

#include <filesystem>

namespace helix {

// Holds flock(LOCK_EX) on "<store file>.lock" for its lifetime, never waiting for it. The
// kernel drops the lock when the process dies, so a killed sweep leaves no stale lock behind.
class SweepLock {
 public:
  explicit SweepLock(const std::filesystem::path& db_file);
  ~SweepLock();
  SweepLock(const SweepLock&) = delete;
  SweepLock& operator=(const SweepLock&) = delete;

  // False when another process holds the lock.
  bool acquired() const { return acquired_; }

 private:
  int fd_ = -1;
  bool acquired_ = false;
};

}  // namespace helix

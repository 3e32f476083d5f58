// Wall-clock time as the store records it: whole milliseconds (or nanoseconds) since the epoch.
#pragma once

#include <chrono>
#include <cstdint>

namespace helix {

inline int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// For comparing with file modification times, which the cursors keep in nanoseconds.
inline int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace helix

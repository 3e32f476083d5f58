#include "base/ownership.hpp"

#include <fmt/format.h>
#include <unistd.h>

namespace helix {

std::string changeable_by_others(const struct stat& st, std::string_view what,
                                 const std::string& path, std::string_view stake) {
  if (st.st_uid != 0 && st.st_uid != ::geteuid())
    return fmt::format(
        "the {} {} belongs to uid {}, neither this user (uid {}) nor root, so another user {}; "
        "have it owned by you or root (chown)",
        what, path, st.st_uid, ::geteuid(), stake);
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return fmt::format(
        "the {} {} is writable by {} (mode {:04o}), so another user {}; fix it with: chmod go-w "
        "{}",
        what, path, st.st_mode & S_IWOTH ? "all users" : "its group",
        static_cast<unsigned>(st.st_mode & 07777), stake, path);
  return {};
}

}  // namespace helix

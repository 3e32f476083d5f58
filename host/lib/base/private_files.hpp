// The store is private to its user: its directory 0700, its files 0600, whatever the umask.
#pragma once

#include <filesystem>

namespace helix {

// Creates `dir` and each missing parent 0700, and narrows `dir` to 0700 when it is the caller's
// own (existing parents are left as they are). Throws
// std::runtime_error naming the directory when it cannot be created.
void make_private_dir(const std::filesystem::path& dir);

// Narrows `file` to 0600; with `create`, first creates it empty (0600) when it does not exist.
// Works by path only: it never opens a file that SQLite may hold open (closing any descriptor
// of a database file drops SQLite's POSIX locks on it).
void make_private_file(const std::filesystem::path& file, bool create = false);

}  // namespace helix

// Test support: a fresh directory under $TMPDIR (removed afterwards), and whole-file I/O.
#pragma once

#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace helix::test {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "helix-test-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& relative) const { return path_ / relative; }

 private:
  std::filesystem::path path_;
};

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_file(const std::filesystem::path& path, const std::string& bytes,
                       bool append = false) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | (append ? std::ios::app : std::ios::trunc));
  out << bytes;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

// Copies a store's database file with its write-ahead log, which holds its latest commits (a
// closing helix-host leaves a small WAL for the next writer to fold in).
inline void copy_store(const std::filesystem::path& db, const std::filesystem::path& to) {
  std::filesystem::copy_file(db, to);
  const std::filesystem::path wal = db.string() + "-wal";
  if (std::filesystem::exists(wal)) std::filesystem::copy_file(wal, to.string() + "-wal");
}

}  // namespace helix::test

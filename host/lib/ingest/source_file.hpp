// Read-only access to one source file: identity, and bytes by offset, decompressing zstd
// transparently (offsets are then positions in the decompressed stream).
#pragma once

#include "model/source_cursor.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace helix {

class SourceFile {
 public:
  // Opens read-only; throws std::runtime_error naming the file when it cannot.
  explicit SourceFile(const std::filesystem::path& path);
  ~SourceFile();
  SourceFile(const SourceFile&) = delete;
  SourceFile& operator=(const SourceFile&) = delete;

  const FileIdentity& identity() const { return identity_; }
  bool compressed() const { return decoder_ != nullptr; }

  // Up to max_bytes bytes starting at `offset`; fewer only at the end of the data.
  // Compressed files are cheapest read forwards; reading backwards restarts decompression.
  std::string read(int64_t offset, std::size_t max_bytes);
  // The same bytes appended to `out`, returning how many: a caller reusing one buffer pays
  // neither an allocation nor zero-filling of max_bytes for a file smaller than that.
  std::size_t append(std::string& out, int64_t offset, std::size_t max_bytes);

  // 64-bit XXH3 of [offset, offset + length); used to recognise rewritten files.
  uint64_t hash(int64_t offset, int64_t length);

 private:
  struct Decoder;
  std::string read_compressed(int64_t offset, std::size_t max_bytes);

  std::filesystem::path path_;
  int fd_ = -1;
  FileIdentity identity_;
  std::unique_ptr<Decoder> decoder_;
  std::string hash_buffer_;  // reused by hash()
};

uint64_t hash_bytes(std::string_view bytes);

// The identity of a file as stat() sees it; all zero when it cannot be read (its visit says why).
FileIdentity stat_identity(const std::string& path);

}  // namespace helix

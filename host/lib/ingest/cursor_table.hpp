// The cursors a sweep's reading thread works with, and the test that spares an unchanged file.
#pragma once

#include "base/clock.hpp"
#include "model/source_cursor.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace helix {

// Nothing to do (of a SourceCursor or a SourceSummary): the file is as last seen, and an unfinished
// last line in it (if any) is still within its grace period, so it cannot be delivered yet.
template <class Cursor>
bool nothing_to_do(const Cursor& c, const FileIdentity& id, int64_t grace_seconds) {
  if (!c.is_as(id)) return false;
  if (c.compressed || c.offset >= id.size) return true;
  return now_ns() - c.mtime_ns < grace_seconds * 1000000000;
}

// The cursors the parsing thread may need, by path and by file identity: loaded at the start
// for the sources to be read (not for every stored one), kept current by that thread, and each
// dropped once its source has been visited (the store has it), so a sweep holds the cursors of
// the sources it has yet to read, not of all it has read.
class CursorTable {
 public:
  void put(const SourceCursor& cursor, const std::string& old_path = {});
  std::optional<SourceCursor> find(const std::string& path) const;
  std::optional<SourceCursor> find(uint64_t dev, uint64_t ino) const;  // lowest id first
  // Drops the cursor at `path`, remembering only that visit `visit` read its file.
  void retire(const std::string& path, std::size_t visit);
  // The visit of this sweep that read the file with this identity first, if one did.
  std::optional<std::size_t> visited(uint64_t dev, uint64_t ino) const;

 private:
  void forget(const std::string& path);

  std::map<std::string, SourceCursor> by_path_;
  std::multimap<std::pair<uint64_t, uint64_t>, std::string> by_identity_;
  std::map<std::pair<uint64_t, uint64_t>, std::size_t> visited_;
};

}  // namespace helix

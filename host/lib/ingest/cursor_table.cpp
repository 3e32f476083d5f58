#include "ingest/cursor_table.hpp"

#include <cstdint>

namespace helix {

void CursorTable::forget(const std::string& path) {
  auto it = by_path_.find(path);
  if (it == by_path_.end()) return;
  auto [lo, hi] = by_identity_.equal_range({it->second.dev, it->second.ino});
  for (auto i = lo; i != hi; ++i)
    if (i->second == path) {
      by_identity_.erase(i);
      break;
    }
  by_path_.erase(it);
}

void CursorTable::put(const SourceCursor& cursor, const std::string& old_path) {
  if (!old_path.empty()) forget(old_path);
  forget(cursor.path);
  by_path_.emplace(cursor.path, cursor);
  by_identity_.emplace(std::pair{cursor.dev, cursor.ino}, cursor.path);
}

void CursorTable::retire(const std::string& path, std::size_t visit) {
  auto it = by_path_.find(path);
  if (it == by_path_.end()) return;
  visited_.emplace(std::pair{it->second.dev, it->second.ino}, visit);  // the first one stays
  forget(path);
}

std::optional<std::size_t> CursorTable::visited(uint64_t dev, uint64_t ino) const {
  auto it = visited_.find({dev, ino});
  if (it == visited_.end()) return std::nullopt;
  return it->second;
}

std::optional<SourceCursor> CursorTable::find(const std::string& path) const {
  auto it = by_path_.find(path);
  if (it == by_path_.end()) return std::nullopt;
  return it->second;
}

std::optional<SourceCursor> CursorTable::find(uint64_t dev, uint64_t ino) const {
  // As the store would answer: stored rows by id, then this sweep's new ones as created.
  auto rank = [](int64_t id) { return id > 0 ? id : INT64_MAX + id; };
  const SourceCursor* best = nullptr;
  auto [lo, hi] = by_identity_.equal_range({dev, ino});
  for (auto i = lo; i != hi; ++i) {
    const SourceCursor& c = by_path_.at(i->second);
    if (!best || rank(c.id) < rank(best->id)) best = &c;
  }
  if (!best) return std::nullopt;
  return *best;
}

}  // namespace helix

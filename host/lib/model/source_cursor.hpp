// The persisted ingest position of one source file (the host owns offsets, not adapters), and
// the moves a sweep makes it through.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

namespace helix {

// A file as stat() sees it: enough to tell that it changed, and which file it is.
struct FileIdentity {
  uint64_t dev = 0, ino = 0;
  int64_t size = 0, mtime_ns = 0;
};

// Where a source stands. Stored as its name (to_string / parse_source_state at the SQL edge).
enum class SourceState {
  active,     // claimed and read
  missing,    // its file is gone; its rows stay, and it resumes if the file comes back
  unclaimed,  // no loaded plugin recognises it
  orphaned,   // the plugin that claimed it is not loaded; left unread until it is back
  // Its plugin crashed, hung or ran out of memory on it (last_error says which): left unread
  // until the plugin or the file changes, or `sweep --retry-quarantined`.
  quarantined,
};
std::string_view to_string(SourceState state);
// The state of that name; nullopt for a name this host does not know.
std::optional<SourceState> parse_source_state(std::string_view name);
std::ostream& operator<<(std::ostream& out, SourceState state);  // its name

struct SourceCursor {
  int64_t id = 0;  // 0 until stored
  std::string path;
  uint64_t dev = 0, ino = 0;
  int64_t size = 0, mtime_ns = 0;  // on disk, at the last visit
  bool compressed = false;
  uint32_t layout = 0;
  int64_t head_len = 0;  // the first head_len bytes hash to head_hash (identity check)
  uint64_t head_hash = 0;
  int64_t offset = 0;    // first (decompressed) byte not yet ingested; always after a '\n'
  int64_t tail_len = 0;  // the tail_len bytes before offset hash to tail_hash (rewrite check)
  uint64_t tail_hash = 0;
  int64_t generation = 0;
  std::string adapter, adapter_version, flavor;
  SourceState state = SourceState::active;
  std::string adapter_state;
  std::string last_error;
  // When quarantined: the plugin file as it was then ("<version> <size> <mtime_ns>"), so that
  // a changed plugin is tried again.
  std::string quarantine;

  // The file is as last seen (same device, inode, size and mtime).
  bool is_as(const FileIdentity& file) const {
    return dev == file.dev && ino == file.ino && size == file.size && mtime_ns == file.mtime_ns;
  }
  // Remembers the file as it is now.
  void adopt(const FileIdentity& file) {
    dev = file.dev;
    ino = file.ino;
    size = file.size;
    mtime_ns = file.mtime_ns;
  }
  // The file was rewritten or truncated: read it again from its first byte, as a new
  // generation whose first commit replaces every row the earlier ones produced.
  void start_new_generation() {
    ++generation;
    offset = head_len = tail_len = 0;
    head_hash = tail_hash = 0;
    adapter_state.clear();
  }
};

// What a sweep needs of every stored cursor before reading anything: enough to tell an
// unchanged file, a renamed one and a missing one. The rest of a cursor (adapter state,
// names, last error) is loaded only for the sources that are read.
struct SourceSummary {
  int64_t id = 0;
  std::string path;
  uint64_t dev = 0, ino = 0;
  int64_t size = 0, mtime_ns = 0;
  bool compressed = false;
  int64_t head_len = 0;
  uint64_t head_hash = 0;
  int64_t offset = 0;
  SourceState state = SourceState::active;
  std::string adapter, adapter_version;  // who read it last (a new version may re-read it)

  bool is_as(const FileIdentity& file) const {
    return dev == file.dev && ino == file.ino && size == file.size && mtime_ns == file.mtime_ns;
  }
};

}  // namespace helix

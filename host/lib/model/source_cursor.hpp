// The persisted ingest position of one source file (the host owns offsets, not adapters).
#pragma once

#include <cstdint>
#include <string>

namespace helix {

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
  std::string state = "active";  // active | missing | unclaimed | orphaned
  std::string adapter_state;
  std::string last_error;
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
  std::string state;
};

}  // namespace helix

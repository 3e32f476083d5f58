// One parsed chunk written into the store, phase by phase, inside the savepoint Store gives it:
// the sessions it touches, the copies it repeats, its payload packs, its events, its usage, and
// its warnings and redaction counts. Store::commit_chunk is its only user; the order of the
// phases is that of docs/architecture.md ("One source, one sweep", step 6).
#pragma once

#include "model/payload_pack.hpp"
#include "model/record_batch.hpp"
#include "model/source_cursor.hpp"
#include "store/database.hpp"
#include "store/pending_search.hpp"
#include "store/session_counters.hpp"
#include "store/store.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace helix {

class ChunkWriter {
 public:
  // `cursor` must be stored already (it has its id); new search entries go to `search`.
  ChunkWriter(Database& db, const SourceCursor& cursor, const RecordBatch& batch,
              std::vector<PendingSearch>& search);

  // Merges what the chunk says of each session in memory, then one upsert per session.
  void write_sessions();
  // An event already stored (same session, uid, ordinal), or twice in the chunk, is a copy:
  // stored as a shadow, and it may give its primary the time the primary lacks.
  void mark_copies();
  // The chunk's payload packs, compressed by the reading thread or here with `compressor`.
  void write_packs(PackCompressor* compressor);
  // Events in emission order: per-session seq, parent_seq from native parent ids, a result
  // inherits its call's tool, two events at one position keep the first (and warn).
  void write_events();
  // One row per model call; a repeated key keeps the record with the largest total.
  void write_usage();
  // Any new record of a session (usage-only chunks too) makes its digests stale.
  void mark_ingested();
  void write_warnings();
  void write_redactions();

  const CommitStats& stats() const { return stats_; }

 private:
  std::string uid_of(const std::string& native_id) const { return prefix_ + native_id; }

  Database& db_;
  const SourceCursor& cursor_;
  const RecordBatch& batch_;
  std::vector<PendingSearch>& search_;
  const std::string prefix_;  // "<flavor>:"
  const int64_t now_;
  CommitStats stats_;
  std::map<std::string, SessionRecord> touched_;  // by native id
  std::vector<bool> shadow_;                      // by event
  std::optional<BatchPacks> packed_here_;
  const BatchPacks* packs_ = nullptr;
  std::map<std::string, int64_t> pack_ids_;         // by native id
  std::map<std::string, SessionRowCounts> counts_;  // what the chunk's stored rows bring, by uid
};

}  // namespace helix

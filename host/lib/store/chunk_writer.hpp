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
#include "store/prior_events.hpp"
#include "store/session_counters.hpp"
#include "store/store.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace helix {

class ChunkWriter {
 public:
  // `cursor` must be stored already (it has its id); new search entries go to `search`.
  // `prior`: the events of the document this chunk replaces whole (nullptr: not a replacement).
  ChunkWriter(Database& db, const SourceCursor& cursor, const RecordBatch& batch,
              std::vector<PendingSearch>& search, PriorEvents* prior = nullptr);

  // Merges what the chunk says of each session in memory, then one upsert per session.
  void write_sessions();
  // An event already stored (same session, uid, ordinal), or twice in the chunk, is a copy:
  // stored as a shadow, and it may give its primary the time the primary lacks.
  void mark_copies();
  // The chunk's payload packs, compressed by the reading thread or here with `compressor`.
  void write_packs(PackCompressor* compressor);
  // Events in emission order: per-session seq, parent_seq from native parent ids, a result
  // inherits its call's tool, two events at one position keep the first (and warn). An event
  // a replaced document had before keeps its seq.
  void write_events();
  // One row per model call; a repeated key keeps the record with the largest total.
  void write_usage();
  // One row per window a record reported; a record read again replaces its rows.
  void write_rate_limits();
  // Any new record of a session (usage-only chunks too) makes its digests stale.
  void mark_ingested();
  void write_warnings();
  void write_redactions();
  // A fork's start time and derived title come from its own records, not the ones it copied.
  void refresh_forks();

  const CommitStats& stats() const { return stats_; }
  // Sessions whose events this chunk may have stored out of time order (a record of another
  // file that happened earlier, a copy that gave its primary a time): for order_events_by_time.
  const std::set<std::string>& sessions_to_order() const { return to_order_; }

 private:
  std::string uid_of(const std::string& native_id) const { return prefix_ + native_id; }
  // The session a native session was forked from ("" when none), as the store knows it.
  const std::string& origin_of(const std::string& native_id);
  // The call id an alias stands for: a link event (lifecycle, uid = alias, with a call_id)
  // stored in the session, else "".
  std::string linked_call(const std::string& session_uid, const std::string& alias);
  // A link event just stored: the events that named its uid as their call id or parent take
  // the call and the link.
  void resolve_link(const std::string& session_uid, const std::string& alias,
                    const std::string& call_id, int64_t seq);
  // The origin's record just stored: a fork read earlier holds a visible copy of it, which
  // becomes a shadow (a reference to the origin's record).
  void demote_fork_copies(const std::string& origin_uid, const std::string& uid, int64_t ordinal);
  // A session just learnt to be a fork: its visible copies of the origin's records go.
  void demote_copies_of_origin(const std::string& fork, const std::string& origin);
  struct EventStatements;
  EventStatements event_statements();
  std::string tool_of(EventStatements& st, const std::string& uid, const EventRecord& e,
                      const std::string& call_id);
  bool insert_event(EventStatements& st, std::size_t i, const std::string& uid, int64_t seq,
                    const std::string& tool, const std::string& call_id);
  void bind_pack_slice(Statement& insert, std::size_t i) const;
  // The next seq of session `uid` in this chunk (`seqs`), read from the store the first time.
  int64_t& next_seq_of(EventStatements& st, std::map<std::string, int64_t>& seqs,
                       const std::string& uid);
  // The call event e belongs to: its call_id, or the call its link event names.
  std::string call_of(const std::string& uid, const EventRecord& e);
  // An event of session `uid` at `ts_ms`: the session is ordered by time when it came late.
  // `chunk_latest` is the latest time of the session in this chunk so far.
  void note_time(const std::string& uid, int64_t ts_ms, int64_t& chunk_latest);
  // The prior event that event i repeats (nullptr: a new one), counted as unchanged or replaced.
  PriorEvents::Prior* repeated_prior(std::size_t i, const std::string& uid,
                                     const std::string& tool);
  // After a replacement: counts what went, and digests of sessions whose earlier events changed
  // or went are not resumed from their saved states.
  void finish_replacement();

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
  std::map<std::string, std::string> origins_;      // forked_from, by native id
  std::map<std::string, std::vector<std::string>> forks_;  // fork uids, by origin uid
  std::map<std::string, int64_t> ended_before_;            // by uid, before this chunk
  std::set<std::string> to_order_, forks_changed_;         // by uid
  PriorEvents* prior_;
  std::map<std::string, std::string> unpacked_;  // this chunk's packs decompressed, by native id
  std::set<std::string> rewritten_;              // sessions with events replaced or removed
};

}  // namespace helix

// The Helix store: one SQLite file holding Tier 1 (sources, events, payload packs), the usage
// ledger (Tier 2: kept across eviction) and the session rows. Each ingested chunk and its
// cursor commit together (a sweep batches chunks).
#pragma once

#include "model/record_batch.hpp"
#include "model/rows.hpp"
#include "model/source_cursor.hpp"
#include "store/database.hpp"
#include "store/pending_search.hpp"

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace helix {

class SearchIndexWriter;

// A source that is not read, and why: quarantined (last_error) or orphaned (adapter).
struct SourceProblem {
  std::string path, adapter, reason;
  SourceState state = SourceState::active;
};

struct StoreStatus {
  int64_t sessions = 0, events = 0, sources = 0, tier1_bytes = 0, tier2_bytes = 0, file_bytes = 0,
          warnings = 0;
  std::vector<std::pair<std::string, int64_t>> sources_by_state;
  std::vector<SourceProblem> unread_sources;  // quarantined and orphaned, by path
};

// A write batch that is gone as a whole: its COMMIT failed, or SQLite rolled its transaction
// back after an error (a full disk, an I/O error). Every chunk and cursor it held is undone, so
// each source keeps its stored cursor from before the batch; what() is the cause.
class BatchLost : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The store stayed locked by another connection past the busy timeout (SQLITE_BUSY): nothing
// of the failed statement was written, and waiting again would wait as long.
class StoreLocked : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What one committed chunk added.
struct CommitStats {
  int64_t events_added = 0, events_skipped_as_copies = 0, usage_records = 0;
  // A document parsed whole again: its events that were there before, as they were (their seq
  // kept) or changed (seq kept too), and those it no longer has. events_added counts only new
  // ones.
  int64_t events_unchanged = 0, events_replaced = 0, events_removed = 0;
};

class Store {
 public:
  // Opens or creates the store file (its directory is created private to the user).
  explicit Store(const std::filesystem::path& db_file, bool read_only = false);
  ~Store();

  const std::filesystem::path& path() const { return db_.path(); }
  Database& database() { return db_; }

  std::optional<SourceCursor> find_source(const std::string& path);
  // The oldest cursor (lowest id) of the file with this device and inode.
  std::optional<SourceCursor> find_source_by_identity(uint64_t dev, uint64_t ino);
  std::vector<SourceCursor> all_sources();
  // The quarantined and orphaned sources, by path.
  std::vector<SourceProblem> unread_sources();
  // Sources claimed by an adapter that is not among `loaded` become orphaned (left unread), and
  // orphaned ones whose adapter is loaded again become active. Returns how many were orphaned.
  int64_t mark_orphans(const std::vector<std::string>& loaded);
  // Every cursor's summary in path order, one at a time (nothing is held): the caller must
  // not write to the store from `each`.
  void scan_sources(const std::function<void(const SourceSummary&)>& each);
  // Inserts or updates the cursor row outside of any chunk (claims, visits, state changes).
  void save_source(SourceCursor& cursor);

  // Stores one parsed chunk and the advanced cursor atomically. With `new_generation`, every
  // row the source produced before is deleted in the same transaction. `input_bytes` (what
  // the chunk read) counts towards the open batch's volume. In a batch, a failed chunk leaves
  // the batch's other chunks alone, or throws BatchLost when it took the batch with it.
  CommitStats commit_chunk(SourceCursor& cursor, const RecordBatch& batch, bool new_generation,
                           int64_t input_bytes = 0);

  // Batched writes, for a sweep: until end_batch, chunks (each in a savepoint) and cursor
  // updates share one transaction, committed once about `max_bytes` of input or `max_age`
  // has accumulated. Every cursor moves in the transaction holding its rows, so a crash or a
  // lost batch (BatchLost, from any write or commit) leaves each cursor with the rows it had:
  // what was lost is read again, nothing twice, provided the caller writes no more chunks of
  // a source whose chunks were lost (its cursor in memory is ahead of the stored one). From
  // the first batch on, the connection checkpoints the WAL every 8192 pages rather than every
  // thousand, and end_batch does not checkpoint: what follows (the digest pass) writes too,
  // and the WAL is folded in once, past 8192 pages or when the last connection closes.
  void begin_batch(int64_t max_bytes, std::chrono::milliseconds max_age);
  void commit_if_due();
  void end_batch();
  // How many batches this store has committed: a caller counting what it wrote can tell
  // written from committed (what a lost batch held never reached the file).
  int64_t batches_committed() const { return batches_committed_; }

  std::vector<SessionRow> sessions(const SessionFilter& filter);
  // The same sessions in the same order, one at a time: memory does not grow with the store.
  void for_each_session(const SessionFilter& filter,
                        const std::function<void(const SessionRow&)>& visit);
  std::optional<SessionRow> session(const std::string& uid);
  // The sessions an id a person or an agent typed names: the uid itself when it exists, else
  // every session whose uid ("claude:b95b…") or native id ("b95b…") starts with `id`, at most
  // `limit` of them in uid order.
  std::vector<SessionRow> sessions_by_id(std::string_view id, std::size_t limit);
  std::vector<EventRow> events(const std::string& uid, bool with_bodies);
  // The texts of some of a session's visible events, by seq (seqs without a text are absent);
  // each pack is decompressed once.
  std::map<int64_t, std::string> event_texts(const std::string& uid,
                                             const std::vector<int64_t>& seqs);
  // The session's visible events in seq order with their texts, one at a time: only the pack
  // of the current event is held decompressed, so memory does not grow with the session.
  void for_each_event(const std::string& uid, const EventFilter& filter,
                      const std::function<void(const EventView&)>& visit);
  StoreStatus status();

 private:
  CommitStats commit_alone(SourceCursor& cursor, const RecordBatch& batch, bool new_generation);
  CommitStats add_to_batch(SourceCursor& cursor, const RecordBatch& batch, bool new_generation);
  CommitStats write_chunk(SourceCursor& cursor, const RecordBatch& batch, bool new_generation);
  void write_source(SourceCursor& cursor);
  void commit_batch();
  // Closes the open batch after SQLite undid it or it cannot commit, search entries included.
  BatchLost lose_batch(const std::exception& cause);
  // From a catch block: rethrows, as BatchLost when SQLite undid the open batch with the write.
  [[noreturn]] void rethrow_failed_write(const std::exception& e);
  void index_pending_search();
  // (session uid, uid, ordinal) of events.
  using Keys = std::set<std::tuple<std::string, std::string, int64_t>>;
  static Keys repeated_events(const SourceCursor& cursor, const RecordBatch& batch);
  // A new generation's start: the source's rows go; their copies elsewhere take the place of
  // those not `coming_back` in the new rows.
  void delete_source_rows(int64_t source_id, const Keys& coming_back);
  void promote_shadows(const std::vector<std::tuple<std::string, std::string, int64_t>>& lost);
  void query_sessions(const SessionFilter& filter, const std::string& uid,
                      const std::function<void(const SessionRow&)>& visit);
  Database db_;
  std::unique_ptr<SearchIndexWriter> search_;  // commit_chunk's, prepared on first use
  std::vector<PendingSearch> pending_search_;  // events of the open batch, not yet indexed
  // Sessions of the open batch whose events may be out of time order: ordered before commit.
  std::set<std::string> pending_order_;
  void order_pending_sessions();
  std::unique_ptr<PackCompressor> compressor_;  // commit_chunk's, made on first use
  struct Batch {
    int64_t max_bytes = 0, bytes = 0;
    std::chrono::milliseconds max_age{0};
    std::chrono::steady_clock::time_point opened;
    std::unique_ptr<Transaction> tx;  // open while something is pending
  };
  int64_t batches_committed_ = 0;
  std::unique_ptr<Batch> batch_;  // a pointer, not an optional: clang 14 cannot default-construct
                                  // a nested struct with member initializers inside std::optional
};

// Tier 1 (raw cache: evictable) and Tier 2 (digests: durable) bytes as the disk sees them: the
// pages of each tier's tables, indexes and search-index shadow tables.
int64_t measured_tier1_bytes(Store& store);
int64_t measured_tier2_bytes(Store& store);

// The store file to use: from --store, else HELIX_STORE_DB, else [store] dir. Each takes the
// same thing: a directory (the store is <dir>/helix.db), or the store file itself when the path
// is an existing file or ends in ".db".
std::filesystem::path resolve_store_file(const std::string& store_option,
                                         const std::string& configured_dir);
// Which of the three settings is in effect and how its value was read, for `config`.
std::string describe_store_choice(const std::string& store_option,
                                  const std::string& configured_dir);

}  // namespace helix

// The Helix store's write side: source cursors and the one-transaction commit of a parsed
// chunk. The read side (listings, events, sizes) is store_query.cpp.
#include "store/store.hpp"

#include "base/clock.hpp"
#include "base/private_files.hpp"
#include "store/chunk_writer.hpp"
#include "store/event_order.hpp"
#include "store/prior_events.hpp"
#include "store/schema.hpp"
#include "store/search_index.hpp"
#include "store/session_counters.hpp"

#include <fmt/format.h>
#include <helix/helix_plugin.h>
#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

namespace helix {
namespace {

// A cursor's state as stored; a name this host does not know means the store was damaged.
SourceState stored_state(const std::string& name, const std::string& path) {
  if (auto state = parse_source_state(name)) return *state;
  throw std::runtime_error(
      fmt::format("source {} has the unknown state '{}' in the store", path, name));
}

SourceCursor read_cursor(const Statement& st) {
  SourceCursor c;
  c.id = st.integer(0);
  c.path = st.text(1);
  c.dev = static_cast<uint64_t>(st.integer(2));
  c.ino = static_cast<uint64_t>(st.integer(3));
  c.size = st.integer(4);
  c.mtime_ns = st.integer(5);
  c.compressed = st.integer(6) != 0;
  c.layout = static_cast<uint32_t>(st.integer(7));
  c.head_len = st.integer(8);
  c.head_hash = static_cast<uint64_t>(st.integer(9));
  c.offset = st.integer(10);
  c.tail_len = st.integer(11);
  c.tail_hash = static_cast<uint64_t>(st.integer(12));
  c.generation = st.integer(13);
  c.adapter = st.text(14);
  c.adapter_version = st.text(15);
  c.flavor = st.text(16);
  c.state = stored_state(st.text(17), c.path);
  c.adapter_state = st.blob(18);
  c.last_error = st.text(19);
  c.quarantine = st.text(20);
  return c;
}

constexpr const char* kCursorColumns =
    "id, path, dev, ino, size, mtime_ns, compressed, layout, head_len, head_hash, offset, "
    "tail_len, tail_hash, generation, adapter, adapter_version, flavor, state, adapter_state, "
    "last_error, quarantine";

// Empties a list however the scope ends: pending search entries are indexed in the
// transaction that holds their events, or gone with it (event ids are reused after a rollback).
template <class List>
struct ClearOnExit {
  List& list;
  ~ClearOnExit() { list.clear(); }
};

}  // namespace

Store::Store(const std::filesystem::path& db_file, bool read_only)
    : db_(
          [&] {
            if (!read_only) {
              // SQLite gives the -wal and -shm files the database file's mode: 0600 for all.
              make_private_dir(db_file.parent_path());
              make_private_file(db_file, /*create=*/true);
            } else if (!std::filesystem::exists(db_file)) {
              throw std::runtime_error(fmt::format(
                  "no store at {} yet; run 'helix-host sweep' first", db_file.string()));
            }
            return db_file;
          }(),
          read_only) {
  if (!read_only) {
    for (const char* suffix : {"-wal", "-shm", ".lock"})  // made before this helix-host, maybe
      make_private_file(db_file.string() + suffix);
    migrate(db_);
  } else {
    refuse_newer_schema(db_);
  }
}

Store::~Store() = default;

std::optional<SourceCursor> Store::find_source(const std::string& path) {
  static const std::string sql =
      fmt::format("SELECT {} FROM sources WHERE path = ?", kCursorColumns);
  auto st = db_.cached(sql);
  st->bind(1, path);
  if (!st->step()) return std::nullopt;
  return read_cursor(*st);
}

std::optional<SourceCursor> Store::find_source_by_identity(uint64_t dev, uint64_t ino) {
  static const std::string sql = fmt::format(
      "SELECT {} FROM sources WHERE dev = ? AND ino = ? ORDER BY id LIMIT 1", kCursorColumns);
  auto st = db_.cached(sql);
  st->bind(1, static_cast<int64_t>(dev)).bind(2, static_cast<int64_t>(ino));
  if (!st->step()) return std::nullopt;
  return read_cursor(*st);
}

std::vector<SourceCursor> Store::all_sources() {
  auto st = db_.prepare(fmt::format("SELECT {} FROM sources ORDER BY path", kCursorColumns));
  std::vector<SourceCursor> out;
  while (st.step()) out.push_back(read_cursor(st));
  return out;
}

void Store::scan_sources(const std::function<void(const SourceSummary&)>& each) {
  auto st = db_.prepare(
      "SELECT id, path, dev, ino, size, mtime_ns, compressed, head_len, head_hash, offset, state, "
      "COALESCE(adapter, ''), COALESCE(adapter_version, '') FROM sources ORDER BY path");
  SourceSummary s;  // one summary reused: its path keeps its capacity
  while (st.step()) {
    s.id = st.integer(0);
    s.path = st.text(1);
    s.dev = static_cast<uint64_t>(st.integer(2));
    s.ino = static_cast<uint64_t>(st.integer(3));
    s.size = st.integer(4);
    s.mtime_ns = st.integer(5);
    s.compressed = st.integer(6) != 0;
    s.head_len = st.integer(7);
    s.head_hash = static_cast<uint64_t>(st.integer(8));
    s.offset = st.integer(9);
    s.state = stored_state(st.text(10), s.path);
    s.adapter = st.text(11);
    s.adapter_version = st.text(12);
    each(s);
  }
}

int64_t Store::mark_orphans(const std::vector<std::string>& loaded) {
  // The names go in as one JSON array: no SQL text is built from them.
  boost::json::array list;
  for (const auto& n : loaded) list.emplace_back(n);
  const std::string names = boost::json::serialize(list);
  auto back = db_.prepare(
      "UPDATE sources SET state = 'active', updated_ms = ?2 WHERE state = 'orphaned' "
      "AND adapter IN (SELECT value FROM json_each(?1))");
  back.bind(1, names).bind(2, now_ms());
  back.run();
  auto gone = db_.prepare(
      "UPDATE sources SET state = 'orphaned', updated_ms = ?2 WHERE state = 'active' "
      "AND adapter IS NOT NULL AND adapter NOT IN (SELECT value FROM json_each(?1))");
  gone.bind(1, names).bind(2, now_ms());
  gone.run();
  return db_.changes();
}

void Store::save_source(SourceCursor& c) {
  try {
    write_source(c);
  } catch (const std::exception& e) {
    rethrow_failed_write(e);
  }
}

void Store::write_source(SourceCursor& c) {
  const int64_t now = now_ms();
  auto st = db_.cached(R"sql(
    INSERT INTO sources (id, path, dev, ino, size, mtime_ns, compressed, layout, head_len,
      head_hash, offset, tail_len, tail_hash, generation, adapter, adapter_version, flavor, state,
      adapter_state, last_error, first_seen_ms, updated_ms, quarantine)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19,
            ?20, ?21, ?21, ?22)
    ON CONFLICT (id) DO UPDATE SET path = ?2, dev = ?3, ino = ?4, size = ?5, mtime_ns = ?6,
      compressed = ?7, layout = ?8, head_len = ?9, head_hash = ?10, offset = ?11, tail_len = ?12,
      tail_hash = ?13, generation = ?14, adapter = ?15, adapter_version = ?16, flavor = ?17,
      state = ?18, adapter_state = ?19, last_error = ?20, updated_ms = ?21,
      quarantine = ?22)sql");
  if (c.id > 0)
    st->bind(1, c.id);
  else
    st->bind_null(1);
  st->bind(2, c.path)
      .bind(3, static_cast<int64_t>(c.dev))
      .bind(4, static_cast<int64_t>(c.ino))
      .bind(5, c.size)
      .bind(6, c.mtime_ns)
      .bind(7, static_cast<int64_t>(c.compressed))
      .bind(8, static_cast<int64_t>(c.layout))
      .bind(9, c.head_len)
      .bind(10, static_cast<int64_t>(c.head_hash))
      .bind(11, c.offset)
      .bind(12, c.tail_len)
      .bind(13, static_cast<int64_t>(c.tail_hash))
      .bind(14, c.generation)
      .bind_text_or_null(15, c.adapter)
      .bind_text_or_null(16, c.adapter_version)
      .bind_text_or_null(17, c.flavor)
      .bind(18, to_string(c.state))
      .bind_blob(19, c.adapter_state)
      .bind_text_or_null(20, c.last_error)
      .bind(21, now)
      .bind_text_or_null(22, c.quarantine);
  st->run();
  if (c.id == 0)
    c.id = db_.last_insert_rowid();
  else
    refresh_source_totals(db_, c.id);  // a new source has no sessions linked yet
}

// FTS5 writes its pending terms out as a new segment at every savepoint and release, so the
// texts of a batch are indexed once, just before it commits: one segment per transaction.
void Store::index_pending_search() {
  ClearOnExit<decltype(pending_search_)> clear{pending_search_};
  if (pending_search_.empty()) return;
  if (!search_) search_ = std::make_unique<SearchIndexWriter>(db_);  // prepared once
  for (const auto& p : pending_search_)
    search_->add(p.event_id, p.session_uid, p.kind, p.role, p.tool, p.text, p.shadow);
}

// A record of another file that happened earlier (a subagent's transcript, Grok's runtime
// events) is stored after the events it happened among: each such session is put back in time
// order once per batch, in the transaction that holds its new events.
void Store::order_pending_sessions() {
  ClearOnExit<decltype(pending_order_)> clear{pending_order_};
  for (const auto& session : pending_order_) order_events_by_time(db_, session);
}

// The events of `batch` with a uid, by (session uid, uid, ordinal).
Store::Keys Store::repeated_events(const SourceCursor& cursor, const RecordBatch& batch) {
  Keys keys;
  for (const auto& e : batch.events)
    if (!e.uid.empty())
      keys.emplace(cursor.flavor + ":" + e.session_id, e.uid, static_cast<int64_t>(e.ordinal));
  return keys;
}

void Store::delete_source_rows(int64_t source_id, const Keys& coming_back) {
  // Remember which primaries go, so that a shadow copy held by another file takes their place,
  // unless the chunk that replaces them has them again.
  std::vector<std::tuple<std::string, std::string, int64_t>> lost;
  auto primaries = db_.cached(
      "SELECT session_uid, uid, ordinal FROM events WHERE source_id = ? AND uid IS NOT NULL "
      "AND shadowed = 0");
  primaries->bind(1, source_id);
  while (primaries->step()) {
    auto key = std::make_tuple(primaries->text(0), primaries->text(1), primaries->integer(2));
    if (!coming_back.count(key)) lost.push_back(std::move(key));
  }
  std::set<std::string> usage_sessions;  // their usage sums are recomputed without these rows
  auto with_usage = db_.cached("SELECT DISTINCT session_uid FROM usage WHERE source_id = ?");
  with_usage->bind(1, source_id);
  while (with_usage->step()) usage_sessions.insert(with_usage->text(0));
  with_usage->reset();
  std::set<std::string> titled_sessions;  // their derived titles may come from these rows
  auto with_events = db_.cached("SELECT DISTINCT session_uid FROM events WHERE source_id = ?");
  with_events->bind(1, source_id);
  while (with_events->step()) titled_sessions.insert(with_events->text(0));
  with_events->reset();
  uncount_source_rows(db_, source_id);
  for (const char* sql :
       {"DELETE FROM events WHERE source_id = ?", "DELETE FROM usage WHERE source_id = ?",
        "DELETE FROM agent_costs WHERE source_id = ?",
        "DELETE FROM rate_limits WHERE source_id = ?",
        "DELETE FROM payload_packs WHERE source_id = ?", "DELETE FROM warnings WHERE source_id = ?",
        "DELETE FROM session_redactions WHERE source_id = ?"}) {
    auto st = db_.cached(sql);
    st->bind(1, source_id).run();
  }
  for (const auto& session : usage_sessions) refresh_usage_totals(db_, session);
  promote_shadows(lost);
  // A title derived from a prompt the rewrite took away goes with it: the one of what remains,
  // or none until the new rows' first prompt is indexed (which sets a missing title).
  for (const auto& session : titled_sessions) refresh_prompt_title(db_, session);
}

void Store::promote_shadows(
    const std::vector<std::tuple<std::string, std::string, int64_t>>& lost) {
  auto promote = db_.cached(R"sql(
    UPDATE events SET shadowed = 0,
      seq = (SELECT next_seq FROM sessions WHERE uid = ?1),
      parent_seq = (SELECT p.seq FROM events p WHERE p.session_uid = ?1 AND p.shadowed = 0
                    AND p.uid = events.parent_uid ORDER BY p.ordinal DESC LIMIT 1)
    WHERE id = (SELECT id FROM events WHERE session_uid = ?1 AND uid = ?2 AND ordinal = ?3
                AND shadowed = 1 ORDER BY id LIMIT 1))sql");
  // The promoted copy was counted in the session's bytes as a shadow; now it is visible too.
  auto bump = db_.cached(R"sql(
    UPDATE sessions SET next_seq = next_seq + 1, event_count = event_count + 1,
      user_msg_count = user_msg_count + (SELECT kind = 'user_msg' AND is_sidechain = 0
        FROM events WHERE session_uid = ?1 AND seq = sessions.next_seq),
      retry_count = retry_count + (SELECT kind = 'retry' FROM events
        WHERE session_uid = ?1 AND seq = sessions.next_seq)
    WHERE uid = ?1)sql");
  for (const auto& [session, uid, ordinal] : lost) {
    promote->bind(1, session).bind(2, uid).bind(3, ordinal).run();
    if (db_.changes() == 0) continue;
    bump->bind(1, session).run();
    pending_order_.insert(session);  // the promoted copy took the next seq: maybe not its place
  }
}

CommitStats Store::commit_chunk(SourceCursor& cursor, const RecordBatch& batch, bool new_generation,
                                int64_t input_bytes) {
  const int64_t id_before = cursor.id;
  try {
    if (!batch_) return commit_alone(cursor, batch, new_generation);
    CommitStats stats = add_to_batch(cursor, batch, new_generation);
    batch_->bytes += input_bytes;
    if (batch_->bytes >= batch_->max_bytes)
      commit_batch();
    else
      commit_if_due();
    return stats;
  } catch (...) {
    cursor.id = id_before;  // a new source's row was rolled back with the chunk
    throw;
  }
}

CommitStats Store::commit_alone(SourceCursor& cursor, const RecordBatch& batch,
                                bool new_generation) {
  Transaction tx(db_);
  ClearOnExit<decltype(pending_search_)> clear{pending_search_};
  ClearOnExit<decltype(pending_order_)> clear_order{pending_order_};
  CommitStats stats = write_chunk(cursor, batch, new_generation);
  order_pending_sessions();
  index_pending_search();
  tx.commit();
  return stats;
}

// The chunk goes into a savepoint of its own: when it fails, the batch's earlier chunks stay,
// unless SQLite undid the whole transaction (then BatchLost).
CommitStats Store::add_to_batch(SourceCursor& cursor, const RecordBatch& batch,
                                bool new_generation) {
  if (batch_->tx && !db_.in_transaction())  // a failed write of no chunk undid it
    throw lose_batch(std::runtime_error("SQLite rolled the transaction back after an error"));
  if (!batch_->tx) {
    batch_->tx = std::make_unique<Transaction>(db_);
    batch_->opened = std::chrono::steady_clock::now();
  }
  // Rows a new generation deletes leave the index by trigger: index them first, outside the
  // savepoint (so that a failed chunk cannot take earlier chunks' entries with it).
  if (new_generation) {
    try {
      index_pending_search();
    } catch (const std::exception& e) {
      throw lose_batch(e);  // some of the batch's events are indexed, some not: none may stay
    }
  }
  const std::size_t search_before = pending_search_.size();
  try {
    Savepoint chunk(db_);
    CommitStats stats = write_chunk(cursor, batch, new_generation);
    chunk.release();
    return stats;
  } catch (const std::exception& e) {
    pending_search_.resize(std::min(search_before, pending_search_.size()));
    rethrow_failed_write(e);
  }
}

BatchLost Store::lose_batch(const std::exception& cause) {
  batch_->tx.reset();  // rolls back what SQLite has not already
  batch_->bytes = 0;
  pending_search_.clear();
  pending_order_.clear();
  return BatchLost(cause.what());
}

void Store::rethrow_failed_write(const std::exception& e) {
  if (batch_ && batch_->tx && !db_.in_transaction()) throw lose_batch(e);
  throw;
}

void Store::begin_batch(int64_t max_bytes, std::chrono::milliseconds max_age) {
  if (batch_) return;
  batch_ = std::make_unique<Batch>();
  batch_->max_bytes = max_bytes;
  batch_->max_age = max_age;
  db_.exec("PRAGMA wal_autocheckpoint = 8192");  // 32 MiB of WAL between checkpoints
}

void Store::commit_if_due() {
  if (batch_ && batch_->tx && std::chrono::steady_clock::now() - batch_->opened >= batch_->max_age)
    commit_batch();
}

void Store::commit_batch() {
  auto tx = std::move(batch_->tx);  // closed whatever happens: a failed COMMIT rolls back
  batch_->bytes = 0;
  ClearOnExit<decltype(pending_search_)> clear{pending_search_};
  if (!tx) return;
  try {
    if (!db_.in_transaction())
      throw std::runtime_error("SQLite rolled the transaction back after an earlier error");
    order_pending_sessions();
    index_pending_search();
    tx->commit();
  } catch (const std::exception& e) {
    throw BatchLost(e.what());
  }
  ++batches_committed_;
}

void Store::end_batch() {
  if (!batch_) return;
  struct Close {
    Store& store;
    ~Close() { store.batch_.reset(); }
  } close{*this};
  commit_batch();
  // No checkpoint here: the digest pass writes next, and a checkpoint now and another after it
  // wrote each page both touch twice, with two more fsync pairs. The WAL is folded in once,
  // by SQLite when it passes wal_autocheckpoint (left at the batch's 8192 pages) or when the
  // last connection closes.
  compressor_.reset();  // its context and buffer are chunk-sized: not kept for what follows
}

CommitStats Store::write_chunk(SourceCursor& cursor, const RecordBatch& batch,
                               bool new_generation) {
  if (cursor.id == 0) save_source(cursor);  // a new source: its id keys every row below
  // A document parsed whole again keeps the seq of every event it repeats (ChunkWriter).
  std::optional<PriorEvents> prior;
  if (new_generation && cursor.layout == HELIX_LAYOUT_DOCUMENT)
    prior = PriorEvents::read(db_, cursor.id);
  if (new_generation)
    delete_source_rows(cursor.id, prior ? repeated_events(cursor, batch) : Keys{});
  if (!batch.packs && !compressor_) compressor_ = std::make_unique<PackCompressor>();
  ChunkWriter chunk(db_, cursor, batch, pending_search_, prior ? &*prior : nullptr);
  chunk.write_sessions();
  chunk.mark_copies();
  chunk.write_packs(compressor_.get());
  chunk.write_events();
  chunk.write_usage();
  chunk.write_rate_limits();
  chunk.mark_ingested();
  chunk.write_warnings();
  chunk.write_redactions();
  chunk.refresh_forks();
  pending_order_.insert(chunk.sessions_to_order().begin(), chunk.sessions_to_order().end());
  save_source(cursor);  // the cursor moves in the same savepoint as the rows it covers
  return chunk.stats();
}

namespace {

// The store setting in effect: --store, else HELIX_STORE_DB, else [store] dir, with its name.
std::pair<std::string, const char*> store_setting(const std::string& option,
                                                  const std::string& configured_dir) {
  if (!option.empty()) return {option, "--store"};
  if (const char* env = std::getenv("HELIX_STORE_DB"); env && *env) return {env, "HELIX_STORE_DB"};
  return {configured_dir, "[store] dir"};
}

// A directory (existing, or not named *.db) holds helix.db; anything else is the file itself.
bool names_the_file(const std::filesystem::path& p) {
  std::error_code ec;
  if (std::filesystem::is_directory(p, ec)) return false;
  return std::filesystem::exists(p, ec) || p.extension() == ".db";
}

}  // namespace

std::filesystem::path resolve_store_file(const std::string& store_option,
                                         const std::string& configured_dir) {
  const auto [value, from] = store_setting(store_option, configured_dir);
  const std::filesystem::path p(value);
  return names_the_file(p) ? p : p / "helix.db";
}

std::string describe_store_choice(const std::string& store_option,
                                  const std::string& configured_dir) {
  const auto [value, from] = store_setting(store_option, configured_dir);
  return names_the_file(value) ? fmt::format("{} {} names the store file itself", from, value)
                               : fmt::format("{} {} is the store's directory", from, value);
}

}  // namespace helix

// The Helix store's write side: source cursors and the one-transaction commit of a parsed
// chunk. The read side (listings, events, sizes) is store_query.cpp.
#include "store/store.hpp"

#include "base/clock.hpp"
#include "base/private_files.hpp"
#include "store/schema.hpp"
#include "store/search_index.hpp"
#include "store/session_counters.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>

namespace helix {
namespace {

// Applies the ABI's session merge rule to an in-memory record.
void merge(SessionRecord& into, const SessionRecord& from) {
  auto first = [](std::string& a, const std::string& b) {
    if (a.empty()) a = b;
  };
  auto latest = [](std::string& a, const std::string& b) {
    if (!b.empty()) a = b;
  };
  if (into.cwd.empty()) {  // the repo and domain were resolved from that cwd
    into.cwd = from.cwd;
    into.repo = from.repo;
    into.domain = from.domain;
  }
  first(into.parent_native_id, from.parent_native_id);
  latest(into.git_branch, from.git_branch);
  latest(into.model, from.model);
  latest(into.title, from.title);
  latest(into.agent_version, from.agent_version);
  auto widen = [](int64_t& lo, int64_t& hi, int64_t a, int64_t b) {
    if (a > 0 && (lo == 0 || a < lo)) lo = a;
    if (b > 0 && b > hi) hi = b;
  };
  widen(into.started_at_ms, into.ended_at_ms, from.started_at_ms, from.ended_at_ms);
}

void touch(SessionRecord& s, int64_t ts) {
  if (ts <= 0) return;
  if (s.started_at_ms == 0 || ts < s.started_at_ms) s.started_at_ms = ts;
  if (ts > s.ended_at_ms) s.ended_at_ms = ts;
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
  c.state = st.text(17);
  c.adapter_state = st.blob(18);
  c.last_error = st.text(19);
  return c;
}

constexpr const char* kCursorColumns =
    "id, path, dev, ino, size, mtime_ns, compressed, layout, head_len, head_hash, offset, "
    "tail_len, tail_hash, generation, adapter, adapter_version, flavor, state, adapter_state, "
    "last_error";

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
      "SELECT id, path, dev, ino, size, mtime_ns, compressed, head_len, head_hash, offset, state "
      "FROM sources ORDER BY path");
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
    s.state = st.text(10);
    each(s);
  }
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
      adapter_state, last_error, first_seen_ms, updated_ms)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19,
            ?20, ?21, ?21)
    ON CONFLICT (id) DO UPDATE SET path = ?2, dev = ?3, ino = ?4, size = ?5, mtime_ns = ?6,
      compressed = ?7, layout = ?8, head_len = ?9, head_hash = ?10, offset = ?11, tail_len = ?12,
      tail_hash = ?13, generation = ?14, adapter = ?15, adapter_version = ?16, flavor = ?17,
      state = ?18, adapter_state = ?19, last_error = ?20, updated_ms = ?21)sql");
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
      .bind(18, c.state)
      .bind_blob(19, c.adapter_state)
      .bind_text_or_null(20, c.last_error)
      .bind(21, now);
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
    search_->add(p.event_id, p.session_uid, p.kind, p.tool, p.text, p.shadow);
}

void Store::delete_source_rows(int64_t source_id) {
  // Remember which primaries go, so that a shadow copy held by another file takes their place.
  std::vector<std::tuple<std::string, std::string, int64_t>> lost;
  auto primaries = db_.cached(
      "SELECT session_uid, uid, ordinal FROM events WHERE source_id = ? AND uid IS NOT NULL "
      "AND shadowed = 0");
  primaries->bind(1, source_id);
  while (primaries->step())
    lost.emplace_back(primaries->text(0), primaries->text(1), primaries->integer(2));
  std::set<std::string> usage_sessions;  // their usage sums are recomputed without these rows
  auto with_usage = db_.cached("SELECT DISTINCT session_uid FROM usage WHERE source_id = ?");
  with_usage->bind(1, source_id);
  while (with_usage->step()) usage_sessions.insert(with_usage->text(0));
  with_usage->reset();
  uncount_source_rows(db_, source_id);
  for (const char* sql :
       {"DELETE FROM events WHERE source_id = ?", "DELETE FROM usage WHERE source_id = ?",
        "DELETE FROM payload_packs WHERE source_id = ?", "DELETE FROM warnings WHERE source_id = ?",
        "DELETE FROM session_redactions WHERE source_id = ?"}) {
    auto st = db_.cached(sql);
    st->bind(1, source_id).run();
  }
  for (const auto& session : usage_sessions) refresh_usage_totals(db_, session);
  promote_shadows(lost);
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
    if (db_.changes() > 0) bump->bind(1, session).run();
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
  CommitStats stats = write_chunk(cursor, batch, new_generation);
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
    index_pending_search();
    tx->commit();
  } catch (const std::exception& e) {
    throw BatchLost(e.what());
  }
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
  const int64_t now = now_ms();
  const std::string prefix = cursor.flavor + ":";
  CommitStats stats;
  if (cursor.id == 0) save_source(cursor);  // a new source: its id keys every row below
  if (new_generation) delete_source_rows(cursor.id);

  // Sessions: merge this chunk's knowledge in memory, then one upsert per session.
  std::map<std::string, SessionRecord> touched;
  for (const auto& s : batch.sessions) {
    auto& m = touched[s.native_id];
    m.native_id = s.native_id;
    merge(m, s);
  }
  for (const auto& e : batch.events) touch(touched[e.session_id], e.ts_ms);
  for (const auto& u : batch.usage) touch(touched[u.session_id], u.ts_ms);

  auto upsert = db_.cached(R"sql(
    INSERT INTO sessions (uid, flavor, native_id, parent_uid, repo, domain, cwd, git_branch,
      model, title, agent_version, started_at_ms, ended_at_ms, source_path, discovered_at_ms)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
    ON CONFLICT (uid) DO UPDATE SET
      parent_uid = COALESCE(parent_uid, excluded.parent_uid),
      cwd = COALESCE(cwd, excluded.cwd),
      repo = COALESCE(repo, excluded.repo),
      domain = COALESCE(domain, excluded.domain),
      git_branch = COALESCE(excluded.git_branch, git_branch),
      model = COALESCE(excluded.model, model),
      title = COALESCE(excluded.title, title),
      agent_version = COALESCE(excluded.agent_version, agent_version),
      started_at_ms = CASE WHEN started_at_ms IS NULL OR excluded.started_at_ms < started_at_ms
                           THEN COALESCE(excluded.started_at_ms, started_at_ms)
                           ELSE started_at_ms END,
      ended_at_ms = MAX(COALESCE(ended_at_ms, 0), COALESCE(excluded.ended_at_ms, 0)))sql");
  for (auto& [id, s] : touched) {
    upsert->bind(1, prefix + id)
        .bind(2, cursor.flavor)
        .bind(3, id)
        .bind_text_or_null(4, s.parent_native_id.empty() ? "" : prefix + s.parent_native_id)
        .bind_text_or_null(5, s.repo)
        .bind_text_or_null(6, s.domain)
        .bind_text_or_null(7, s.cwd)
        .bind_text_or_null(8, s.git_branch)
        .bind_text_or_null(9, s.model)
        .bind_text_or_null(10, s.title)
        .bind_text_or_null(11, s.agent_version);
    if (s.started_at_ms > 0)
      upsert->bind(12, s.started_at_ms);
    else
      upsert->bind_null(12);
    if (s.ended_at_ms > 0)
      upsert->bind(13, s.ended_at_ms);
    else
      upsert->bind_null(13);
    upsert->bind(14, cursor.path).bind(15, now);
    upsert->run();
  }

  // Events: a copy of a record already stored (same session, uid, ordinal) becomes a shadow.
  // Payloads and texts are packed per session, then events are inserted in emission order.
  auto exists = db_.cached(
      "SELECT 1 FROM events WHERE session_uid = ? AND uid = ? AND ordinal = ? AND shadowed = 0");
  auto fill_time = db_.cached(
      "UPDATE events SET ts_ms = ? WHERE session_uid = ? AND uid = ? AND ordinal = ? "
      "AND shadowed = 0 AND ts_ms IS NULL");
  std::set<std::tuple<std::string, std::string, uint32_t>> seen;
  std::vector<bool> shadow(batch.events.size(), false);
  for (std::size_t i = 0; i < batch.events.size(); ++i) {
    const auto& e = batch.events[i];
    if (e.uid.empty()) continue;
    auto key = std::make_tuple(e.session_id, e.uid, e.ordinal);
    exists->bind(1, prefix + e.session_id).bind(2, e.uid).bind(3, static_cast<int64_t>(e.ordinal));
    bool stored = exists->step();
    exists->reset();
    if (stored || !seen.insert(key).second) {
      shadow[i] = true;
      ++stats.events_skipped_as_copies;
      if (stored && e.ts_ms > 0)  // a copy may know the time its primary lacks
        fill_time->bind(1, e.ts_ms)
            .bind(2, prefix + e.session_id)
            .bind(3, e.uid)
            .bind(4, static_cast<int64_t>(e.ordinal))
            .run();
    }
  }

  // Packed by the parsing thread, or here for a batch that comes without its packs.
  std::optional<BatchPacks> packed_here;
  if (!batch.packs) {
    if (!compressor_) compressor_ = std::make_unique<PackCompressor>();
    packed_here = pack_batch(batch, *compressor_);
  }
  const BatchPacks& packs = batch.packs ? *batch.packs : *packed_here;
  const std::vector<PackSlice>& slices = packs.slices;
  std::map<std::string, int64_t> pack_ids;
  std::map<std::string, SessionRowCounts> counts;  // what the chunk's stored rows bring
  auto insert_pack = db_.cached(
      "INSERT INTO payload_packs (session_uid, source_id, raw_bytes, data) VALUES (?, ?, ?, ?)");
  for (const auto& [session_id, pack] : packs.by_session) {
    insert_pack->bind(1, prefix + session_id)
        .bind(2, cursor.id)
        .bind(3, pack.raw_bytes)
        .bind_blob(4, pack.frame);
    insert_pack->run();
    pack_ids[session_id] = db_.last_insert_rowid();
    counts[prefix + session_id].add_pack(static_cast<int64_t>(pack.frame.size()));
  }

  auto next_seq = db_.cached("SELECT next_seq FROM sessions WHERE uid = ?");
  auto parent = db_.cached(
      "SELECT seq FROM events WHERE session_uid = ? AND uid = ? AND shadowed = 0 "
      "ORDER BY ordinal DESC LIMIT 1");
  auto call_tool = db_.cached(
      "SELECT tool FROM events WHERE session_uid = ? AND call_id = ? AND tool IS NOT NULL "
      "LIMIT 1");
  auto insert_event = db_.cached(R"sql(
    INSERT INTO events (session_uid, seq, parent_seq, ts_ms, kind, role, tool, summary, uid,
      parent_uid, call_id, is_sidechain, model, source_id, generation, source_offset, ordinal,
      pack_id, payload_off, payload_len, text_off, text_len, shadowed)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19,
            ?20, ?21, ?22, ?23)
    ON CONFLICT (source_id, generation, source_offset, ordinal) DO NOTHING)sql");
  auto bad_position = db_.cached(R"sql(
    INSERT OR IGNORE INTO warnings (source_id, generation, source_offset, category, message,
      at_ms) VALUES (?, ?, ?, 'duplicate_event_position', ?, ?))sql");
  std::map<std::string, int64_t> seqs;
  for (std::size_t i = 0; i < batch.events.size(); ++i) {
    const auto& e = batch.events[i];
    const std::string uid = prefix + e.session_id;
    auto [seq_it, fresh] = seqs.try_emplace(uid, 0);
    if (fresh) {
      next_seq->bind(1, uid);
      next_seq->step();
      seq_it->second = next_seq->integer(0);
      next_seq->reset();
    }
    const int64_t seq = seq_it->second;
    insert_event->bind(1, uid);
    if (shadow[i])
      insert_event->bind_null(2);
    else
      insert_event->bind(2, seq);
    insert_event->bind_null(3);
    if (!e.parent_uid.empty() && !shadow[i]) {
      parent->bind(1, uid).bind(2, e.parent_uid);
      if (parent->step()) insert_event->bind(3, parent->integer(0));
      parent->reset();
    }
    if (e.ts_ms > 0)
      insert_event->bind(4, e.ts_ms);
    else
      insert_event->bind_null(4);
    std::string tool = e.tool;
    if (tool.empty() && !e.call_id.empty()) {
      call_tool->bind(1, uid).bind(2, e.call_id);
      if (call_tool->step()) tool = call_tool->text(0);
      call_tool->reset();
    }
    insert_event->bind(5, e.kind)
        .bind_text_or_null(6, e.role)
        .bind_text_or_null(7, tool)
        .bind_text_or_null(8, e.summary)
        .bind_text_or_null(9, e.uid)
        .bind_text_or_null(10, e.parent_uid)
        .bind_text_or_null(11, e.call_id)
        .bind(12, static_cast<int64_t>((e.flags & 1u) != 0))
        .bind_text_or_null(13, e.model)
        .bind(14, cursor.id)
        .bind(15, cursor.generation)
        .bind(16, static_cast<int64_t>(e.source_offset))
        .bind(17, static_cast<int64_t>(e.ordinal));
    const auto& slice = slices[i];
    auto pack = pack_ids.find(e.session_id);
    if (pack != pack_ids.end())
      insert_event->bind(18, pack->second);
    else
      insert_event->bind_null(18);
    for (int col = 19; col <= 22; ++col) insert_event->bind_null(col);
    if (slice.payload_off >= 0)
      insert_event->bind(19, slice.payload_off).bind(20, slice.payload_len);
    if (slice.text_off >= 0) insert_event->bind(21, slice.text_off).bind(22, slice.text_len);
    insert_event->bind(23, static_cast<int64_t>(shadow[i]));
    insert_event->run();
    if (db_.changes() == 0) {  // an adapter bug: two events claim one position; keep the first
      bad_position->bind(1, cursor.id)
          .bind(2, cursor.generation)
          .bind(3, static_cast<int64_t>(e.source_offset))
          .bind(4, fmt::format("adapter emitted a second event at offset {} ordinal {}; dropped",
                               e.source_offset, e.ordinal))
          .bind(5, now)
          .run();
      continue;
    }
    counts[uid].add_event(e.kind, (e.flags & 1u) != 0, shadow[i], e.summary, e.uid);
    if (is_searchable_kind(e.kind) && (!e.text.empty() || !tool.empty()))
      pending_search_.push_back({db_.last_insert_rowid(), uid, e.kind, tool, e.text, shadow[i]});
    if (shadow[i]) continue;
    ++seq_it->second;
    ++stats.events_added;
  }
  auto set_seq = db_.cached("UPDATE sessions SET next_seq = ?, ingested_at_ms = ? WHERE uid = ?");
  for (const auto& [uid, seq] : seqs) set_seq->bind(1, seq).bind(2, now).bind(3, uid).run();
  count_chunk_rows(db_, counts, cursor.id);

  // Usage: one row per model call; a repeated key keeps the record with the largest total.
  auto usage = db_.cached(R"sql(
    INSERT INTO usage (key, session_uid, source_id, is_sidechain, ts_ms, model, input_tokens,
      output_tokens, cache_read_tokens, cache_creation_tokens, reasoning_tokens, cost_usd,
      source_offset)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
    ON CONFLICT (key) DO UPDATE SET source_id = excluded.source_id, ts_ms = excluded.ts_ms,
      source_offset = excluded.source_offset,
      model = COALESCE(excluded.model, model), input_tokens = excluded.input_tokens,
      output_tokens = excluded.output_tokens, cache_read_tokens = excluded.cache_read_tokens,
      cache_creation_tokens = excluded.cache_creation_tokens,
      reasoning_tokens = excluded.reasoning_tokens, cost_usd = excluded.cost_usd
    WHERE excluded.input_tokens + excluded.output_tokens + excluded.cache_read_tokens +
          excluded.cache_creation_tokens >
          input_tokens + output_tokens + cache_read_tokens + cache_creation_tokens
    RETURNING session_uid)sql");
  // The row a key already has, if any: a replaced row's tokens are taken off the session's sums
  // (a stored row keeps its first session, which RETURNING names).
  auto stored_usage = db_.cached(
      "SELECT input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens, "
      "reasoning_tokens, cost_usd IS NOT NULL FROM usage WHERE key = ?");
  std::map<std::string, SessionUsageCounts> usage_counts;
  for (std::size_t i = 0; i < batch.usage.size(); ++i) {
    const auto& u = batch.usage[i];
    std::string key = u.key.empty() ? fmt::format("@{}:{}:{}:{}", cursor.id, cursor.generation,
                                                  u.source_offset, i)
                                    : prefix + u.key;
    usage->bind(1, key)
        .bind(2, prefix + u.session_id)
        .bind(3, cursor.id)
        .bind(4, static_cast<int64_t>((u.flags & 1u) != 0));
    if (u.ts_ms > 0)
      usage->bind(5, u.ts_ms);
    else
      usage->bind_null(5);
    usage->bind_text_or_null(6, u.model)
        .bind(7, u.input_tokens)
        .bind(8, u.output_tokens)
        .bind(9, u.cache_read_tokens)
        .bind(10, u.cache_creation_tokens)
        .bind(11, u.reasoning_tokens);
    if (u.cost_usd >= 0)
      usage->bind(12, u.cost_usd);
    else
      usage->bind_null(12);
    usage->bind(13, static_cast<int64_t>(u.source_offset));
    SessionUsageCounts old;  // what the replaced row held, if the key has one
    stored_usage->bind(1, key);
    if (stored_usage->step()) {
      old = {stored_usage->integer(0), stored_usage->integer(1), stored_usage->integer(2),
             stored_usage->integer(3), stored_usage->integer(4), stored_usage->integer(5) != 0};
    }
    stored_usage->reset();
    if (usage->step()) {  // no row: the stored one stays
      auto& c = usage_counts[usage->text(0)];
      c.recompute |= old.recompute || u.cost_usd >= 0;  // a cost was or is there
      c.input += u.input_tokens - old.input;
      c.output += u.output_tokens - old.output;
      c.cache_read += u.cache_read_tokens - old.cache_read;
      c.cache_creation += u.cache_creation_tokens - old.cache_creation;
      c.reasoning += u.reasoning_tokens - old.reasoning;
    }
    usage->reset();
    ++stats.usage_records;
  }
  count_chunk_usage(db_, usage_counts);
  // Any new record of a session (usage-only chunks too) makes its digests stale.
  auto ingested = db_.cached("UPDATE sessions SET ingested_at_ms = ? WHERE uid = ?");
  for (const auto& [id, s] : touched) ingested->bind(1, now).bind(2, prefix + id).run();

  auto warn = db_.cached(R"sql(
    INSERT OR IGNORE INTO warnings (source_id, generation, source_offset, category, message,
      at_ms) VALUES (?, ?, ?, ?, ?, ?))sql");
  for (const auto& w : batch.warnings) {
    warn->bind(1, cursor.id)
        .bind(2, cursor.generation)
        .bind(3, static_cast<int64_t>(w.source_offset))
        .bind(4, w.category)
        .bind(5, w.message)
        .bind(6, now);
    warn->run();
  }

  auto redactions = db_.cached(R"sql(
    INSERT INTO session_redactions (session_uid, source_id, count) VALUES (?, ?, ?)
    ON CONFLICT (session_uid, source_id) DO UPDATE SET count = count + excluded.count)sql");
  for (const auto& [session_id, n] : batch.redactions)
    redactions->bind(1, prefix + session_id).bind(2, cursor.id).bind(3, n).run();

  save_source(cursor);
  return stats;
}

std::filesystem::path resolve_store_file(const std::string& store_dir_option,
                                         const std::string& configured_dir) {
  if (!store_dir_option.empty()) return std::filesystem::path(store_dir_option) / "helix.db";
  if (const char* env = std::getenv("HELIX_STORE_DB"); env && *env) return env;
  return std::filesystem::path(configured_dir) / "helix.db";
}

}  // namespace helix
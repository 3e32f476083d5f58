#include "store/chunk_writer.hpp"

#include "base/clock.hpp"
#include "store/event_order.hpp"
#include "store/search_index.hpp"

#include <fmt/format.h>
#include <helix/helix_plugin.h>
#include <algorithm>
#include <set>
#include <tuple>

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
  first(into.forked_from_native_id, from.forked_from_native_id);
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

bool is_call_or_result(std::string_view kind) {
  return kind == "tool_call" || kind == "edit" || kind == "test_run" || kind == "tool_result" ||
         kind == "error";
}

void touch(SessionRecord& s, int64_t ts) {
  if (ts <= 0) return;
  if (s.started_at_ms == 0 || ts < s.started_at_ms) s.started_at_ms = ts;
  if (ts > s.ended_at_ms) s.ended_at_ms = ts;
}

// A model call's usage row, bound by name; a missing time or cost is NULL.
void bind_usage_row(Statement& st, const std::string& key, const std::string& session_uid,
                    int64_t source_id, const UsageRecord& u) {
  st.bind(":key", key)
      .bind(":session_uid", session_uid)
      .bind(":source_id", source_id)
      .bind(":is_sidechain", static_cast<int64_t>((u.flags & HELIX_EVENT_SIDECHAIN) != 0));
  if (u.ts_ms > 0)
    st.bind(":ts_ms", u.ts_ms);
  else
    st.bind_null(":ts_ms");
  st.bind_text_or_null(":model", u.model)
      .bind(":input_tokens", u.input_tokens)
      .bind(":output_tokens", u.output_tokens)
      .bind(":cache_read_tokens", u.cache_read_tokens)
      .bind(":cache_creation_tokens", u.cache_creation_tokens)
      .bind(":reasoning_tokens", u.reasoning_tokens);
  if (u.cost_usd >= 0)
    st.bind(":cost_usd", u.cost_usd);
  else
    st.bind_null(":cost_usd");
  st.bind(":source_offset", static_cast<int64_t>(u.source_offset))
      .bind(":cache_creation_1h_tokens", u.cache_creation_1h_tokens);
}

}  // namespace

ChunkWriter::ChunkWriter(Database& db, const SourceCursor& cursor, const RecordBatch& batch,
                         std::vector<PendingSearch>& search, PriorEvents* prior)
    : db_(db),
      cursor_(cursor),
      batch_(batch),
      search_(search),
      prefix_(cursor.flavor + ":"),
      now_(now_ms()),
      prior_(prior) {}

void ChunkWriter::write_sessions() {
  for (const auto& s : batch_.sessions) {
    auto& m = touched_[s.native_id];
    m.native_id = s.native_id;
    merge(m, s);
  }
  for (const auto& e : batch_.events) touch(touched_[e.session_id], e.ts_ms);
  for (const auto& u : batch_.usage) touch(touched_[u.session_id], u.ts_ms);

  // The latest time stored before this chunk: an event stamped earlier may belong before others.
  // A session the store did not know as a fork until now has its copies turned into references.
  std::vector<std::pair<std::string, std::string>> new_forks;  // fork uid, origin uid
  auto known = db_.cached("SELECT ended_at_ms, forked_from FROM sessions WHERE uid = ?");
  for (const auto& [id, s] : touched_) {
    known->bind(1, prefix_ + id);
    const bool stored = known->step();
    if (stored && !known->is_null(0)) ended_before_[prefix_ + id] = known->integer(0);
    if (stored && known->is_null(1) && !s.forked_from_native_id.empty())
      new_forks.emplace_back(prefix_ + id, prefix_ + s.forked_from_native_id);
    known->reset();
  }

  auto upsert = db_.cached(R"sql(
    INSERT INTO sessions (uid, flavor, native_id, parent_uid, forked_from, repo, domain, cwd,
      git_branch, model, title, agent_version, started_at_ms, ended_at_ms, source_path,
      discovered_at_ms)
    VALUES (:uid, :flavor, :native_id, :parent_uid, :forked_from, :repo, :domain, :cwd,
            :git_branch, :model, :title, :agent_version, :started_at_ms, :ended_at_ms,
            :source_path, :now)
    ON CONFLICT (uid) DO UPDATE SET
      parent_uid = COALESCE(parent_uid, excluded.parent_uid),
      forked_from = COALESCE(forked_from, excluded.forked_from),
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
  for (auto& [id, s] : touched_) {
    upsert->bind(":uid", prefix_ + id)
        .bind(":flavor", cursor_.flavor)
        .bind(":native_id", id)
        .bind_text_or_null(":parent_uid",
                           s.parent_native_id.empty() ? "" : prefix_ + s.parent_native_id)
        .bind_text_or_null(":forked_from",
                           s.forked_from_native_id.empty() ? "" : prefix_ + s.forked_from_native_id)
        .bind_text_or_null(":repo", s.repo)
        .bind_text_or_null(":domain", s.domain)
        .bind_text_or_null(":cwd", s.cwd)
        .bind_text_or_null(":git_branch", s.git_branch)
        .bind_text_or_null(":model", s.model)
        .bind_text_or_null(":title", s.title)
        .bind_text_or_null(":agent_version", s.agent_version);
    if (s.started_at_ms > 0)
      upsert->bind(":started_at_ms", s.started_at_ms);
    else
      upsert->bind_null(":started_at_ms");
    if (s.ended_at_ms > 0)
      upsert->bind(":ended_at_ms", s.ended_at_ms);
    else
      upsert->bind_null(":ended_at_ms");
    upsert->bind(":source_path", cursor_.path).bind(":now", now_);
    upsert->run();
  }
  for (const auto& [fork, origin] : new_forks) demote_copies_of_origin(fork, origin);
}

void ChunkWriter::demote_copies_of_origin(const std::string& fork, const std::string& origin) {
  auto copies = db_.cached(R"sql(
    SELECT f.uid, f.ordinal FROM events f
    WHERE f.session_uid = ?1 AND f.shadowed = 0 AND f.uid IS NOT NULL
      AND EXISTS (SELECT 1 FROM events o WHERE o.session_uid = ?2 AND o.uid = f.uid
                  AND o.ordinal = f.ordinal AND o.shadowed = 0))sql");
  copies->bind(1, fork).bind(2, origin);
  std::vector<std::pair<std::string, int64_t>> found;
  while (copies->step()) found.emplace_back(copies->text(0), copies->integer(1));
  copies->reset();
  for (const auto& [uid, ordinal] : found) demote_fork_copies(origin, uid, ordinal);
  forks_changed_.insert(fork);
}

const std::string& ChunkWriter::origin_of(const std::string& native_id) {
  auto [it, fresh] = origins_.try_emplace(native_id);
  if (fresh) {
    auto st = db_.cached("SELECT forked_from FROM sessions WHERE uid = ?");
    st->bind(1, uid_of(native_id));
    if (st->step()) it->second = st->text(0);
  }
  return it->second;
}

void ChunkWriter::mark_copies() {
  auto exists = db_.cached(
      "SELECT 1 FROM events WHERE session_uid = ? AND uid = ? AND ordinal = ? AND shadowed = 0");
  auto fill_time = db_.cached(
      "UPDATE events SET ts_ms = ? WHERE session_uid = ? AND uid = ? AND ordinal = ? "
      "AND shadowed = 0 AND ts_ms IS NULL");
  auto stored_in = [&](const std::string& session_uid, const EventRecord& e) {
    exists->bind(1, session_uid).bind(2, e.uid).bind(3, static_cast<int64_t>(e.ordinal));
    const bool found = exists->step();
    exists->reset();
    return found;
  };
  std::set<std::tuple<std::string, std::string, uint32_t>> seen;
  shadow_.assign(batch_.events.size(), false);
  for (std::size_t i = 0; i < batch_.events.size(); ++i) {
    const auto& e = batch_.events[i];
    if (e.uid.empty()) continue;
    auto key = std::make_tuple(e.session_id, e.uid, e.ordinal);
    const bool stored = stored_in(uid_of(e.session_id), e);
    // A fork's copy of its origin's record refers to the origin's: it is not an event of its own.
    const std::string& origin = origin_of(e.session_id);
    const bool in_origin = !stored && !origin.empty() && stored_in(origin, e);
    if (stored || in_origin || !seen.insert(key).second) {
      shadow_[i] = true;
      ++stats_.events_skipped_as_copies;
      if (stored && e.ts_ms > 0) {  // a copy may know the time its primary lacks
        fill_time->bind(1, e.ts_ms)
            .bind(2, uid_of(e.session_id))
            .bind(3, e.uid)
            .bind(4, static_cast<int64_t>(e.ordinal))
            .run();
        if (db_.changes() > 0) to_order_.insert(uid_of(e.session_id));
      }
    }
  }
}

std::string ChunkWriter::linked_call(const std::string& session_uid, const std::string& alias) {
  auto st = db_.cached(
      "SELECT call_id FROM events WHERE session_uid = ? AND uid = ? AND kind = 'lifecycle' "
      "AND shadowed = 0 AND call_id IS NOT NULL LIMIT 1");
  st->bind(1, session_uid).bind(2, alias);
  return st->step() ? st->text(0) : std::string();
}

void ChunkWriter::resolve_link(const std::string& session_uid, const std::string& alias,
                               const std::string& call_id, int64_t seq) {
  auto calls = db_.cached("UPDATE events SET call_id = ? WHERE session_uid = ? AND call_id = ?");
  calls->bind(1, call_id).bind(2, session_uid).bind(3, alias).run();
  auto parents = db_.cached(
      "UPDATE events SET parent_seq = ? WHERE session_uid = ? AND parent_uid = ? "
      "AND parent_seq IS NULL AND shadowed = 0 AND seq <> ?");
  parents->bind(1, seq).bind(2, session_uid).bind(3, alias).bind(4, seq).run();
}

void ChunkWriter::demote_fork_copies(const std::string& origin_uid, const std::string& uid,
                                     int64_t ordinal) {
  auto [it, fresh] = forks_.try_emplace(origin_uid);
  if (fresh) {
    auto st = db_.cached("SELECT uid FROM sessions WHERE forked_from = ?");
    st->bind(1, origin_uid);
    while (st->step()) it->second.push_back(st->text(0));
  }
  if (it->second.empty()) return;
  auto copy = db_.cached(
      "SELECT id, kind = 'user_msg' AND is_sidechain = 0, kind = 'retry' FROM events "
      "WHERE session_uid = ? AND uid = ? AND ordinal = ? AND shadowed = 0");
  auto demote = db_.cached(
      "UPDATE events SET shadowed = 1, seq = NULL, parent_seq = NULL "
      "WHERE id = ?");
  auto uncount = db_.cached(R"sql(
    UPDATE sessions SET event_count = event_count - 1, user_msg_count = user_msg_count - ?,
      retry_count = retry_count - ?, ingested_at_ms = ? WHERE uid = ?)sql");
  for (const auto& fork : it->second) {
    copy->bind(1, fork).bind(2, uid).bind(3, ordinal);
    if (!copy->step()) {
      copy->reset();
      continue;
    }
    const int64_t id = copy->integer(0), user_msg = copy->integer(1), retry = copy->integer(2);
    copy->reset();
    demote->bind(1, id).run();
    uncount->bind(1, user_msg).bind(2, retry).bind(3, now_).bind(4, fork).run();
    forks_changed_.insert(fork);
  }
}

void ChunkWriter::write_packs(PackCompressor* compressor) {
  if (!batch_.packs) packed_here_ = pack_batch(batch_, *compressor);
  packs_ = batch_.packs ? &*batch_.packs : &*packed_here_;
  auto insert_pack = db_.cached(
      "INSERT INTO payload_packs (session_uid, source_id, raw_bytes, data) VALUES (?, ?, ?, ?)");
  for (const auto& [session_id, pack] : packs_->by_session) {
    insert_pack->bind(1, prefix_ + session_id)
        .bind(2, cursor_.id)
        .bind(3, pack.raw_bytes)
        .bind_blob(4, pack.frame);
    insert_pack->run();
    pack_ids_[session_id] = db_.last_insert_rowid();
    counts_[prefix_ + session_id].add_pack(static_cast<int64_t>(pack.frame.size()));
  }
}

// The statements write_events uses for every event, leased once per chunk.
struct ChunkWriter::EventStatements {
  StatementLease next_seq, parent, call_tool, insert, bad_position;
};

ChunkWriter::EventStatements ChunkWriter::event_statements() {
  return {db_.cached("SELECT next_seq FROM sessions WHERE uid = ?"),
          db_.cached("SELECT seq FROM events WHERE session_uid = ? AND uid = ? AND shadowed = 0 "
                     "ORDER BY ordinal DESC LIMIT 1"),
          db_.cached(
              "SELECT tool FROM events WHERE session_uid = ? AND call_id = ? AND tool IS NOT NULL "
              "LIMIT 1"),
          db_.cached(R"sql(
    INSERT INTO events (session_uid, seq, parent_seq, ts_ms, kind, role, tool, summary, uid,
      parent_uid, call_id, is_sidechain, model, source_id, generation, source_offset, ordinal,
      pack_id, payload_off, payload_len, text_off, text_len, shadowed)
    VALUES (:session_uid, :seq, :parent_seq, :ts_ms, :kind, :role, :tool, :summary, :uid,
      :parent_uid, :call_id, :is_sidechain, :model, :source_id, :generation, :source_offset,
      :ordinal, :pack_id, :payload_off, :payload_len, :text_off, :text_len, :shadowed)
    ON CONFLICT (source_id, generation, source_offset, ordinal) DO NOTHING)sql"),
          db_.cached(R"sql(
    INSERT OR IGNORE INTO warnings (source_id, generation, source_offset, category, message,
      at_ms) VALUES (?, ?, ?, 'duplicate_event_position', ?, ?))sql")};
}

void ChunkWriter::write_events() {
  EventStatements st = event_statements();
  std::map<std::string, int64_t> seqs;          // the next seq of each session the chunk writes to
  std::map<std::string, int64_t> chunk_latest;  // the latest time of the chunk so far, by uid
  for (std::size_t i = 0; i < batch_.events.size(); ++i) {
    const auto& e = batch_.events[i];
    const std::string uid = prefix_ + e.session_id;
    int64_t& next_seq = next_seq_of(st, seqs, uid);
    const std::string call_id = call_of(uid, e);
    const std::string tool = tool_of(st, uid, e, call_id);
    const PriorEvents::Prior* prior = repeated_prior(i, uid, tool);
    const int64_t seq = prior ? prior->seq : next_seq;
    if (!insert_event(st, i, uid, seq, tool, call_id)) continue;
    counts_[uid].add_event(e.kind, (e.flags & HELIX_EVENT_SIDECHAIN) != 0, shadow_[i], e.summary,
                           e.uid);
    if (is_searchable(e.kind, e.role, tool, e.text))
      search_.push_back({db_.last_insert_rowid(), uid, e.kind, e.role, tool, e.text, shadow_[i]});
    if (shadow_[i]) continue;
    if (e.kind == "lifecycle" && !e.uid.empty() && !call_id.empty())
      resolve_link(uid, e.uid, call_id, seq);
    if (!e.uid.empty()) demote_fork_copies(uid, e.uid, e.ordinal);
    note_time(uid, e.ts_ms, chunk_latest[uid]);
    if (prior) continue;
    ++next_seq;
    ++stats_.events_added;
    // A new event of a replaced document may sit between kept ones: its place comes from the
    // session's order, not from its number.
    if (prior_) to_order_.insert(uid);
  }
  auto set_seq = db_.cached("UPDATE sessions SET next_seq = ?, ingested_at_ms = ? WHERE uid = ?");
  for (const auto& [uid, seq] : seqs) set_seq->bind(1, seq).bind(2, now_).bind(3, uid).run();
  count_chunk_rows(db_, counts_, cursor_.id);
  if (prior_) finish_replacement();
}

int64_t& ChunkWriter::next_seq_of(EventStatements& st, std::map<std::string, int64_t>& seqs,
                                  const std::string& uid) {
  auto [it, fresh] = seqs.try_emplace(uid, 0);
  if (fresh) {
    st.next_seq->bind(1, uid);
    st.next_seq->step();
    it->second = st.next_seq->integer(0);
    st.next_seq->reset();
  }
  return it->second;
}

// A subagent's event may name the link to its launching call instead of the call.
std::string ChunkWriter::call_of(const std::string& uid, const EventRecord& e) {
  if (!e.call_id.empty() && !is_call_or_result(e.kind))
    if (std::string linked = linked_call(uid, e.call_id); !linked.empty()) return linked;
  return e.call_id;
}

// Stamped before what the session held, or further back than a burst of its own file:
// order_events_by_time may place it elsewhere.
void ChunkWriter::note_time(const std::string& uid, int64_t ts_ms, int64_t& chunk_latest) {
  if (auto before = ended_before_.find(uid);
      (before != ended_before_.end() && ts_ms > 0 && ts_ms < before->second) ||
      (ts_ms > 0 && ts_ms < chunk_latest - kBurstMs))
    to_order_.insert(uid);
  chunk_latest = std::max(chunk_latest, ts_ms);
}

PriorEvents::Prior* ChunkWriter::repeated_prior(std::size_t i, const std::string& uid,
                                                const std::string& tool) {
  if (!prior_) return nullptr;
  const auto& e = batch_.events[i];
  PriorEvents::Prior* prior = prior_->claim(PriorEvents::key_of(uid, e));
  if (!prior || shadow_[i]) return nullptr;  // a copy takes no seq
  const auto unpacked = unpacked_.try_emplace(e.session_id);
  std::string& raw = unpacked.first->second;
  if (unpacked.second)
    if (auto pack = packs_->by_session.find(e.session_id); pack != packs_->by_session.end())
      raw = unpack_payload(pack->second.frame);
  const PackSlice& at = packs_->slices[i];
  auto part = [&raw](int64_t off, int64_t len) {
    return off < 0 ? std::string_view()
                   : std::string_view(raw).substr(static_cast<std::size_t>(off),
                                                  static_cast<std::size_t>(len));
  };
  if (event_fingerprint(e, tool, part(at.text_off, at.text_len),
                        part(at.payload_off, at.payload_len)) == prior->fingerprint) {
    ++stats_.events_unchanged;
  } else {
    ++stats_.events_replaced;
    rewritten_.insert(uid);
  }
  return prior;
}

void ChunkWriter::finish_replacement() {
  for (const auto& [uid, n] : prior_->unclaimed()) {
    stats_.events_removed += n;
    rewritten_.insert(uid);
  }
  auto forget = db_.cached("UPDATE digests SET covered_seq = NULL WHERE session_uid = ?");
  for (const auto& uid : rewritten_) forget->bind(1, uid).run();
}

// A result names no tool: it inherits the tool of its call (a subagent's event carrying its
// call's id does not).
std::string ChunkWriter::tool_of(EventStatements& st, const std::string& uid, const EventRecord& e,
                                 const std::string& call_id) {
  const bool result = e.kind == "tool_result" || e.kind == "error";
  if (!e.tool.empty() || call_id.empty() || !result) return e.tool;
  std::string tool;
  st.call_tool->bind(1, uid).bind(2, call_id);
  if (st.call_tool->step()) tool = st.call_tool->text(0);
  st.call_tool->reset();
  return tool;
}

// Inserts event i at `seq` (a shadow has none); false when an event already holds its
// position, which is an adapter bug: the first stays and the second becomes a warning.
bool ChunkWriter::insert_event(EventStatements& st, std::size_t i, const std::string& uid,
                               int64_t seq, const std::string& tool, const std::string& call_id) {
  const auto& e = batch_.events[i];
  Statement& insert = *st.insert;
  insert.bind(":session_uid", uid);
  if (shadow_[i])
    insert.bind_null(":seq");
  else
    insert.bind(":seq", seq);
  insert.bind_null(":parent_seq");
  if (!e.parent_uid.empty() && !shadow_[i]) {
    st.parent->bind(1, uid).bind(2, e.parent_uid);
    if (st.parent->step()) insert.bind(":parent_seq", st.parent->integer(0));
    st.parent->reset();
  }
  if (e.ts_ms > 0)
    insert.bind(":ts_ms", e.ts_ms);
  else
    insert.bind_null(":ts_ms");
  insert.bind(":kind", e.kind)
      .bind_text_or_null(":role", e.role)
      .bind_text_or_null(":tool", tool)
      .bind_text_or_null(":summary", e.summary)
      .bind_text_or_null(":uid", e.uid)
      .bind_text_or_null(":parent_uid", e.parent_uid)
      .bind_text_or_null(":call_id", call_id)
      .bind(":is_sidechain", static_cast<int64_t>((e.flags & HELIX_EVENT_SIDECHAIN) != 0))
      .bind_text_or_null(":model", e.model)
      .bind(":source_id", cursor_.id)
      .bind(":generation", cursor_.generation)
      .bind(":source_offset", static_cast<int64_t>(e.source_offset))
      .bind(":ordinal", static_cast<int64_t>(e.ordinal));
  bind_pack_slice(insert, i);
  insert.bind(":shadowed", static_cast<int64_t>(shadow_[i]));
  insert.run();
  if (db_.changes() > 0) return true;
  st.bad_position->bind(1, cursor_.id)
      .bind(2, cursor_.generation)
      .bind(3, static_cast<int64_t>(e.source_offset))
      .bind(4, fmt::format("adapter emitted a second event at offset {} ordinal {}; dropped",
                           e.source_offset, e.ordinal))
      .bind(5, now_)
      .run();
  return false;
}

// Where event i's payload and text sit in its session's pack (NULL: it has none).
void ChunkWriter::bind_pack_slice(Statement& insert, std::size_t i) const {
  const auto& slice = packs_->slices[i];
  auto pack = pack_ids_.find(batch_.events[i].session_id);
  if (pack != pack_ids_.end())
    insert.bind(":pack_id", pack->second);
  else
    insert.bind_null(":pack_id");
  for (const char* column : {":payload_off", ":payload_len", ":text_off", ":text_len"})
    insert.bind_null(column);
  if (slice.payload_off >= 0)
    insert.bind(":payload_off", slice.payload_off).bind(":payload_len", slice.payload_len);
  if (slice.text_off >= 0)
    insert.bind(":text_off", slice.text_off).bind(":text_len", slice.text_len);
}

void ChunkWriter::write_usage() {
  auto usage = db_.cached(R"sql(
    INSERT INTO usage (key, session_uid, source_id, is_sidechain, ts_ms, model, input_tokens,
      output_tokens, cache_read_tokens, cache_creation_tokens, reasoning_tokens, cost_usd,
      source_offset, cache_creation_1h_tokens)
    VALUES (:key, :session_uid, :source_id, :is_sidechain, :ts_ms, :model, :input_tokens,
      :output_tokens, :cache_read_tokens, :cache_creation_tokens, :reasoning_tokens, :cost_usd,
      :source_offset, :cache_creation_1h_tokens)
    ON CONFLICT (key) DO UPDATE SET source_id = excluded.source_id, ts_ms = excluded.ts_ms,
      source_offset = excluded.source_offset,
      model = COALESCE(excluded.model, model), input_tokens = excluded.input_tokens,
      output_tokens = excluded.output_tokens, cache_read_tokens = excluded.cache_read_tokens,
      cache_creation_tokens = excluded.cache_creation_tokens,
      cache_creation_1h_tokens = excluded.cache_creation_1h_tokens,
      reasoning_tokens = excluded.reasoning_tokens, cost_usd = excluded.cost_usd
    WHERE excluded.input_tokens + excluded.output_tokens + excluded.cache_read_tokens +
          excluded.cache_creation_tokens >
          input_tokens + output_tokens + cache_read_tokens + cache_creation_tokens
    RETURNING session_uid)sql");
  // The row a key already has, if any: a replaced row's tokens are taken off the session's sums
  // (a stored row keeps its first session, which RETURNING names).
  auto stored_usage = db_.cached(
      "SELECT input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens, "
      "reasoning_tokens, cost_usd IS NOT NULL, session_uid FROM usage WHERE key = ?");
  // A model call a fork copied is its origin's: a row a fork read first moves to the origin.
  auto reclaim = db_.cached(
      "UPDATE usage SET session_uid = ?1, source_id = ?3, source_offset = ?4 WHERE key = ?2 "
      "AND session_uid IN (SELECT uid FROM sessions WHERE forked_from = ?1)");
  std::set<std::string> reclaimed;
  // An agent's running total of what the session cost: the latest record of a key wins.
  auto agent_total = db_.cached(R"sql(
    INSERT INTO agent_costs (key, session_uid, source_id, source_offset, model, cost_usd)
    VALUES (:key, :session_uid, :source_id, :source_offset, :model, :cost_usd)
    ON CONFLICT (key) DO UPDATE SET session_uid = excluded.session_uid,
      source_id = excluded.source_id, source_offset = excluded.source_offset,
      model = excluded.model, cost_usd = excluded.cost_usd)sql");
  std::map<std::string, SessionUsageCounts> usage_counts;
  for (std::size_t i = 0; i < batch_.usage.size(); ++i) {
    const auto& u = batch_.usage[i];
    std::string key = u.key.empty() ? fmt::format("@{}:{}:{}:{}", cursor_.id, cursor_.generation,
                                                  u.source_offset, i)
                                    : prefix_ + u.key;
    if (u.agent_total()) {
      if (u.cost_usd < 0) continue;  // a total without a cost says nothing
      agent_total->bind(":key", key)
          .bind(":session_uid", prefix_ + u.session_id)
          .bind(":source_id", cursor_.id)
          .bind(":source_offset", static_cast<int64_t>(u.source_offset))
          .bind_text_or_null(":model", u.model)
          .bind(":cost_usd", u.cost_usd)
          .run();
      continue;
    }
    bind_usage_row(*usage, key, prefix_ + u.session_id, cursor_.id, u);
    SessionUsageCounts old;  // what the replaced row held, if the key has one
    stored_usage->bind(1, key);
    std::string held_by;
    if (stored_usage->step()) {
      old = {stored_usage->integer(0), stored_usage->integer(1), stored_usage->integer(2),
             stored_usage->integer(3), stored_usage->integer(4), stored_usage->integer(5) != 0};
      held_by = stored_usage->text(6);
    }
    stored_usage->reset();
    if (!held_by.empty() && held_by != prefix_ + u.session_id) {
      reclaim->bind(1, prefix_ + u.session_id)
          .bind(2, key)
          .bind(3, cursor_.id)
          .bind(4, static_cast<int64_t>(u.source_offset))
          .run();
      if (db_.changes() > 0) {
        reclaimed.insert(held_by);
        reclaimed.insert(prefix_ + u.session_id);
      }
    }
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
    ++stats_.usage_records;
  }
  count_chunk_usage(db_, usage_counts);
  // Both sessions' digests and usage days follow the moved rows.
  auto stale = db_.cached("UPDATE sessions SET ingested_at_ms = ? WHERE uid = ?");
  for (const auto& session : reclaimed) {
    refresh_usage_totals(db_, session);
    stale->bind(1, now_).bind(2, session).run();
  }
}

void ChunkWriter::write_rate_limits() {
  if (batch_.rate_limits.empty()) return;
  auto insert = db_.cached(R"sql(
    INSERT OR REPLACE INTO rate_limits (source_id, source_offset, limit_id, window_name,
      session_uid, flavor, ts_ms, used_percent, window_minutes, resets_at_ms)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULLIF(?7, 0), ?8, NULLIF(?9, 0), NULLIF(?10, 0)))sql");
  for (const auto& r : batch_.rate_limits)
    insert->bind(1, cursor_.id)
        .bind(2, static_cast<int64_t>(r.source_offset))
        .bind(3, r.limit_id)
        .bind(4, r.window)
        .bind(5, prefix_ + r.session_id)
        .bind(6, cursor_.flavor)
        .bind(7, r.ts_ms)
        .bind(8, r.used_percent)
        .bind(9, r.window_minutes)
        .bind(10, r.resets_at_ms)
        .run();
}

void ChunkWriter::refresh_forks() {
  for (const auto& [id, origin] : origins_)
    if (!origin.empty()) forks_changed_.insert(uid_of(id));
  auto start = db_.cached(R"sql(
    UPDATE sessions SET started_at_ms = COALESCE((SELECT MIN(ts_ms) FROM events
      WHERE session_uid = ?1 AND shadowed = 0 AND ts_ms IS NOT NULL), started_at_ms)
    WHERE uid = ?1)sql");
  for (const auto& fork : forks_changed_) {
    start->bind(1, fork).run();
    refresh_prompt_title(db_, fork);
  }
}

void ChunkWriter::mark_ingested() {
  auto ingested = db_.cached("UPDATE sessions SET ingested_at_ms = ? WHERE uid = ?");
  for (const auto& [id, s] : touched_) ingested->bind(1, now_).bind(2, prefix_ + id).run();
}

void ChunkWriter::write_warnings() {
  auto warn = db_.cached(R"sql(
    INSERT OR IGNORE INTO warnings (source_id, generation, source_offset, category, message,
      at_ms) VALUES (?, ?, ?, ?, ?, ?))sql");
  for (const auto& w : batch_.warnings) {
    warn->bind(1, cursor_.id)
        .bind(2, cursor_.generation)
        .bind(3, static_cast<int64_t>(w.source_offset))
        .bind(4, w.category)
        .bind(5, w.message)
        .bind(6, now_);
    warn->run();
  }
}

void ChunkWriter::write_redactions() {
  auto redactions = db_.cached(R"sql(
    INSERT INTO session_redactions (session_uid, source_id, count) VALUES (?, ?, ?)
    ON CONFLICT (session_uid, source_id) DO UPDATE SET count = count + excluded.count)sql");
  for (const auto& [session_id, n] : batch_.redactions)
    redactions->bind(1, prefix_ + session_id).bind(2, cursor_.id).bind(3, n).run();
}

}  // namespace helix

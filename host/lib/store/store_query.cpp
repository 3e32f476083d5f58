// The Helix store's read side: session listings, a session's events with their bodies, and
// the store's measured sizes. The write side (sources, chunk commits) is store.cpp.
#include "store/store.hpp"

#include "model/payload_pack.hpp"
#include "store/pack_cache.hpp"
#include "store/schema.hpp"

#include <fmt/format.h>
#include <map>
#include <optional>
#include <stdexcept>

namespace helix {
namespace {
// A pack whose frame disagrees with the size the store recorded is damaged as well.
std::string decompress(std::string_view packed, int64_t raw_bytes) {
  std::string out = unpack_payload(packed);
  if (static_cast<int64_t>(out.size()) != raw_bytes)
    throw std::runtime_error("a payload pack in the store is corrupt (zstd could not read it)");
  return out;
}

// The session listing, one row per session, from the schema 11 counters. {1}: the one-session
// filter, {2}: the order (ASC or DESC).
constexpr const char* kCountedListing = R"sql(
    SELECT s.uid, s.flavor, s.native_id, s.parent_uid, s.repo, s.domain, s.cwd, s.git_branch,
      s.model, s.title, s.agent_version, s.outcome, s.task_ref, s.source_path,
      s.started_at_ms, s.ended_at_ms, s.discovered_at_ms, s.ingested_at_ms, s.analyzed_at_ms,
      s.evicted_at_ms, s.schema_version, s.event_count, s.user_msg_count, s.retry_count,
      s.source_bytes, s.usage_input_tokens, s.usage_output_tokens, s.usage_cache_read_tokens,
      s.usage_cache_creation_tokens, s.usage_reasoning_tokens, s.usage_cost_usd, s.prompt_title,
      s.cost_usd, s.agent_cost_usd, s.unpriced_tokens, COALESCE(s.tool_calls, 0),
      COALESCE(s.infra_tool_calls, 0), s.forked_from
    FROM sessions s
    WHERE (?1 = '' OR s.flavor = ?1) AND (?2 = '' OR s.repo = ?2)
      AND (?3 = 0 OR COALESCE(s.ended_at_ms, s.started_at_ms, 0) >= ?3)
      AND COALESCE(s.started_at_ms, 0) <= ?5
      {1}
    ORDER BY COALESCE(s.started_at_ms, 0) {2}, s.uid {2} LIMIT ?6)sql";

// The same from the rows, for a store older than schema 11 opened read-only. {0}: the usage
// rows' filter, {1}: the one-session filter, {2}: the order.
constexpr const char* kUncountedListing = R"sql(
    SELECT s.uid, s.flavor, s.native_id, s.parent_uid, s.repo, s.domain, s.cwd, s.git_branch,
      s.model, s.title, s.agent_version, s.outcome, s.task_ref, s.source_path,
      s.started_at_ms, s.ended_at_ms, s.discovered_at_ms, s.ingested_at_ms, s.analyzed_at_ms,
      s.evicted_at_ms, s.schema_version,
      (SELECT COUNT(*) FROM events e WHERE e.session_uid = s.uid AND e.shadowed = 0),
      (SELECT COUNT(*) FROM events e WHERE e.session_uid = s.uid AND e.kind = 'user_msg'
         AND e.is_sidechain = 0 AND e.shadowed = 0),
      (SELECT COUNT(*) FROM events e WHERE e.session_uid = s.uid AND e.kind = 'retry'
         AND e.shadowed = 0),
      (SELECT COALESCE(SUM(size), 0) FROM sources WHERE id IN
         (SELECT DISTINCT source_id FROM events e WHERE e.session_uid = s.uid)),
      u.input, u.output, u.cache_read, u.cache_creation, u.reasoning, u.cost, s.prompt_title,
      NULL, NULL, 0, 0, 0, NULL
    FROM sessions s
    LEFT JOIN (SELECT session_uid, SUM(input_tokens) AS input, SUM(output_tokens) AS output,
                 SUM(cache_read_tokens) AS cache_read,
                 SUM(cache_creation_tokens) AS cache_creation,
                 SUM(reasoning_tokens) AS reasoning, SUM(cost_usd) AS cost
               FROM usage {0} GROUP BY session_uid) u ON u.session_uid = s.uid
    WHERE (?1 = '' OR s.flavor = ?1) AND (?2 = '' OR s.repo = ?2)
      AND (?3 = 0 OR COALESCE(s.ended_at_ms, s.started_at_ms, 0) >= ?3)
      AND COALESCE(s.started_at_ms, 0) <= ?5
      {1}
    ORDER BY COALESCE(s.started_at_ms, 0) {2}, s.uid {2} LIMIT ?6)sql";

}  // namespace

std::vector<SessionRow> Store::sessions(const SessionFilter& filter) {
  std::vector<SessionRow> out;
  query_sessions(filter, "", [&](const SessionRow& r) { out.push_back(r); });
  return out;
}

void Store::for_each_session(const SessionFilter& filter,
                             const std::function<void(const SessionRow&)>& visit) {
  query_sessions(filter, "", visit);
}

void Store::query_sessions(const SessionFilter& filter, const std::string& uid,
                           const std::function<void(const SessionRow&)>& visit) {
  // Schema 11 keeps the counts and usage sums in the session's row; a read-only command on an
  // older store counts them from the rows (seconds at 100,000 sessions).
  const int version = user_version(db_);
  std::string sql = version >= 11 ? kCountedListing : kUncountedListing;
  if (version == 11)  // read-only, before host-priced costs (schema 12)
    sql.replace(sql.find("s.cost_usd, s.agent_cost_usd, s.unpriced_tokens"), 47, "NULL, NULL, 0")
        .replace(sql.find("COALESCE(s.tool_calls, 0)"), 25, "0")
        .replace(sql.find("COALESCE(s.infra_tool_calls, 0)"), 31, "0");
  // One session: plain `= ?4` terms, so that both lookups use their index (an `OR` with the
  // empty case would make each lookup scan every session and every usage row: the digest pass
  // does one lookup per session).
  const char* order = filter.newest_first ? "DESC" : "ASC";
  sql = uid.empty()
            ? fmt::format(fmt::runtime(sql), "", "AND ?4 = ''", order)
            : fmt::format(fmt::runtime(sql), "WHERE session_uid = ?4", "AND s.uid = ?4", order);
  {  // read-only commands do not migrate: a store older than version 3 has no derived titles
    auto probe = db_.cached(
        "SELECT COUNT(*) FROM pragma_table_info('sessions') WHERE name = 'prompt_title'");
    probe->step();
    if (probe->integer(0) == 0) sql.replace(sql.find("s.prompt_title"), 14, "NULL");
  }
  if (user_version(db_) < 13 && sql.find("s.forked_from") != std::string::npos)
    sql.replace(sql.find("s.forked_from"), 13, "NULL");  // read-only: not migrated
  auto lease = db_.cached(sql);  // the digest pass looks up one session at a time
  Statement& st = *lease;
  st.bind(1, filter.flavor).bind(2, filter.repo).bind(3, filter.since_ms).bind(4, uid);
  st.bind(5, filter.until_ms).bind(6, filter.limit);
  // Read-only commands do not migrate: a store older than version 4 has no redaction counts.
  std::optional<StatementLease> redactions;
  {
    auto counted =
        db_.cached("SELECT COUNT(*) FROM sqlite_schema WHERE name = 'session_redactions'");
    counted->step();
    if (counted->integer(0) > 0)
      redactions.emplace(db_.cached(
          "SELECT COALESCE(SUM(count), 0) FROM session_redactions WHERE session_uid = ?"));
  }
  auto read = [&](Statement& q) {
    SessionRow r;
    std::string* texts[] = {&r.uid,           &r.flavor,  &r.native_id,  &r.parent_uid, &r.repo,
                            &r.domain,        &r.cwd,     &r.git_branch, &r.model,      &r.title,
                            &r.agent_version, &r.outcome, &r.task_ref,   &r.source_path};
    for (int i = 0; i < 14; ++i) *texts[i] = q.text(i);
    int64_t* ints[] = {&r.started_at_ms,
                       &r.ended_at_ms,
                       &r.discovered_at_ms,
                       &r.ingested_at_ms,
                       &r.analyzed_at_ms,
                       &r.evicted_at_ms,
                       &r.schema_version,
                       &r.event_count,
                       &r.turns,
                       &r.retries,
                       &r.source_bytes,
                       &r.usage.input_tokens,
                       &r.usage.output_tokens,
                       &r.usage.cache_read_tokens,
                       &r.usage.cache_creation_tokens,
                       &r.usage.reasoning_tokens};
    for (int i = 0; i < 16; ++i) *ints[i] = q.integer(14 + i);
    r.usage.cost_usd = q.real(30);
    if (!q.is_null(32)) r.cost_usd = q.real(32);
    if (!q.is_null(33)) r.agent_cost_usd = q.real(33);
    r.unpriced_tokens = q.integer(34);
    r.tool_calls = q.integer(35);
    r.infra_tool_calls = q.integer(36);
    if (r.title.empty()) {  // the agent gave none: the one derived from the first prompt
      r.title = q.text(31);
      r.title_derived = !r.title.empty();
    }
    r.forked_from = q.text(37);
    if (redactions) {
      Statement& count = **redactions;
      count.bind(1, r.uid);
      count.step();
      r.redactions = count.integer(0);
      count.reset();
    }
    return r;
  };
  while (st.step()) visit(read(st));
}

std::optional<SessionRow> Store::session(const std::string& uid) {
  std::optional<SessionRow> found;
  if (uid.empty()) return found;  // an empty uid is no session (query_sessions would list all)
  query_sessions(SessionFilter{}, uid, [&](const SessionRow& r) { found = r; });
  return found;
}

std::vector<SessionRow> Store::sessions_by_id(std::string_view id, std::size_t limit) {
  std::vector<SessionRow> out;
  if (id.empty()) return out;
  if (auto exact = session(std::string(id))) {
    out.push_back(std::move(*exact));
    return out;
  }
  // GLOB is case-sensitive, as ids are, and uses the uid index for the uid prefix; its special
  // characters in the id are matched literally through a one-character class.
  std::string pattern;
  for (char c : id)
    pattern += (c == '*' || c == '?' || c == '[') ? std::string{'[', c, ']'} : std::string{c};
  pattern += '*';
  auto st = db_.prepare(R"sql(
    SELECT uid FROM sessions WHERE uid GLOB ?1 OR native_id GLOB ?1 ORDER BY uid LIMIT ?2)sql");
  st.bind(1, pattern).bind(2, static_cast<int64_t>(limit));
  std::vector<std::string> uids;
  while (st.step()) uids.push_back(st.text(0));
  for (const auto& uid : uids)
    if (auto row = session(uid)) out.push_back(std::move(*row));
  return out;
}

std::map<int64_t, std::string> Store::event_texts(const std::string& uid,
                                                  const std::vector<int64_t>& seqs) {
  auto where = db_.cached(R"sql(
    SELECT pack_id, text_off, text_len FROM events
    WHERE session_uid = ? AND seq = ? AND shadowed = 0 AND pack_id IS NOT NULL
      AND text_off IS NOT NULL)sql");
  PackCache packs(db_);
  std::map<int64_t, std::string> out;
  for (int64_t seq : seqs) {
    where->bind(1, uid).bind(2, seq);
    if (where->step()) {
      auto text = packs.slice(where->integer(0), where->integer(1), where->integer(2));
      if (text) out[seq] = std::string(*text);
    }
    where->reset();
  }
  return out;
}

namespace {

// One event row of Store::events' query; bodies are sliced from their packs when asked for.
EventRow event_row(Statement& st, PackCache* bodies) {
  EventRow r;
  r.seq = st.integer(0);
  r.parent_seq = st.is_null(1) ? -1 : st.integer(1);
  r.ts_ms = st.integer(2);
  r.source_offset = st.integer(3);
  r.ordinal = st.integer(4);
  r.kind = st.text(5);
  r.role = st.text(6);
  r.tool = st.text(7);
  r.summary = st.text(8);
  r.uid = st.text(9);
  r.parent_uid = st.text(10);
  r.call_id = st.text(11);
  r.model = st.text(12);
  r.source_path = st.text(13);
  r.is_sidechain = st.integer(14) != 0;
  r.tokens = st.integer(20);
  if (st.is_null(15)) return r;
  const int64_t pack_id = st.integer(15);
  if (!st.is_null(16))
    r.payload_ref = fmt::format("blob://pack/{}/{}+{}", pack_id, st.integer(16), st.integer(17));
  if (!bodies) return r;
  if (!st.is_null(16))
    r.payload = bodies->slice(pack_id, st.integer(16), st.integer(17)).value_or("");
  if (!st.is_null(18)) r.text = bodies->slice(pack_id, st.integer(18), st.integer(19)).value_or("");
  return r;
}

}  // namespace

std::vector<EventRow> Store::events(const std::string& uid, bool with_bodies) {
  auto st = db_.prepare(R"sql(
    SELECT e.seq, e.parent_seq, e.ts_ms, e.source_offset, e.ordinal, e.kind, e.role, e.tool,
      e.summary, e.uid, e.parent_uid, e.call_id, e.model, src.path, e.is_sidechain, e.pack_id,
      e.payload_off, e.payload_len, e.text_off, e.text_len,
      CASE WHEN e.ordinal = (SELECT MIN(o.ordinal) FROM events o WHERE o.source_id = e.source_id
             AND o.source_offset = e.source_offset AND o.shadowed = 0)
           THEN (SELECT SUM(u.input_tokens + u.output_tokens +
             u.cache_read_tokens + u.cache_creation_tokens) FROM usage u
           WHERE u.source_id = e.source_id AND u.source_offset = e.source_offset) END
    FROM events e JOIN sources src ON src.id = e.source_id
    WHERE e.session_uid = ? AND e.shadowed = 0 ORDER BY e.seq)sql");
  st.bind(1, uid);
  PackCache packs(db_);
  std::vector<EventRow> out;
  while (st.step()) out.push_back(event_row(st, with_bodies ? &packs : nullptr));
  return out;
}

void Store::for_each_event(const std::string& uid, const EventFilter& filter,
                           const std::function<void(const EventView&)>& visit) {
  auto lease = db_.cached(R"sql(
    SELECT e.seq, e.ts_ms, e.source_offset, e.ordinal, e.kind, e.role, e.tool, e.summary, e.uid,
      e.parent_uid, e.call_id, e.model, e.is_sidechain, e.pack_id, e.text_off, e.text_len,
      e.parent_seq
    FROM events e
    WHERE e.session_uid = ?1 AND e.shadowed = 0
      AND (?2 = 0 OR NOT EXISTS (SELECT 1 FROM digest_coverage c WHERE c.session_uid = ?1
                                   AND c.source_id = e.source_id
                                   AND e.source_offset <= c.covered_offset))
      AND e.seq > ?3
    ORDER BY e.seq)sql");
  Statement& st = *lease;
  st.bind(1, uid).bind(2, static_cast<int64_t>(filter.skip_covered)).bind(3, filter.after_seq);
  auto pack_lease = db_.cached("SELECT raw_bytes, data FROM payload_packs WHERE id = ?");
  Statement& pack = *pack_lease;
  int64_t pack_id = -1;
  std::string raw;         // the current pack, decompressed
  std::string columns[8];  // the current row's short text columns
  while (st.step()) {
    EventView v;
    v.seq = st.integer(0);
    v.ts_ms = st.integer(1);
    v.source_offset = st.integer(2);
    v.ordinal = st.integer(3);
    std::string_view* views[] = {&v.kind, &v.role,       &v.tool,    &v.summary,
                                 &v.uid,  &v.parent_uid, &v.call_id, &v.model};
    for (int i = 0; i < 8; ++i) *views[i] = columns[i] = st.text(4 + i);
    v.is_sidechain = st.integer(12) != 0;
    v.parent_seq = st.is_null(16) ? -1 : st.integer(16);
    if (!st.is_null(13) && !st.is_null(14)) {
      if (st.integer(13) != pack_id) {
        pack_id = st.integer(13);
        pack.bind(1, pack_id);
        raw = pack.step() ? decompress(pack.blob(1), pack.integer(0)) : std::string();
        pack.reset();
      }
      const int64_t off = st.integer(14), len = st.integer(15);
      if (off >= 0 && off + len <= static_cast<int64_t>(raw.size()))
        v.text = std::string_view(raw).substr(static_cast<std::size_t>(off),
                                              static_cast<std::size_t>(len));
    }
    visit(v);
  }
}

StoreStatus Store::status() {
  StoreStatus s;
  auto count = [&](const char* sql) {
    auto st = db_.prepare(sql);
    st.step();
    return st.integer(0);
  };
  s.sessions = count("SELECT COUNT(*) FROM sessions");
  s.events = count(user_version(db_) >= 11 ? "SELECT COALESCE(SUM(event_count), 0) FROM sessions"
                                           : "SELECT COUNT(*) FROM events WHERE shadowed = 0");
  s.sources = count("SELECT COUNT(*) FROM sources");
  s.warnings = count("SELECT COUNT(*) FROM warnings");
  s.file_bytes = count("SELECT page_count * page_size FROM pragma_page_count, pragma_page_size");
  s.tier1_bytes = measured_tier1_bytes(*this);
  s.tier2_bytes = measured_tier2_bytes(*this);
  auto st = db_.prepare("SELECT state, COUNT(*) FROM sources GROUP BY state ORDER BY state");
  while (st.step()) s.sources_by_state.emplace_back(st.text(0), st.integer(1));
  s.unread_sources = unread_sources();
  return s;
}

std::vector<SourceProblem> Store::unread_sources() {
  auto st = db_.prepare(
      "SELECT path, COALESCE(adapter, ''), COALESCE(last_error, ''), state FROM sources "
      "WHERE state IN ('quarantined', 'orphaned') ORDER BY path");
  std::vector<SourceProblem> out;
  while (st.step())
    out.push_back({st.text(0), st.text(1), st.text(2),
                   parse_source_state(st.text(3)).value_or(SourceState::active)});
  return out;
}

namespace {

// The pages (dbstat) of the tables whose names match `where`, with their indexes and, for FTS5
// tables, their shadow tables: measured, not estimated. dbstat's aggregate mode (one row per
// table, SQLite 3.31+) gives the same sums for less than half the CPU of a row per page.
int64_t pages_where(Database& db, const char* where) {
  auto st =
      db.prepare(fmt::format("SELECT COALESCE(SUM(pgsize), 0) FROM dbstat('main', 1) WHERE name IN "
                             "(SELECT name FROM sqlite_schema WHERE {})",
                             where));
  st.step();
  return st.integer(0);
}

}  // namespace

int64_t measured_tier1_bytes(Store& store) {
  Database& db = store.database();
  return pages_where(db, R"sql(tbl_name IN ('sources', 'sessions', 'session_sources', 'events',
      'payload_packs', 'warnings', 'session_redactions')
      OR tbl_name LIKE 'search\_events%' ESCAPE '\')sql");
}

int64_t measured_tier2_bytes(Store& store) {
  Database& db = store.database();
  // The usage ledger is Tier 2: one small row per model call, kept with the digests.
  return pages_where(db, R"sql(tbl_name IN ('digests', 'usage_days', 'retention_events', 'usage',
      'usage_rollup', 'usage_rollup_stale', 'digest_coverage', 'digest_seen_records',
      'agent_costs', 'imported_prices', 'pricing_state', 'rate_limits')
      OR tbl_name LIKE 'search\_digests%' ESCAPE '\')sql");
}
}  // namespace helix

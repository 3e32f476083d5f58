#include "fleet/fleet_push.hpp"

#include "fleet/fleet_connection.hpp"
#include "fleet/fleet_schema.hpp"
#include "fleet/host_identity.hpp"
#include "fleet/pg.hpp"
#include "fleet/pg_text.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <chrono>
#include <set>

#ifndef HELIX_VERSION
#define HELIX_VERSION "unknown"
#endif

namespace helix {
namespace {

// A batch stops growing past this much COPY data (events with large texts), after at least
// one session.
constexpr std::size_t kBatchBytes = std::size_t{32} << 20;

// The staging tables of one connection: COPY fills them, the batch's statements move their
// rows into helix_fleet, and COMMIT empties them. Times are Unix ms (NULL = unknown).
constexpr const char* kStagingTables = R"sql(
CREATE TEMP TABLE push_sessions (
  session_uid text, month date, version bigint, flavor text, native_id text, parent_uid text,
  repo text, domain text, cwd text, git_branch text, model text, title text, title_source text,
  agent_version text, started_ms bigint, ended_ms bigint, outcome text, task_ref text,
  event_count bigint, turns bigint, retries bigint, source_bytes bigint, redactions bigint,
  input_tokens bigint, output_tokens bigint, cache_read_tokens bigint,
  cache_creation_tokens bigint, reasoning_tokens bigint, usage_cost_usd double precision,
  cost_usd double precision, agent_cost_usd double precision, unpriced_tokens bigint,
  tool_calls bigint, infra_tool_calls bigint,
  discovered_ms bigint, ingested_ms bigint, analyzed_ms bigint, evicted_ms bigint
) ON COMMIT DELETE ROWS;
CREATE TEMP TABLE push_digests (
  session_uid text, digester text, plugin_version text, digested_ms bigint, body text,
  search_text text
) ON COMMIT DELETE ROWS;
CREATE TEMP TABLE push_usage (
  session_uid text, month date, day text, model text, calls bigint, input_tokens bigint,
  output_tokens bigint, cache_read_tokens bigint, cache_creation_tokens bigint,
  reasoning_tokens bigint, cost_usd double precision, agent_cost_usd double precision,
  unpriced_tokens bigint
) ON COMMIT DELETE ROWS;
CREATE TEMP TABLE push_events (
  session_uid text, seq bigint, parent_seq bigint, ts_ms bigint, kind text, role text,
  tool text, summary text, is_sidechain boolean, uid text, parent_uid text, call_id text,
  model text, text text
) ON COMMIT DELETE ROWS;
)sql";

// The uids of the staged sessions as a PostgreSQL array: [0] all, [1] those still holding
// their events locally, [2] those evicted locally. The statements below take them as
// `= ANY($n)`, which PostgreSQL answers with index lookups in each partition whatever it
// guesses of the staging table's size.
constexpr const char* kStagedUids = R"sql(
SELECT coalesce(array_agg(session_uid), '{}'),
  coalesce(array_agg(session_uid) FILTER (WHERE evicted_ms IS NULL), '{}'),
  coalesce(array_agg(session_uid) FILTER (WHERE evicted_ms IS NOT NULL), '{}')
FROM push_sessions)sql";

// $1 team, $2 host id, $3 the staged uids. A session the fleet holds at a newer version (or,
// $4 = false, at the same version: this push already wrote it before it was interrupted) is
// left as it is.
constexpr const char* kDropKnown = R"sql(
DELETE FROM push_sessions p USING helix_fleet.sessions s
WHERE s.team = $1 AND s.host_id = $2 AND s.session_uid = ANY($3::text[])
  AND s.session_uid = p.session_uid
  AND (s.version > p.version OR (s.version = p.version AND NOT $4::boolean))
RETURNING p.session_uid)sql";

// The rows of the batch's sessions are cleared first, then written whole: a session's month
// (its partition), its usage days and its digesters may all have changed. Events of a session
// evicted locally are kept (the host has no copy left to send again), moved to the session's
// month; only the events it still has are written. $3 is the kStagedUids column named.
struct Clear {
  int uids;  // 0 all staged sessions, 1 those kept locally, 2 those evicted locally
  const char* sql;
};
constexpr Clear kClear[] = {
    {0,
     "DELETE FROM helix_fleet.sessions WHERE team = $1 AND host_id = $2 AND "
     "session_uid = ANY($3::text[])"},
    {0,
     "DELETE FROM helix_fleet.digests WHERE team = $1 AND host_id = $2 AND "
     "session_uid = ANY($3::text[])"},
    {0,
     "DELETE FROM helix_fleet.usage_days WHERE team = $1 AND host_id = $2 AND "
     "session_uid = ANY($3::text[])"},
    {1,
     "DELETE FROM helix_fleet.events WHERE team = $1 AND host_id = $2 AND "
     "session_uid = ANY($3::text[])"},
    {2,
     "UPDATE helix_fleet.events t SET month = p.month FROM push_sessions p WHERE t.team = $1 "
     "AND t.host_id = $2 AND t.session_uid = ANY($3::text[]) AND t.session_uid = p.session_uid "
     "AND t.month <> p.month"}};

// Then the batch's rows are written, in this order: sessions, usage, events, digests (which
// note whether the fleet holds events of their session).
constexpr const char* kWrite[] = {
    R"sql(
INSERT INTO helix_fleet.sessions (team, host_id, session_uid, month, version, flavor, native_id,
  parent_uid, repo, domain, cwd, git_branch, model, title, title_source, agent_version,
  started_at, ended_at, outcome, task_ref, event_count, turns, retries, source_bytes,
  redactions, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens,
  reasoning_tokens, usage_cost_usd, cost_usd, agent_cost_usd, unpriced_tokens, tool_calls,
  infra_tool_calls, discovered_at, ingested_at, analyzed_at, evicted_at)
SELECT $1, $2, session_uid, month, version, flavor, native_id, parent_uid, repo, domain, cwd,
  git_branch, model, title, title_source, agent_version,
  'epoch'::timestamptz + started_ms * interval '1 ms',
  'epoch'::timestamptz + ended_ms * interval '1 ms', outcome, task_ref, event_count, turns,
  retries, source_bytes, redactions, input_tokens, output_tokens, cache_read_tokens,
  cache_creation_tokens, reasoning_tokens, usage_cost_usd, cost_usd, agent_cost_usd,
  unpriced_tokens, tool_calls, infra_tool_calls,
  'epoch'::timestamptz + discovered_ms * interval '1 ms',
  'epoch'::timestamptz + ingested_ms * interval '1 ms',
  'epoch'::timestamptz + analyzed_ms * interval '1 ms',
  'epoch'::timestamptz + evicted_ms * interval '1 ms'
FROM push_sessions)sql",
    R"sql(
INSERT INTO helix_fleet.usage_days (team, host_id, session_uid, month, day, model, flavor, repo,
  calls, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens,
  reasoning_tokens, cost_usd, agent_cost_usd, unpriced_tokens)
SELECT $1, $2, u.session_uid, u.month, u.day, u.model, p.flavor, p.repo, u.calls,
  u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_creation_tokens,
  u.reasoning_tokens, u.cost_usd, u.agent_cost_usd, u.unpriced_tokens
FROM push_usage u JOIN push_sessions p USING (session_uid))sql",
    R"sql(
INSERT INTO helix_fleet.events (team, host_id, session_uid, month, seq, parent_seq, ts, kind,
  role, tool, summary, is_sidechain, uid, parent_uid, call_id, model, text)
SELECT $1, $2, e.session_uid, p.month, e.seq, e.parent_seq,
  'epoch'::timestamptz + e.ts_ms * interval '1 ms', e.kind, e.role, e.tool, e.summary,
  e.is_sidechain, e.uid, e.parent_uid, e.call_id, e.model, e.text
FROM push_events e JOIN push_sessions p USING (session_uid)
ON CONFLICT (team, host_id, session_uid, month, seq) DO UPDATE SET
  parent_seq = EXCLUDED.parent_seq, ts = EXCLUDED.ts, kind = EXCLUDED.kind,
  role = EXCLUDED.role, tool = EXCLUDED.tool, summary = EXCLUDED.summary,
  is_sidechain = EXCLUDED.is_sidechain, uid = EXCLUDED.uid, parent_uid = EXCLUDED.parent_uid,
  call_id = EXCLUDED.call_id, model = EXCLUDED.model, text = EXCLUDED.text)sql",
    R"sql(
INSERT INTO helix_fleet.digests (team, host_id, session_uid, month, digester, plugin_version,
  digested_at, body, search_text, has_events)
SELECT $1, $2, d.session_uid, p.month, d.digester, d.plugin_version,
  'epoch'::timestamptz + d.digested_ms * interval '1 ms', d.body::json, d.search_text,
  EXISTS (SELECT 1 FROM helix_fleet.events e WHERE e.team = $1 AND e.host_id = $2
            AND e.session_uid = d.session_uid)
FROM push_digests d JOIN push_sessions p USING (session_uid))sql"};

// $1 team, $2 host id, $3 host name, $4 helix version, $5/$6 the mark after this batch.
constexpr const char* kMoveMark = R"sql(
INSERT INTO helix_fleet.hosts (team, host_id, host_name, helix_version, mark_version, mark_uid)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (team, host_id) DO UPDATE SET host_name = EXCLUDED.host_name,
  helix_version = EXCLUDED.helix_version, last_push_at = now(),
  mark_version = EXCLUDED.mark_version, mark_uid = EXCLUDED.mark_uid)sql";

// One COPY text-format row, field by field.
class CopyRow {
 public:
  explicit CopyRow(std::string& out) : out_(out) {}
  ~CopyRow() { out_ += '\n'; }
  CopyRow& text(std::string_view value) {  // NULL when empty, as the local store lists it
    if (value.empty()) return raw(std::nullopt);
    const std::string stored = to_pg_text(value);
    return raw(stored);
  }
  CopyRow& required(std::string_view value) {
    const std::string stored = to_pg_text(value);
    return raw(stored);
  }
  CopyRow& integer(int64_t value) {
    const std::string text = std::to_string(value);
    return raw(text);
  }
  CopyRow& time(int64_t ms) { return ms > 0 ? integer(ms) : raw(std::nullopt); }
  CopyRow& real(std::optional<double> value) {
    if (!value) return raw(std::nullopt);
    const std::string text = fmt::format("{:.17g}", *value);
    return raw(text);
  }
  CopyRow& boolean(bool value) { return raw(value ? "t" : "f"); }

 private:
  CopyRow& raw(std::optional<std::string_view> value) {
    if (!first_) out_ += '\t';
    first_ = false;
    pg::copy_field(out_, value);
    return *this;
  }
  std::string& out_;
  bool first_ = true;
};

// "YYYY-MM-01" of a Unix time in ms (UTC); the partition of a session without a start.
std::string month_of(int64_t ms) {
  if (ms <= 0) return "1970-01-01";
  const std::chrono::sys_time<std::chrono::milliseconds> t{std::chrono::milliseconds(ms)};
  const std::chrono::year_month_day ymd{std::chrono::floor<std::chrono::days>(t)};
  return fmt::format("{:04}-{:02}-01", static_cast<int>(ymd.year()),
                     static_cast<unsigned>(ymd.month()));
}

// The month of a usage day ("YYYY-MM-DD", or "unknown": the session's month).
std::string month_of_day(const std::string& day, const std::string& session_month) {
  const bool dated = day.size() == 10 && day[4] == '-' && day[7] == '-';
  return dated ? day.substr(0, 7) + "-01" : session_month;
}

// What full-text search reads of a digest: the session's title and the digest's own texts
// (the default digester's first prompt, last answer and error samples; other digesters'
// fields of those names).
std::string digest_search_text(const std::string& title, const std::string& json) {
  std::string text = title;
  boost::system::error_code ec;
  const auto doc = boost::json::parse(json, ec);
  if (ec || !doc.is_object()) return text;
  const auto& o = doc.get_object();
  for (const char* key : {"first_prompt", "last_assistant"})
    if (auto* v = o.if_contains(key); v && v->is_string())
      text += "\n" + std::string(v->get_string());
  if (auto* errors = o.if_contains("error_snippets"); errors && errors->is_array())
    for (const auto& e : errors->get_array())
      if (auto* sample = e.is_object() ? e.get_object().if_contains("sample") : nullptr;
          sample && sample->is_string())
        text += "\n" + std::string(sample->get_string());
  return text;
}

// One batch of changed sessions as COPY data.
struct Batch {
  std::string sessions, digests, usage, events;
  std::set<std::string> months;
  int64_t listed = 0;  // changes consumed (a session deleted since it was listed adds none)
  ChangeMark last;
  std::size_t bytes() const {
    return sessions.size() + digests.size() + usage.size() + events.size();
  }
};

void add_session(Store& store, const SessionRow& s, int64_t version, bool with_events, Batch& b) {
  const std::string month = month_of(s.started_at_ms);
  b.months.insert(month);
  CopyRow(b.sessions)
      .required(s.uid)
      .required(month)
      .integer(version)
      .required(s.flavor)
      .required(s.native_id)
      .text(s.parent_uid)
      .text(s.repo)
      .text(s.domain)
      .text(s.cwd)
      .text(s.git_branch)
      .text(s.model)
      .text(s.title)
      .text(s.title.empty()   ? ""
            : s.title_derived ? "first_prompt"
                              : "agent")
      .text(s.agent_version)
      .time(s.started_at_ms)
      .time(s.ended_at_ms)
      .required(s.outcome)
      .text(s.task_ref)
      .integer(s.event_count)
      .integer(s.turns)
      .integer(s.retries)
      .integer(s.source_bytes)
      .integer(s.redactions)
      .integer(s.usage.input_tokens)
      .integer(s.usage.output_tokens)
      .integer(s.usage.cache_read_tokens)
      .integer(s.usage.cache_creation_tokens)
      .integer(s.usage.reasoning_tokens)
      .real(s.usage.cost_usd)
      .real(s.cost_usd)
      .real(s.agent_cost_usd)
      .integer(s.unpriced_tokens)
      .integer(s.tool_calls)
      .integer(s.infra_tool_calls)
      .time(s.discovered_at_ms)
      .time(s.ingested_at_ms)
      .time(s.analyzed_at_ms)
      .time(s.evicted_at_ms);
  for (const auto& d : session_digests(store, s.uid)) {
    CopyRow(b.digests)
        .required(s.uid)
        .required(d.digester)
        .required(d.version)
        .time(d.digested_at_ms)
        .required(d.json)
        .required(digest_search_text(s.title, d.json));
  }
  for (const auto& u : session_usage_ledger(store, s.uid)) {
    const std::string usage_month = month_of_day(u.day, month);
    b.months.insert(usage_month);
    CopyRow(b.usage)
        .required(s.uid)
        .required(usage_month)
        .required(u.day)
        .required(u.model)
        .integer(u.calls)
        .integer(u.input_tokens)
        .integer(u.output_tokens)
        .integer(u.cache_read_tokens)
        .integer(u.cache_creation_tokens)
        .integer(u.reasoning_tokens)
        .real(u.cost_usd)
        .real(u.agent_cost_usd)
        .integer(u.unpriced_tokens);
  }
  if (!with_events) return;
  store.for_each_event(s.uid, EventFilter{}, [&](const EventView& e) {
    CopyRow row(b.events);
    row.required(s.uid).integer(e.seq);
    if (e.parent_seq >= 0)
      row.integer(e.parent_seq);
    else
      row.text("");
    row.time(e.ts_ms)
        .required(e.kind)
        .text(e.role)
        .text(e.tool)
        .text(e.summary)
        .boolean(e.is_sidechain)
        .text(e.uid)
        .text(e.parent_uid)
        .text(e.call_id)
        .text(e.model)
        .text(e.text);
  });
}

// PostgreSQL's array literal of the months: '{2026-10-01,2026-11-01}'.
std::string month_array(const std::set<std::string>& months) {
  std::string out = "{";
  for (const auto& m : months) out += (out.size() > 1 ? "," : "") + m;
  return out + "}";
}

class Pusher {
 public:
  Pusher(Store& store, const FleetConfig& config, const PushOptions& options)
      : store_(store), config_(config), options_(options) {}

  PushReport run() {
    const auto start = std::chrono::steady_clock::now();
    report_.team = config_.team;
    report_.host_id = load_or_create_host_id(config_.host_id_file);
    report_.host_name = host_name();
    db_ = connect_fleet(config_, /*need_team=*/true);
    require_fleet_schema(*db_);
    report_.member = db_->user();
    lock_host();
    ChangeMark from = options_.full ? ChangeMark{} : stored_mark();
    // Sessions stamped in the mark's millisecond are offered again: one written in that
    // millisecond after the last push read the store would otherwise be passed over. The fleet
    // recognises those it has (kDropKnown).
    from.uid.clear();
    db_->exec(kStagingTables);
    for (;;) {
      Batch batch = next_batch(from);
      if (batch.listed == 0) break;
      write(batch);
      from = batch.last;
      report_.mark = batch.last;
      report_.seconds = seconds_since(start);
      if (options_.after_batch) options_.after_batch(report_);
    }
    if (report_.batches == 0) touch_host();
    report_.seconds = seconds_since(start);
    return report_;
  }

 private:
  static double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  std::vector<pg::Param> host_params() const { return {report_.team, report_.host_id}; }

  // One push per host at a time (a session lock: the server drops it with the connection).
  // The host must be this login's: a member cannot write rows another member pushed.
  void lock_host() {
    // A push killed a moment ago may hold it until its server process notices: wait a little
    // before calling the lock taken.
    const std::string key = report_.team + "/" + report_.host_id;
    db_->exec("SET statement_timeout = '5s'");
    try {
      db_->query("SELECT pg_advisory_lock(hashtextextended($1, 0))", {key});
    } catch (const pg::Error& e) {
      if (e.sqlstate() != "57014") throw;  // query_canceled: the timeout
      throw PushBusy(fmt::format("another push of host {} ({}) is running", report_.host_name,
                                 report_.host_id));
    }
    db_->exec("SET statement_timeout = 0");
    auto owner = db_->query("SELECT member FROM helix_fleet.hosts WHERE team = $1 AND host_id = $2",
                            host_params());
    if (owner.rows() > 0 && owner.text(0, 0) != report_.member)
      throw std::runtime_error(fmt::format(
          "host {} of team {} was pushed by the login {}, not {}: only that login (or an "
          "administrator) can change its rows; give this machine its own host id by deleting "
          "its host id file, or push as {}",
          report_.host_id, report_.team, owner.text(0, 0), report_.member, owner.text(0, 0)));
  }

  ChangeMark stored_mark() {
    auto r = db_->query(
        "SELECT mark_version, mark_uid FROM helix_fleet.hosts WHERE team = $1 AND host_id = $2",
        host_params());
    if (r.rows() == 0) return {};
    return {r.integer(0, 0), std::string(r.text(0, 1))};
  }

  Batch next_batch(const ChangeMark& from) {
    Batch b;
    for (const auto& change : changed_sessions(store_, from, config_.batch_sessions)) {
      auto session = store_.session(change.uid);
      if (session) add_session(store_, *session, change.version, config_.events, b);
      b.last = change;
      ++b.listed;
      if (b.bytes() >= kBatchBytes) break;
    }
    return b;
  }

  void ensure_months(const std::set<std::string>& months) {
    std::set<std::string> missing;
    for (const auto& m : months)
      if (!ensured_.count(m)) missing.insert(m);
    if (missing.empty()) return;
    // Outside the batch's transaction: creating a partition locks its parent until commit.
    db_->query("SELECT helix_fleet.ensure_months($1::date[])", {month_array(missing)});
    ensured_.insert(missing.begin(), missing.end());
  }

  void write(const Batch& b) {
    ensure_months(b.months);
    pg::Transaction tx(*db_);
    if (!b.sessions.empty()) db_->copy("COPY push_sessions FROM STDIN", b.sessions);
    if (!b.digests.empty()) db_->copy("COPY push_digests FROM STDIN", b.digests);
    if (!b.usage.empty()) db_->copy("COPY push_usage FROM STDIN", b.usage);
    if (!b.events.empty()) db_->copy("COPY push_events FROM STDIN", b.events);
    const auto staged = db_->query(kStagedUids);
    const std::string all(staged.text(0, 0));
    auto known =
        db_->query(kDropKnown, {report_.team, report_.host_id, all, options_.full ? "t" : "f"});
    const auto accepted = known.rows() > 0 ? db_->query(kStagedUids) : staged;
    for (const auto& clear : kClear)
      db_->query(clear.sql,
                 {report_.team, report_.host_id, std::string(accepted.text(0, clear.uids))});
    int64_t written[std::size(kWrite)];
    for (std::size_t i = 0; i < std::size(kWrite); ++i)
      written[i] = db_->query(kWrite[i], host_params()).affected();
    db_->query(kMoveMark, {report_.team, report_.host_id, report_.host_name, HELIX_VERSION,
                           std::to_string(b.last.version), b.last.uid});
    tx.commit();
    report_.unchanged += known.rows();
    report_.sessions += written[0];
    report_.usage_rows += written[1];
    report_.events += written[2];
    report_.digests += written[3];
    report_.bytes += static_cast<int64_t>(b.bytes());
    ++report_.batches;
  }

  // A push with nothing new still tells the fleet the host was here.
  void touch_host() {
    const ChangeMark mark = stored_mark();
    report_.mark = mark;
    db_->query(kMoveMark, {report_.team, report_.host_id, report_.host_name, HELIX_VERSION,
                           std::to_string(mark.version), mark.uid});
  }

  Store& store_;
  const FleetConfig& config_;
  const PushOptions& options_;
  std::unique_ptr<pg::Connection> db_;
  std::set<std::string> ensured_;
  PushReport report_;
};

}  // namespace

PushReport push_to_fleet(Store& store, const FleetConfig& config, const PushOptions& options) {
  return Pusher(store, config, options).run();
}

}  // namespace helix

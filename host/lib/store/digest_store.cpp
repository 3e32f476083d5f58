#include "store/digest_store.hpp"
#include "store/schema.hpp"

#include "model/tool_kinds.hpp"

#include "base/semver.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>
#include <set>
#include <stdexcept>

namespace helix {

namespace {

int64_t scalar(Database& db, const std::string& sql, const std::string& param = {}) {
  auto st = db.prepare(sql);
  if (!param.empty()) st.bind(1, param);
  st.step();
  return st.integer(0);
}

// The uids of sessions some configured digester may owe a digest (see digest_candidates).
std::set<std::string> owing_sessions(Database& db,
                                     const std::map<std::string, std::string>& majors) {
  std::set<std::string> uids;
  auto collect = [&](Statement& st) {
    while (st.step()) uids.insert(st.text(0));
  };
  {  // the partial index sessions_stale holds exactly these rows
    auto stale = db.prepare(
        "SELECT uid FROM sessions WHERE analyzed_at_ms IS NULL OR ingested_at_ms > "
        "analyzed_at_ms");
    collect(stale);
  }
  std::vector<std::pair<std::string, std::string>> other_majors;
  auto versions = db.prepare("SELECT DISTINCT digester, digester_version FROM digests");
  while (versions.step()) {
    auto it = majors.find(versions.text(0));
    if (it != majors.end() && major_version(versions.text(1)) != it->second)
      other_majors.emplace_back(versions.text(0), versions.text(1));
  }
  for (const auto& [digester, version] : other_majors) {
    auto st =
        db.prepare("SELECT session_uid FROM digests WHERE digester = ? AND digester_version = ?");
    st.bind(1, digester).bind(2, version);
    collect(st);
  }
  const int64_t sessions = scalar(db, "SELECT COUNT(*) FROM sessions");
  for (const auto& [digester, major] : majors) {
    if (scalar(db, "SELECT COUNT(*) FROM digests WHERE digester = ?", digester) >= sessions)
      continue;  // every session has one
    auto missing = db.prepare(R"sql(
      SELECT uid FROM sessions s WHERE NOT EXISTS
        (SELECT 1 FROM digests d WHERE d.session_uid = s.uid AND d.digester = ?))sql");
    missing.bind(1, digester);
    collect(missing);
  }
  return uids;
}

}  // namespace

std::vector<DigestCandidate> digest_candidates(Store& store,
                                               const std::map<std::string, std::string>& majors) {
  auto& db = store.database();
  std::vector<DigestCandidate> out;
  auto session = db.prepare(
      "SELECT COALESCE(ingested_at_ms, 0), evicted_at_ms IS NOT NULL FROM sessions WHERE uid = ?");
  auto digests = db.prepare(R"sql(
    SELECT digester, digester_version, digested_at_ms, base_state IS NOT NULL,
      state IS NOT NULL, covered_seq, covered_events, covered_untimed
    FROM digests WHERE session_uid = ?)sql");
  for (const auto& uid : owing_sessions(db, majors)) {
    DigestCandidate c;
    c.uid = uid;
    session.bind(1, uid);
    if (session.step()) {
      c.ingested_at_ms = session.integer(0);
      c.evicted = session.integer(1) != 0;
    }
    session.reset();
    digests.bind(1, uid);
    while (digests.step()) {
      DigestRow d;
      d.session_uid = uid;
      d.digester = digests.text(0);
      d.version = digests.text(1);
      d.digested_at_ms = digests.integer(2);
      d.has_base_state = digests.integer(3) != 0;
      d.has_state = digests.integer(4) != 0;
      if (!digests.is_null(5) && !digests.is_null(6) && !digests.is_null(7))
        d.covered = DigestCoverage{digests.integer(5), digests.integer(6), digests.integer(7)};
      c.digests[d.digester] = std::move(d);
    }
    digests.reset();
    out.push_back(std::move(c));
  }
  return out;
}

std::optional<std::string> base_state(Store& store, const std::string& uid,
                                      const std::string& digester) {
  auto st = store.database().cached(
      "SELECT base_state FROM digests WHERE session_uid = ? AND digester = ? AND base_state IS "
      "NOT NULL");
  st->bind(1, uid).bind(2, digester);
  if (!st->step()) return std::nullopt;
  return st->blob(0);
}

std::optional<std::string> saved_state(Store& store, const std::string& uid,
                                       const std::string& digester) {
  auto st = store.database().cached(
      "SELECT state FROM digests WHERE session_uid = ? AND digester = ? AND state IS NOT NULL");
  st->bind(1, uid).bind(2, digester);
  if (!st->step()) return std::nullopt;
  return st->blob(0);
}

namespace {

constexpr const char* kCoverageCount = R"sql(
  SELECT COUNT(*), COUNT(*) - COUNT(ts_ms) FROM events
  WHERE session_uid = ? AND shadowed = 0 AND seq <= ?)sql";

}  // namespace

bool coverage_intact(Store& store, const std::string& uid, const DigestCoverage& covered) {
  auto st = store.database().cached(kCoverageCount);
  st->bind(1, uid).bind(2, covered.seq);
  st->step();
  return st->integer(0) == covered.events && st->integer(1) == covered.untimed;
}

std::vector<StoredUsage> session_usage(Store& store, const std::string& uid) {
  auto lease = store.database().cached(R"sql(
    SELECT key, COALESCE(model, ''), COALESCE(ts_ms, 0), source_offset, input_tokens,
      output_tokens, cache_read_tokens, cache_creation_tokens, reasoning_tokens, is_sidechain,
      COALESCE(cost_usd, -1), cache_creation_1h_tokens
    FROM usage WHERE session_uid = ? ORDER BY COALESCE(ts_ms, 0), key)sql");
  Statement& st = *lease;
  st.bind(1, uid);
  std::vector<StoredUsage> out;
  while (st.step()) {
    StoredUsage u;
    u.key = st.text(0);
    u.model = st.text(1);
    u.ts_ms = st.integer(2);
    u.source_offset = st.integer(3);
    u.input_tokens = st.integer(4);
    u.output_tokens = st.integer(5);
    u.cache_read_tokens = st.integer(6);
    u.cache_creation_tokens = st.integer(7);
    u.reasoning_tokens = st.integer(8);
    u.is_sidechain = st.integer(9) != 0;
    u.cost_usd = st.real(10);
    u.cache_creation_1h_tokens = st.integer(11);
    out.push_back(std::move(u));
  }
  return out;
}

namespace {

// A store last written by a helix-host without Tier 2 (schema version 1) has no digests yet.
void require_tier2(Store& store) {
  auto st_lease = store.database().cached(
      "SELECT COUNT(*) FROM sqlite_schema WHERE name IN ('digests', 'usage_days')");
  Statement& st = *st_lease;
  st.step();
  if (st.integer(0) < 2)
    throw std::runtime_error(fmt::format(
        "the store {} has no digests yet (it predates them); run 'helix-host sweep' first",
        store.path().string()));
}

}  // namespace

std::optional<DigestRow> find_digest(Store& store, const std::string& uid,
                                     const std::string& digester) {
  require_tier2(store);
  auto st_lease = store.database().cached(
      "SELECT digester_version, digested_at_ms, json FROM digests WHERE session_uid = ? AND "
      "digester = ?");
  Statement& st = *st_lease;
  st.bind(1, uid).bind(2, digester);
  if (!st.step()) return std::nullopt;
  DigestRow row;
  row.session_uid = uid;
  row.digester = digester;
  row.version = st.text(0);
  row.json = st.text(2);
  row.digested_at_ms = st.integer(1);
  return row;
}

namespace {

// One usage_days row's values: a session's calls and tokens on one day with one model, what
// the price book makes of them, and what the agent said they cost.
struct UsageDay {
  int64_t calls = 0, input = 0, output = 0, cache_read = 0, cache_creation = 0, reasoning = 0;
  double cost = 0;                   // the priced calls, at the book's prices
  std::optional<double> agent_cost;  // none when the agent reported no cost
  int64_t unpriced = 0;              // tokens of calls the book has no price for
  bool operator==(const UsageDay&) const = default;
  void add_agent_cost(double usd) { agent_cost = agent_cost.value_or(0) + usd; }
};
using UsageDays = std::map<std::pair<std::string, std::string>, UsageDay>;  // (day, model)

// The day of a call: its own (UTC), else the session's first day.
constexpr const char* kCallDay = R"sql(
  COALESCE(strftime('%Y-%m-%d', u.ts_ms / 1000, 'unixepoch'),
           strftime('%Y-%m-%d', s.started_at_ms / 1000, 'unixepoch'), 'unknown'))sql";

// The session's usage_days rows as its usage ledger (kept across eviction) gives them, so
// never double counted, each call priced with `book` (a call that names no model, with the
// session's). An agent's running totals (agent_costs) go to the last day of their model.
UsageDays ledger_days(Database& db, const std::string& uid, UsagePricer& prices) {
  static const std::string calls_sql = fmt::format(R"sql(
    SELECT {}, COALESCE(u.model, ''), COALESCE(s.model, ''), u.input_tokens, u.output_tokens,
      u.cache_read_tokens, u.cache_creation_tokens, u.cache_creation_1h_tokens,
      u.reasoning_tokens, u.cost_usd
    FROM usage u JOIN sessions s ON s.uid = u.session_uid WHERE u.session_uid = ?)sql",
                                                   kCallDay);
  auto st = db.cached(calls_sql);
  st->bind(1, uid);
  UsageDays out;
  std::map<std::string, std::string> last_day;  // model -> its last day
  while (st->step()) {
    const std::string day = st->text(0), model = st->text(1);
    UsageDay& d = out[{day, model}];
    const CallTokens call{st->integer(3), st->integer(4), st->integer(5), st->integer(6),
                          st->integer(7)};
    ++d.calls;
    d.input += call.input;
    d.output += call.output;
    d.cache_read += call.cache_read;
    d.cache_creation += call.cache_write;
    d.reasoning += st->integer(8);
    if (!st->is_null(9)) d.add_agent_cost(st->real(9));
    if (const ModelPrice* price = prices.find(model.empty() ? st->text(2) : model))
      d.cost += price->cost(call);
    else
      d.unpriced += call.billed();
    last_day[model] = std::max(last_day[model], day);
  }
  auto totals = db.cached(R"sql(
    SELECT COALESCE(a.model, ''), a.cost_usd,
      COALESCE(strftime('%Y-%m-%d', s.started_at_ms / 1000, 'unixepoch'), 'unknown')
    FROM agent_costs a JOIN sessions s ON s.uid = a.session_uid WHERE a.session_uid = ?)sql");
  totals->bind(1, uid);
  while (totals->step()) {
    const std::string model = totals->text(0);
    std::string day;  // the model's last day, else the session's last, else its first
    if (auto it = last_day.find(model); it != last_day.end())
      day = it->second;
    else
      for (const auto& [m, d] : last_day) day = std::max(day, d);
    out[{day.empty() ? totals->text(2) : day, model}].add_agent_cost(totals->real(1));
  }
  return out;
}

UsageDays stored_days(Database& db, const std::string& uid) {
  auto st = db.cached(R"sql(
    SELECT day, model, calls, input_tokens, output_tokens, cache_read_tokens,
      cache_creation_tokens, reasoning_tokens, cost_usd, agent_cost_usd, unpriced_tokens
    FROM usage_days WHERE session_uid = ?)sql");
  st->bind(1, uid);
  UsageDays out;
  while (st->step()) {
    UsageDay& d = out[{st->text(0), st->text(1)}];
    d.calls = st->integer(2);
    d.input = st->integer(3);
    d.output = st->integer(4);
    d.cache_read = st->integer(5);
    d.cache_creation = st->integer(6);
    d.reasoning = st->integer(7);
    d.cost = st->is_null(8) ? 0 : st->real(8);
    if (!st->is_null(9)) d.agent_cost = st->real(9);
    d.unpriced = st->integer(10);
  }
  return out;
}

// Brings the session's usage_days rows to `fresh`, writing only the rows that differ: the
// rollup triggers then mark only the days whose totals changed, and a grown session's
// earlier days are neither rewritten nor summed again. The session row gets the totals.
bool write_usage_days(Database& db, const std::string& uid, const UsageDays& fresh) {
  const UsageDays stored = stored_days(db, uid);
  if (stored == fresh) return false;
  auto remove = db.cached("DELETE FROM usage_days WHERE session_uid = ? AND day = ? AND model = ?");
  for (const auto& [key, day] : stored)
    if (!fresh.count(key)) remove->bind(1, uid).bind(2, key.first).bind(3, key.second).run();
  // An UPDATE and an INSERT, not an upsert: an upsert's conflict handling would override the
  // OR IGNORE of the rollup triggers' own inserts.
  auto update = db.cached(R"sql(
    UPDATE usage_days SET calls = ?4, input_tokens = ?5, output_tokens = ?6,
      cache_read_tokens = ?7, cache_creation_tokens = ?8, reasoning_tokens = ?9, cost_usd = ?10,
      agent_cost_usd = ?11, unpriced_tokens = ?12
    WHERE session_uid = ?1 AND day = ?2 AND model = ?3)sql");
  auto insert = db.cached(R"sql(
    INSERT INTO usage_days (session_uid, day, model, calls, input_tokens, output_tokens,
      cache_read_tokens, cache_creation_tokens, reasoning_tokens, cost_usd, agent_cost_usd,
      unpriced_tokens)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?))sql");
  UsageDay total;
  for (const auto& [key, day] : fresh) {
    total.cost += day.cost;
    total.unpriced += day.unpriced;
    if (day.agent_cost) total.add_agent_cost(*day.agent_cost);
    auto it = stored.find(key);
    if (it != stored.end() && it->second == day) continue;
    Statement& put = it == stored.end() ? *insert : *update;
    put.bind(1, uid)
        .bind(2, key.first)
        .bind(3, key.second)
        .bind(4, day.calls)
        .bind(5, day.input)
        .bind(6, day.output)
        .bind(7, day.cache_read)
        .bind(8, day.cache_creation)
        .bind(9, day.reasoning)
        .bind(10, day.cost)
        .bind(12, day.unpriced);
    if (day.agent_cost)
      put.bind(11, *day.agent_cost);
    else
      put.bind_null(11);
    put.run();
  }
  auto session = db.cached(
      "UPDATE sessions SET cost_usd = ?, agent_cost_usd = ?, unpriced_tokens = ? WHERE uid = ?");
  if (fresh.empty())
    session->bind_null(1);
  else
    session->bind(1, total.cost);
  if (total.agent_cost)
    session->bind(2, *total.agent_cost);
  else
    session->bind_null(2);
  session->bind(3, total.unpriced).bind(4, uid).run();
  return true;
}

}  // namespace

const ModelPrice* UsagePricer::find(const std::string& model) {
  auto it = found_.find(model);
  if (it == found_.end()) it = found_.emplace(model, book_.find(model)).first;
  return it->second;
}

bool UsagePricer::price_session(Store& store, const std::string& uid) {
  Database& db = store.database();
  return write_usage_days(db, uid, ledger_days(db, uid, *this));
}

namespace {

// The session's tool calls, and the agent-plumbing ones among them, from its visible events.
void count_tool_calls(Database& db, const std::string& uid) {
  auto st = db.cached(R"sql(
    SELECT COALESCE(tool, ''), COUNT(*) FROM events WHERE session_uid = ? AND shadowed = 0
      AND kind IN ('tool_call', 'test_run', 'edit') GROUP BY 1)sql");
  st->bind(1, uid);
  int64_t calls = 0, infra = 0;
  while (st->step()) {
    calls += st->integer(1);
    if (is_infra_tool(st->text(0))) infra += st->integer(1);
  }
  db.cached("UPDATE sessions SET tool_calls = ?, infra_tool_calls = ? WHERE uid = ?")
      ->bind(1, calls)
      .bind(2, infra)
      .bind(3, uid)
      .run();
}

// The session fields the host keeps from the primary digest: its outcome and task_ref.
void apply_primary(Database& db, const std::string& uid, const boost::json::object& o) {
  auto text = [&](const char* key) -> std::string {
    auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
  };
  auto session = db.cached(
      "UPDATE sessions SET outcome = COALESCE(NULLIF(?, ''), outcome), task_ref = ? WHERE uid = ?");
  session->bind(1, text("outcome")).bind_text_or_null(2, text("task_ref")).bind(3, uid).run();
}

}  // namespace

namespace {

// Digest rows wait here until flush_digests (one statement for the batch, see the header).
// A temporary table: the connection's own, rolled back with the caller's transaction.
void stage_digests(Database& db, const std::string& uid, const std::vector<DigestRow>& fresh,
                   int64_t now_ms) {
  // Compiled once per connection (cached), run per session: a rollback may have dropped it.
  db.cached(R"sql(
    CREATE TEMP TABLE IF NOT EXISTS digests_staged (session_uid TEXT NOT NULL,
      digester TEXT NOT NULL, digester_version TEXT NOT NULL, digested_at_ms INTEGER NOT NULL,
      json TEXT NOT NULL, state BLOB, covered_seq INTEGER, covered_events INTEGER,
      covered_untimed INTEGER))sql")
      ->run();
  auto put = db.cached(R"sql(
    INSERT INTO temp.digests_staged (session_uid, digester, digester_version, digested_at_ms,
      json, state, covered_seq, covered_events, covered_untimed)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?))sql");
  auto count = db.cached(kCoverageCount);
  for (const auto& d : fresh) {
    put->bind(1, uid).bind(2, d.digester).bind(3, d.version).bind(4, now_ms).bind(5, d.json);
    if (d.state.empty())
      put->bind_null(6);
    else
      put->bind_blob(6, d.state);
    if (d.state.empty() || !d.covered) {
      for (int i = 7; i <= 9; ++i) put->bind_null(i);
    } else {
      count->bind(1, uid).bind(2, d.covered->seq);
      count->step();
      put->bind(7, d.covered->seq).bind(8, count->integer(0)).bind(9, count->integer(1));
      count->reset();
    }
    put->run();
  }
}

}  // namespace

void flush_digests(Database& db) {
  auto staged =
      db.cached("SELECT EXISTS (SELECT 1 FROM temp.sqlite_schema WHERE name = 'digests_staged')");
  staged->step();
  if (staged->integer(0) == 0) return;
  staged->reset();
  db.exec(R"sql(
    INSERT INTO digests (session_uid, digester, digester_version, digested_at_ms, json, state,
      covered_seq, covered_events, covered_untimed)
    SELECT session_uid, digester, digester_version, digested_at_ms, json, state, covered_seq,
      covered_events, covered_untimed
    FROM temp.digests_staged WHERE true ORDER BY rowid
    ON CONFLICT (session_uid, digester) DO UPDATE SET digester_version = excluded.digester_version,
      digested_at_ms = excluded.digested_at_ms, json = excluded.json,
      state = excluded.state, covered_seq = excluded.covered_seq,
      covered_events = excluded.covered_events, covered_untimed = excluded.covered_untimed;
    DELETE FROM temp.digests_staged;)sql");
}

void write_digests(Store& store, const std::string& uid, const std::vector<DigestRow>& fresh,
                   const std::optional<std::string>& primary_json, int64_t now_ms,
                   UsagePricer& prices) {
  auto& db = store.database();
  const bool own_transaction = !db.in_transaction();
  Savepoint tx(db);  // its own transaction, or a part of the digest pass's batch
  stage_digests(db, uid, fresh, now_ms);
  auto analyzed_lease = db.cached(
      "UPDATE sessions SET analyzed_at_ms = ? WHERE uid = ? RETURNING evicted_at_ms IS NULL");
  Statement& analyzed = *analyzed_lease;
  analyzed.bind(1, now_ms).bind(2, uid);
  // An evicted session keeps the counts of its events from before eviction.
  const bool kept = analyzed.step() && analyzed.integer(0) != 0;
  analyzed.reset();
  if (kept) count_tool_calls(db, uid);
  if (primary_json) {
    boost::system::error_code ec;
    auto doc = boost::json::parse(*primary_json, ec);
    if (!ec && doc.is_object()) apply_primary(db, uid, doc.get_object());
  }
  prices.price_session(store, uid);
  if (own_transaction) flush_digests(db);
  tx.release();
}

std::vector<DigestRow> session_digests(Store& store, const std::string& uid) {
  auto st = store.database().prepare(
      "SELECT digester, digester_version, json, digested_at_ms FROM digests "
      "WHERE session_uid = ? ORDER BY digester");
  st.bind(1, uid);
  std::vector<DigestRow> out;
  while (st.step()) {
    DigestRow row;
    row.session_uid = uid;
    row.digester = st.text(0);
    row.version = st.text(1);
    row.json = st.text(2);
    row.digested_at_ms = st.integer(3);
    out.push_back(std::move(row));
  }
  return out;
}

void refresh_usage_rollup(Store& store) {
  Database& db = store.database();
  Savepoint tx(db);  // its own transaction, or a part of the caller's
  db.exec(R"sql(
    DELETE FROM usage_rollup WHERE day IN (SELECT day FROM usage_rollup_stale);
    INSERT INTO usage_rollup (day, model, flavor, calls, input_tokens, output_tokens,
      cache_read_tokens, cache_creation_tokens, reasoning_tokens, cost_usd, agent_cost_usd,
      unpriced_tokens)
    SELECT d.day, d.model, s.flavor, SUM(d.calls), SUM(d.input_tokens), SUM(d.output_tokens),
      SUM(d.cache_read_tokens), SUM(d.cache_creation_tokens), SUM(d.reasoning_tokens),
      TOTAL(d.cost_usd), SUM(d.agent_cost_usd), SUM(d.unpriced_tokens)
    FROM usage_days d JOIN sessions s ON s.uid = d.session_uid
    WHERE d.day IN (SELECT day FROM usage_rollup_stale)
    GROUP BY d.day, d.model, s.flavor;
    DELETE FROM usage_rollup_stale;)sql");
  tx.release();
}

namespace {

// Costs priced by the host (schema 12): agent costs and unpriced tokens are there.
bool host_costs(Database& db) { return user_version(db) >= 12; }

// The rollup is current when it exists (a read-only open does not migrate an older store) and
// no day awaits a refresh (the digest pass refreshes at its end; a crash may leave some).
bool rollup_current(Database& db) {
  auto st = db.prepare(R"sql(
    SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE name = 'usage_rollup_stale'))sql");
  st.step();
  if (st.integer(0) == 0) return false;
  auto stale = db.prepare("SELECT EXISTS (SELECT 1 FROM usage_rollup_stale)");
  stale.step();
  return stale.integer(0) == 0;
}

// The grouping key of `by` in usage_days joined with sessions, and in usage_rollup ("" when
// the rollup cannot answer it).
struct UsageKey {
  const char* joined;
  const char* rollup;
};

}  // namespace

std::vector<UsageLine> usage_report(Store& store, const std::string& by,
                                    const std::string& since_day, const std::string& flavor,
                                    UsageSource source, const std::string& until_day) {
  static const std::map<std::string, UsageKey> kKeys = {{"day", {"d.day", "day"}},
                                                        {"session", {"d.session_uid", ""}},
                                                        {"model", {"d.model", "model"}},
                                                        {"repo", {"COALESCE(s.repo, '')", ""}},
                                                        {"flavor", {"s.flavor", "flavor"}}};
  require_tier2(store);
  auto key = kKeys.find(by);
  if (key == kKeys.end())
    throw std::invalid_argument(
        fmt::format("--by must be day, session, model, repo or flavor, not '{}'", by));
  auto& db = store.database();
  const bool from_rollup = source == UsageSource::rollup_when_current &&
                           *key->second.rollup != '\0' && rollup_current(db);
  // Read-only commands do not migrate: a store older than 12 has no agent costs or unpriced
  // tokens.
  const char* extra = !host_costs(db) ? "NULL, 0"
                      : from_rollup   ? "SUM(agent_cost_usd), SUM(unpriced_tokens)"
                                      : "SUM(d.agent_cost_usd), SUM(d.unpriced_tokens)";
  auto st = db.prepare(from_rollup ? fmt::format(R"sql(
    SELECT {0}, SUM(input_tokens), SUM(output_tokens), SUM(cache_creation_tokens),
      SUM(cache_read_tokens), SUM(reasoning_tokens), SUM(calls), TOTAL(cost_usd), {1}
    FROM usage_rollup
    WHERE day >= ?1 AND (?3 = '' OR day <= ?3) AND (?2 = '' OR flavor = ?2)
    GROUP BY 1 ORDER BY 1)sql",
                                                 key->second.rollup, extra)
                                   : fmt::format(R"sql(
    SELECT {0}, SUM(d.input_tokens), SUM(d.output_tokens), SUM(d.cache_creation_tokens),
      SUM(d.cache_read_tokens), SUM(d.reasoning_tokens), SUM(d.calls), TOTAL(d.cost_usd), {1}
    FROM usage_days d JOIN sessions s ON s.uid = d.session_uid
    WHERE d.day >= ?1 AND (?3 = '' OR d.day <= ?3) AND (?2 = '' OR s.flavor = ?2)
    GROUP BY 1 ORDER BY 1)sql",
                                                 key->second.joined, extra));
  st.bind(1, since_day).bind(2, flavor).bind(3, until_day);
  std::vector<UsageLine> out;
  while (st.step()) {
    UsageLine l;
    l.key = st.text(0);
    l.input_tokens = st.integer(1);
    l.output_tokens = st.integer(2);
    l.cache_creation_tokens = st.integer(3);
    l.cache_read_tokens = st.integer(4);
    l.reasoning_tokens = st.integer(5);
    l.calls = st.integer(6);
    l.cost_usd = st.real(7);
    if (!st.is_null(8)) l.agent_cost_usd = st.real(8);
    l.unpriced_tokens = st.integer(9);
    out.push_back(std::move(l));
  }
  return out;
}

std::vector<UnpricedModel> unpriced_models(Store& store, const std::string& since_day,
                                           const std::string& flavor,
                                           const std::string& until_day) {
  require_tier2(store);
  auto& db = store.database();
  if (!host_costs(db)) return {};
  auto st = db.prepare(rollup_current(db) ? R"sql(
    SELECT model, SUM(unpriced_tokens) FROM usage_rollup
    WHERE day >= ?1 AND (?3 = '' OR day <= ?3) AND (?2 = '' OR flavor = ?2)
      AND unpriced_tokens > 0
    GROUP BY 1 ORDER BY 2 DESC, 1)sql"
                                          : R"sql(
    SELECT d.model, SUM(d.unpriced_tokens) FROM usage_days d
    JOIN sessions s ON s.uid = d.session_uid
    WHERE d.day >= ?1 AND (?3 = '' OR d.day <= ?3) AND (?2 = '' OR s.flavor = ?2)
      AND d.unpriced_tokens > 0
    GROUP BY 1 ORDER BY 2 DESC, 1)sql");
  st.bind(1, since_day).bind(2, flavor).bind(3, until_day);
  std::vector<UnpricedModel> out;
  while (st.step()) out.push_back({st.text(0), st.integer(1)});
  return out;
}

std::vector<UsageDayCost> session_usage_days(Store& store, const std::string& uid) {
  if (!host_costs(store.database())) return {};
  auto st = store.database().cached(
      "SELECT day, model, COALESCE(cost_usd, 0), agent_cost_usd FROM usage_days "
      "WHERE session_uid = ? ORDER BY day, model");
  st->bind(1, uid);
  std::vector<UsageDayCost> out;
  while (st->step()) {
    UsageDayCost d{st->text(0), st->text(1), st->real(2), std::nullopt};
    if (!st->is_null(3)) d.agent_cost_usd = st->real(3);
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<UsageCell> usage_cells(Store& store, const std::string& since_day,
                                   const std::string& until_day) {
  require_tier2(store);
  auto st = store.database().prepare(R"sql(
    SELECT d.day, d.model, s.flavor, COALESCE(s.repo, ''), SUM(d.input_tokens),
      SUM(d.output_tokens), SUM(d.cache_creation_tokens), SUM(d.cache_read_tokens),
      SUM(d.reasoning_tokens), SUM(d.calls), TOTAL(d.cost_usd)
    FROM usage_days d JOIN sessions s ON s.uid = d.session_uid
    WHERE d.day >= ?1 AND (?2 = '' OR d.day <= ?2)
    GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4)sql");
  st.bind(1, since_day).bind(2, until_day);
  std::vector<UsageCell> out;
  while (st.step()) {
    UsageCell c{st.text(0), st.text(1), st.text(2), st.text(3), {}};
    c.totals.input_tokens = st.integer(4);
    c.totals.output_tokens = st.integer(5);
    c.totals.cache_creation_tokens = st.integer(6);
    c.totals.cache_read_tokens = st.integer(7);
    c.totals.reasoning_tokens = st.integer(8);
    c.totals.calls = st.integer(9);
    c.totals.cost_usd = st.real(10);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<UnpricedModel> session_unpriced_models(Store& store, const std::string& uid) {
  if (!host_costs(store.database())) return {};
  auto st = store.database().cached(R"sql(
    SELECT model, SUM(unpriced_tokens) FROM usage_days
    WHERE session_uid = ? AND unpriced_tokens > 0 GROUP BY 1 ORDER BY 2 DESC, 1)sql");
  st->bind(1, uid);
  std::vector<UnpricedModel> out;
  while (st->step()) out.push_back({st->text(0), st->integer(1)});
  return out;
}

}  // namespace helix

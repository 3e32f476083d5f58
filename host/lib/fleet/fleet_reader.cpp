#include "fleet/fleet_reader.hpp"

#include "fleet/fleet_connection.hpp"
#include "fleet/fleet_schema.hpp"
#include "fleet/pg.hpp"
#include "fleet/pg_text.hpp"

#include <fmt/format.h>

#include <map>
#include <stdexcept>

namespace helix {
namespace {

// A timestamptz column as Unix ms (NULL reads as 0, "unknown", as in the local store).
std::string ms(std::string_view column) {
  return fmt::format("(extract(epoch FROM {}) * 1000)::bigint", column);
}

// A Unix ms parameter as timestamptz.
std::string at(std::string_view param) {
  return fmt::format("('epoch'::timestamptz + {}::bigint * interval '1 ms')", param);
}

std::string text_at(const pg::Result& r, int row, int column) {
  return from_pg_text(r.text(row, column));
}

// The session columns read_session expects, from `s` (helix_fleet.sessions) and `h` (hosts).
std::string session_columns() {
  return fmt::format(
      "s.session_uid, s.flavor, s.native_id, s.parent_uid, s.repo, s.domain, s.cwd, "
      "s.git_branch, s.model, s.title, s.agent_version, s.outcome, s.task_ref, s.title_source, "
      "{}, {}, {}, {}, {}, {}, s.event_count, s.turns, s.retries, s.source_bytes, s.redactions, "
      "s.input_tokens, s.output_tokens, s.cache_read_tokens, s.cache_creation_tokens, "
      "s.reasoning_tokens, s.usage_cost_usd, s.team, s.host_id, coalesce(h.host_name, ''), "
      "s.member, {}, s.version, s.cost_usd, s.agent_cost_usd, s.unpriced_tokens, s.tool_calls, "
      "s.infra_tool_calls",
      ms("s.started_at"), ms("s.ended_at"), ms("s.discovered_at"), ms("s.ingested_at"),
      ms("s.analyzed_at"), ms("s.evicted_at"), ms("s.pushed_at"));
}

constexpr const char* kSessionJoin =
    "helix_fleet.sessions s LEFT JOIN helix_fleet.hosts h ON h.team = s.team AND "
    "h.host_id = s.host_id";

FleetSession read_session(const pg::Result& r, int i) {
  FleetSession f;
  SessionRow& s = f.row;
  std::string* texts[] = {&s.uid,           &s.flavor,  &s.native_id,  &s.parent_uid, &s.repo,
                          &s.domain,        &s.cwd,     &s.git_branch, &s.model,      &s.title,
                          &s.agent_version, &s.outcome, &s.task_ref};
  for (int c = 0; c < 13; ++c) *texts[c] = text_at(r, i, c);
  s.title_derived = r.text(i, 13) == "first_prompt";
  int64_t* ints[] = {&s.started_at_ms,
                     &s.ended_at_ms,
                     &s.discovered_at_ms,
                     &s.ingested_at_ms,
                     &s.analyzed_at_ms,
                     &s.evicted_at_ms,
                     &s.event_count,
                     &s.turns,
                     &s.retries,
                     &s.source_bytes,
                     &s.redactions,
                     &s.usage.input_tokens,
                     &s.usage.output_tokens,
                     &s.usage.cache_read_tokens,
                     &s.usage.cache_creation_tokens,
                     &s.usage.reasoning_tokens};
  for (int c = 0; c < 16; ++c) *ints[c] = r.integer(i, 14 + c);
  s.usage.cost_usd = r.real(i, 30);
  s.schema_version = 1;
  f.origin = {text_at(r, i, 31), text_at(r, i, 32), text_at(r, i, 33), text_at(r, i, 34)};
  f.pushed_at_ms = r.integer(i, 35);
  f.version = r.integer(i, 36);
  if (!r.is_null(i, 37)) s.cost_usd = r.real(i, 37);
  if (!r.is_null(i, 38)) s.agent_cost_usd = r.real(i, 38);
  s.unpriced_tokens = r.integer(i, 39);
  s.tool_calls = r.integer(i, 40);
  s.infra_tool_calls = r.integer(i, 41);
  return f;
}

struct UsageKey {
  const char* column;
  bool prunes_by_month;  // grouping by month can still use the month filter
};

}  // namespace

FleetReader::FleetReader(const FleetConfig& config)
    : config_(config), db_(connect_fleet(config, /*need_team=*/true)) {
  require_fleet_schema(*db_);
}

FleetReader::~FleetReader() = default;

std::vector<FleetUsageLine> FleetReader::usage(const std::string& by, const std::string& since_day,
                                               const std::string& flavor, const std::string& repo) {
  static const std::map<std::string, std::string> kKeys = {{"day", "u.day"},
                                                           {"month", "to_char(u.month, 'YYYY-MM')"},
                                                           {"session", "u.session_uid"},
                                                           {"model", "u.model"},
                                                           {"repo", "coalesce(u.repo, '')"},
                                                           {"flavor", "u.flavor"},
                                                           {"host", "u.host_id"},
                                                           {"member", "u.member"}};
  auto key = kKeys.find(by);
  if (key == kKeys.end())
    throw std::invalid_argument(fmt::format(
        "--by must be day, month, session, model, repo, flavor, host or member, not '{}'", by));
  // The month filter lets PostgreSQL read only the partitions from `since_day`'s month on (and
  // 1970-01, where the 'unknown' day of sessions without a time lives: local usage counts it
  // for any --since, since it compares day strings).
  const std::string month_filter =
      since_day.empty() ? ""
                        : "AND (u.month >= date_trunc('month', $2::date) OR u.month = "
                          "'1970-01-01')";
  const std::string sql = fmt::format(
      R"sql(SELECT {0}, sum(u.input_tokens), sum(u.output_tokens), sum(u.cache_creation_tokens),
        sum(u.cache_read_tokens), sum(u.reasoning_tokens), sum(u.calls),
        coalesce(sum(u.cost_usd), 0), {1}, sum(u.agent_cost_usd), sum(u.unpriced_tokens)
      FROM helix_fleet.usage_days u
      WHERE u.team = $1 AND u.day >= $2 AND ($3 = '' OR u.flavor = $3)
        AND ($4 = '' OR u.repo = $4) {2}
      GROUP BY 1 ORDER BY 1)sql",
      key->second,
      by == "host" ? "(SELECT h.host_name FROM helix_fleet.hosts h WHERE h.team = $1 AND "
                     "h.host_id = u.host_id)"
                   : "''",
      month_filter);
  auto r = db_->query(
      sql, {config_.team, since_day.empty() ? std::string() : since_day, flavor, to_pg_text(repo)});
  std::vector<FleetUsageLine> out;
  for (int i = 0; i < r.rows(); ++i) {
    FleetUsageLine f;
    UsageLine& l = f.line;
    l.key = text_at(r, i, 0);
    l.input_tokens = r.integer(i, 1);
    l.output_tokens = r.integer(i, 2);
    l.cache_creation_tokens = r.integer(i, 3);
    l.cache_read_tokens = r.integer(i, 4);
    l.reasoning_tokens = r.integer(i, 5);
    l.calls = r.integer(i, 6);
    l.cost_usd = r.real(i, 7);
    f.host_name = text_at(r, i, 8);
    if (!r.is_null(i, 9)) l.agent_cost_usd = r.real(i, 9);
    l.unpriced_tokens = r.integer(i, 10);
    out.push_back(std::move(f));
  }
  return out;
}

void FleetReader::for_each_session(const SessionFilter& filter,
                                   const std::function<void(const FleetSession&)>& visit) {
  // As local listing: --since is activity, --until the start; the newest first when asked, so
  // that a limit keeps the newest.
  const std::string sql = fmt::format(
      R"sql(SELECT {0} FROM {1}
      WHERE s.team = $1 AND ($2 = '' OR s.flavor = $2) AND ($3 = '' OR s.repo = $3)
        AND ($4::bigint = 0 OR coalesce(s.ended_at, s.started_at) >= {2})
        AND ($5::bigint = {3} OR s.started_at <= {4})
      ORDER BY s.started_at {5}, s.session_uid, s.host_id
      {6})sql",
      session_columns(), kSessionJoin, at("$4"), INT64_MAX, at("$5"),
      filter.newest_first ? "DESC NULLS LAST" : "NULLS FIRST", filter.limit >= 0 ? "LIMIT $6" : "");
  std::vector<pg::Param> params = {config_.team, filter.flavor, filter.repo,
                                   std::to_string(filter.since_ms),
                                   std::to_string(filter.until_ms)};
  const std::string limit_text = std::to_string(filter.limit);
  if (filter.limit >= 0) params.push_back(limit_text);
  db_->query_each(sql, params, [&](const pg::Result& row) { visit(read_session(row, 0)); });
}

std::vector<FleetHit> FleetReader::search(const SearchQuery& q) {
  // Ranked first over the matches (ts_rank), then snippets for the few kept: ts_headline
  // re-reads each text, so it runs on `limit` rows only. The session is joined while ranking
  // only when a filter needs it (a lookup per match otherwise).
  const bool filtered = !q.flavor.empty() || !q.repo.empty() || q.since_ms > 0;
  const std::string session_join =
      "JOIN helix_fleet.sessions s ON s.team = {0}.team AND s.host_id = {0}.host_id AND "
      "s.session_uid = {0}.session_uid AND s.month = {0}.month";
  const std::string session_filter =
      "AND ($4 = '' OR s.flavor = $4) AND ($5 = '' OR s.repo = $5) AND ($6::bigint = 0 OR {} >= "
      "{})";
  const std::string sql = fmt::format(
      R"sql(
WITH q AS (SELECT websearch_to_tsquery('simple', $2) AS query, $4::text AS flavor,
                  $5::text AS repo, $6::bigint AS since_ms),
hits AS (
  (SELECT e.host_id, e.session_uid, e.month, e.seq, e.kind, e.tool, {0} AS ts_ms, e.member,
          ts_rank(e.search, q.query) AS score
   FROM helix_fleet.events e {2}, q
   WHERE e.team = $1 AND e.search @@ q.query AND $3 <> 'digest' AND ($3 = '' OR e.kind = $3)
     {3})
  UNION ALL
  (SELECT d.host_id, d.session_uid, d.month, NULL, 'digest', NULL, NULL, d.member,
          ts_rank(d.search, q.query)
   FROM helix_fleet.digests d {4}, q
   WHERE d.team = $1 AND d.search @@ q.query AND ($3 = '' OR $3 = 'digest') AND NOT d.has_events
     {5})
  ORDER BY score DESC, session_uid, seq LIMIT $7)
SELECT hits.session_uid, s.flavor, s.repo, s.title, hits.kind, hits.tool,
  ts_headline('simple', coalesce(left(e.text, 32768), d.search_text, ''), q.query, $8),
  coalesce(hits.ts_ms, {1}), coalesce(hits.seq, -1), -hits.score, hits.host_id,
  coalesce(h.host_name, ''), hits.member
FROM hits CROSS JOIN q
JOIN helix_fleet.sessions s ON s.team = $1 AND s.host_id = hits.host_id
  AND s.session_uid = hits.session_uid AND s.month = hits.month
LEFT JOIN helix_fleet.hosts h ON h.team = $1 AND h.host_id = hits.host_id
LEFT JOIN helix_fleet.events e ON hits.seq IS NOT NULL AND e.team = $1
  AND e.host_id = hits.host_id AND e.session_uid = hits.session_uid AND e.month = hits.month
  AND e.seq = hits.seq
LEFT JOIN LATERAL (SELECT string_agg(x.search_text, ' ') AS search_text
                   FROM helix_fleet.digests x
                   WHERE hits.seq IS NULL AND x.team = $1 AND x.host_id = hits.host_id
                     AND x.session_uid = hits.session_uid AND x.month = hits.month) d ON true
ORDER BY hits.score DESC, hits.session_uid, hits.seq)sql",
      ms("e.ts"), ms("s.ended_at"), filtered ? fmt::format(fmt::runtime(session_join), "e") : "",
      filtered ? fmt::format(fmt::runtime(session_filter), "e.ts", at("$6")) : "",
      filtered ? fmt::format(fmt::runtime(session_join), "d") : "",
      filtered ? fmt::format(fmt::runtime(session_filter), "s.ended_at", at("$6")) : "");
  // Several digesters of one session are one hit, as in local search.
  const std::string headline =
      fmt::format("StartSel=\"{}\", StopSel=\"{}\", MaxWords=16, MinWords=6, MaxFragments=1",
                  q.mark_open, q.mark_close);
  auto r = db_->query(sql, {config_.team, to_pg_text(q.match), q.kind, q.flavor, q.repo,
                            std::to_string(q.since_ms), std::to_string(q.limit), headline});
  std::vector<FleetHit> out;
  std::map<std::pair<std::string, std::string>, bool> digest_seen;
  for (int i = 0; i < r.rows(); ++i) {
    FleetHit f;
    SearchHit& h = f.hit;
    h.session_uid = text_at(r, i, 0);
    h.flavor = text_at(r, i, 1);
    h.repo = text_at(r, i, 2);
    h.title = text_at(r, i, 3);
    h.kind = text_at(r, i, 4);
    h.tool = text_at(r, i, 5);
    h.snippet = text_at(r, i, 6);
    h.ts_ms = r.integer(i, 7);
    h.seq = r.integer(i, 8);
    h.rank = r.real(i, 9);
    f.origin = {config_.team, text_at(r, i, 10), text_at(r, i, 11), text_at(r, i, 12)};
    if (h.kind == "digest" && digest_seen[{f.origin.host_id, h.session_uid}]) continue;
    if (h.kind == "digest") digest_seen[{f.origin.host_id, h.session_uid}] = true;
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<FleetSessionDetail> FleetReader::show(const std::string& uid,
                                                  const std::string& host_id) {
  auto sessions = db_->query(
      fmt::format("SELECT {}, s.month FROM {} WHERE s.team = $1 AND s.session_uid = $2 AND "
                  "($3 = '' OR s.host_id = $3) ORDER BY s.host_id",
                  session_columns(), kSessionJoin),
      {config_.team, to_pg_text(uid), host_id});
  std::vector<FleetSessionDetail> out;
  for (int i = 0; i < sessions.rows(); ++i) {
    FleetSessionDetail detail;
    detail.session = read_session(sessions, i);
    const std::vector<pg::Param> key = {config_.team, std::string(sessions.text(i, 32)),
                                        std::string(sessions.text(i, 0)),
                                        std::string(sessions.text(i, 42))};
    auto digests = db_->query(
        fmt::format("SELECT digester, plugin_version, {}, body FROM helix_fleet.digests "
                    "WHERE team = $1 AND host_id = $2 AND session_uid = $3 AND month = $4 "
                    "ORDER BY digester",
                    ms("digested_at")),
        key);
    for (int d = 0; d < digests.rows(); ++d) {
      DigestRow row;
      row.session_uid = detail.session.row.uid;
      row.digester = text_at(digests, d, 0);
      row.version = text_at(digests, d, 1);
      row.digested_at_ms = digests.integer(d, 2);
      row.json = text_at(digests, d, 3);
      detail.digests.push_back(std::move(row));
    }
    db_->query_each(
        fmt::format("SELECT seq, coalesce(parent_seq, -1), {}, kind, role, tool, summary, "
                    "is_sidechain, uid, parent_uid, call_id, model, text FROM helix_fleet.events "
                    "WHERE team = $1 AND host_id = $2 AND session_uid = $3 AND month = $4 "
                    "ORDER BY seq",
                    ms("ts")),
        key, [&](const pg::Result& e) {
          EventRow row;
          row.seq = e.integer(0, 0);
          row.parent_seq = e.integer(0, 1);
          row.ts_ms = e.integer(0, 2);
          row.kind = text_at(e, 0, 3);
          row.role = text_at(e, 0, 4);
          row.tool = text_at(e, 0, 5);
          row.summary = text_at(e, 0, 6);
          row.is_sidechain = e.text(0, 7) == "t";
          row.uid = text_at(e, 0, 8);
          row.parent_uid = text_at(e, 0, 9);
          row.call_id = text_at(e, 0, 10);
          row.model = text_at(e, 0, 11);
          row.text = text_at(e, 0, 12);
          detail.events.push_back(std::move(row));
        });
    out.push_back(std::move(detail));
  }
  return out;
}

}  // namespace helix

#include "store/session_counters.hpp"

#include "store/database.hpp"

#include <fmt/format.h>

namespace helix {
namespace {

// What each event and pack row brings to its session's counters, grouped by session; {0} picks
// the events, {1} the packs. The same terms as schema migration 11.
constexpr const char* kRowTerms = R"sql(
  SELECT session_uid, SUM(visible) AS visible, SUM(user_msgs) AS user_msgs,
    SUM(retries) AS retries, SUM(bytes) AS bytes
  FROM (SELECT session_uid, shadowed = 0 AS visible,
          shadowed = 0 AND kind = 'user_msg' AND is_sidechain = 0 AS user_msgs,
          shadowed = 0 AND kind = 'retry' AS retries,
          96 + COALESCE(length(summary), 0) + COALESCE(length(uid), 0) * 2 AS bytes
        FROM events WHERE {0}
        UNION ALL
        SELECT session_uid, 0, 0, 0, length(data) FROM payload_packs WHERE {1})
  GROUP BY session_uid)sql";

std::string adjust_counters_sql(char sign, const char* events_where, const char* packs_where) {
  return fmt::format(R"sql(
    UPDATE sessions SET event_count = event_count {0} d.visible,
      user_msg_count = user_msg_count {0} d.user_msgs, retry_count = retry_count {0} d.retries,
      tier1_bytes = tier1_bytes {0} d.bytes
    FROM ({1}) AS d WHERE sessions.uid = d.session_uid)sql",
                     sign, fmt::format(fmt::runtime(kRowTerms), events_where, packs_where));
}

}  // namespace

int64_t sqlite_text_length(std::string_view text) {
  // As SQLite counts: a byte from 0xc0 up starts a character, the 0x80-0xbf bytes that follow
  // it belong to it; any other byte is a character of its own.
  int64_t n = 0;
  for (std::size_t i = 0; i < text.size() && text[i] != '\0'; ++n) {
    const auto lead = static_cast<unsigned char>(text[i++]);
    if (lead >= 0xc0)
      while (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xc0) == 0x80) ++i;
  }
  return n;
}

void SessionRowCounts::add_event(std::string_view kind, bool sidechain, bool shadow,
                                 std::string_view summary, std::string_view uid) {
  has_events = true;
  bytes += 96 + sqlite_text_length(summary) + sqlite_text_length(uid) * 2;
  if (shadow) return;
  ++events;
  if (kind == "user_msg" && !sidechain) ++user_msgs;
  if (kind == "retry") ++retries;
}

void count_chunk_rows(Database& db, const std::map<std::string, SessionRowCounts>& counts,
                      int64_t source_id) {
  auto add = db.cached(R"sql(
    UPDATE sessions SET event_count = event_count + ?2, user_msg_count = user_msg_count + ?3,
      retry_count = retry_count + ?4, tier1_bytes = tier1_bytes + ?5
    WHERE uid = ?1)sql");
  auto link =
      db.cached("INSERT OR IGNORE INTO session_sources (session_uid, source_id) VALUES (?, ?)");
  for (const auto& [session, c] : counts) {
    add->bind(1, session)
        .bind(2, c.events)
        .bind(3, c.user_msgs)
        .bind(4, c.retries)
        .bind(5, c.bytes)
        .run();
    if (c.has_events) link->bind(1, session).bind(2, source_id).run();
  }
}

// The sizes and newest mtime of a session's linked sources but `?1` (0: all of them).
constexpr const char* kSourceTotals = R"sql(
    UPDATE sessions SET (source_bytes, source_mtime_ns) =
      (SELECT COALESCE(SUM(src.size), 0), MAX(src.mtime_ns)
       FROM session_sources l JOIN sources src ON src.id = l.source_id
       WHERE l.session_uid = sessions.uid AND l.source_id != ?2)
    WHERE uid IN (SELECT session_uid FROM session_sources WHERE source_id = ?1))sql";

void uncount_source_rows(Database& db, int64_t source_id) {
  static const std::string subtract = adjust_counters_sql('-', "source_id = ?1", "source_id = ?1");
  auto counts = db.cached(subtract);
  counts->bind(1, source_id).run();
  auto totals = db.cached(kSourceTotals);  // without this source, whose links go below
  totals->bind(1, source_id).bind(2, source_id).run();
  auto unlink = db.cached("DELETE FROM session_sources WHERE source_id = ?");
  unlink->bind(1, source_id).run();
}

void refresh_source_totals(Database& db, int64_t source_id) {
  auto totals = db.cached(kSourceTotals);
  totals->bind(1, source_id).bind(2, int64_t{0}).run();
}

void uncount_session_rows(Database& db, const std::string& session_uid) {
  auto zero = db.cached(
      "UPDATE sessions SET event_count = 0, user_msg_count = 0, retry_count = 0, "
      "tier1_bytes = 0, source_bytes = 0, source_mtime_ns = NULL WHERE uid = ?");
  zero->bind(1, session_uid).run();
  auto unlink = db.cached("DELETE FROM session_sources WHERE session_uid = ?");
  unlink->bind(1, session_uid).run();
}

void count_chunk_usage(Database& db, const std::map<std::string, SessionUsageCounts>& counts) {
  auto add = db.cached(R"sql(
    UPDATE sessions SET usage_input_tokens = COALESCE(usage_input_tokens, 0) + ?2,
      usage_output_tokens = COALESCE(usage_output_tokens, 0) + ?3,
      usage_cache_read_tokens = COALESCE(usage_cache_read_tokens, 0) + ?4,
      usage_cache_creation_tokens = COALESCE(usage_cache_creation_tokens, 0) + ?5,
      usage_reasoning_tokens = COALESCE(usage_reasoning_tokens, 0) + ?6
    WHERE uid = ?1)sql");
  for (const auto& [session, c] : counts) {
    if (c.recompute) {
      refresh_usage_totals(db, session);
      continue;
    }
    add->bind(1, session)
        .bind(2, c.input)
        .bind(3, c.output)
        .bind(4, c.cache_read)
        .bind(5, c.cache_creation)
        .bind(6, c.reasoning)
        .run();
  }
}

void refresh_usage_totals(Database& db, const std::string& session_uid) {
  auto st = db.cached(R"sql(
    UPDATE sessions SET (usage_input_tokens, usage_output_tokens, usage_cache_read_tokens,
        usage_cache_creation_tokens, usage_reasoning_tokens, usage_cost_usd) =
      (SELECT SUM(input_tokens), SUM(output_tokens), SUM(cache_read_tokens),
         SUM(cache_creation_tokens), SUM(reasoning_tokens), SUM(cost_usd)
       FROM usage WHERE session_uid = ?1)
    WHERE uid = ?1)sql");
  st->bind(1, session_uid).run();
}

std::vector<std::string> sessions_with_wrong_counters(Database& db) {
  auto st = db.prepare(fmt::format(R"sql(
    SELECT s.uid FROM sessions s
    LEFT JOIN ({0}) AS c ON c.session_uid = s.uid
    LEFT JOIN (SELECT session_uid, SUM(input_tokens) AS input, SUM(output_tokens) AS output,
                 SUM(cache_read_tokens) AS cache_read,
                 SUM(cache_creation_tokens) AS cache_creation,
                 SUM(reasoning_tokens) AS reasoning, SUM(cost_usd) AS cost
               FROM usage GROUP BY session_uid) AS u ON u.session_uid = s.uid
    LEFT JOIN (SELECT l.session_uid, SUM(src.size) AS bytes, MAX(src.mtime_ns) AS mtime
               FROM session_sources l JOIN sources src ON src.id = l.source_id
               GROUP BY l.session_uid) AS t ON t.session_uid = s.uid
    WHERE s.event_count != COALESCE(c.visible, 0) OR s.user_msg_count != COALESCE(c.user_msgs, 0)
      OR s.retry_count != COALESCE(c.retries, 0) OR s.tier1_bytes != COALESCE(c.bytes, 0)
      OR s.usage_input_tokens IS NOT u.input OR s.usage_output_tokens IS NOT u.output
      OR s.usage_cache_read_tokens IS NOT u.cache_read
      OR s.usage_cache_creation_tokens IS NOT u.cache_creation
      OR s.usage_reasoning_tokens IS NOT u.reasoning OR s.usage_cost_usd IS NOT u.cost
      OR s.source_bytes != COALESCE(t.bytes, 0) OR s.source_mtime_ns IS NOT t.mtime
      OR EXISTS (SELECT source_id FROM session_sources WHERE session_uid = s.uid
                 EXCEPT SELECT source_id FROM events WHERE session_uid = s.uid)
      OR EXISTS (SELECT source_id FROM events WHERE session_uid = s.uid
                 EXCEPT SELECT source_id FROM session_sources WHERE session_uid = s.uid)
    ORDER BY s.uid)sql",
                                   fmt::format(fmt::runtime(kRowTerms), "1", "1")));
  std::vector<std::string> out;
  while (st.step()) out.push_back(st.text(0));
  return out;
}

}  // namespace helix

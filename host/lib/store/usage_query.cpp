#include "store/usage_query.hpp"

#include <fmt/format.h>

namespace helix {
namespace {

// The scope as a WHERE clause over usage_days `d` joined to sessions `s`; parameters ?1..?5.
constexpr const char* kScope = R"sql(
  (?1 = '' OR d.day >= ?1) AND (?2 = '' OR d.day <= ?2) AND (?3 = '' OR s.flavor = ?3)
  AND (?4 = '' OR s.repo = ?4) AND (?5 = '' OR s.uid = ?5))sql";

void bind_scope(Statement& st, const UsageScope& scope) {
  st.bind(1, scope.since_day)
      .bind(2, scope.until_day)
      .bind(3, scope.flavor)
      .bind(4, scope.repo)
      .bind(5, scope.session_uid);
}

UsageTokens tokens_at(const Statement& st, int first) {
  UsageTokens t;
  t.input = st.integer(first);
  t.output = st.integer(first + 1);
  t.cache_creation = st.integer(first + 2);
  t.cache_read = st.integer(first + 3);
  t.reasoning = st.integer(first + 4);
  t.calls = st.integer(first + 5);
  t.cost_usd = st.real(first + 6);
  return t;
}

}  // namespace

UsageTokens& UsageTokens::operator+=(const UsageTokens& o) {
  input += o.input;
  output += o.output;
  cache_creation += o.cache_creation;
  cache_read += o.cache_read;
  reasoning += o.reasoning;
  calls += o.calls;
  cost_usd += o.cost_usd;
  return *this;
}

void for_each_usage_day(Store& store, const UsageScope& scope,
                        const std::function<void(const UsageDayRow&)>& visit) {
  auto st = store.database().prepare(fmt::format(R"sql(
    SELECT d.session_uid, d.day, d.model, s.flavor, COALESCE(s.repo, ''),
      COALESCE(s.title, s.prompt_title, ''), COALESCE(s.started_at_ms, 0),
      d.input_tokens, d.output_tokens, d.cache_creation_tokens, d.cache_read_tokens,
      d.reasoning_tokens, d.calls, COALESCE(d.cost_usd, 0)
    FROM usage_days d JOIN sessions s ON s.uid = d.session_uid
    WHERE {} ORDER BY d.day, d.session_uid, d.model)sql",
                                                 kScope));
  bind_scope(st, scope);
  while (st.step()) {
    UsageDayRow r{st.text(0), st.text(1), st.text(2),    st.text(3),
                  st.text(4), st.text(5), st.integer(6), tokens_at(st, 7)};
    visit(r);
  }
}

void for_each_usage_call(Store& store, const UsageScope& scope, int64_t since_ms, int64_t until_ms,
                         const std::function<void(const UsageCall&)>& visit) {
  // Whole UTC days are read so that each call's share is of its whole row.
  auto st = store.database().prepare(fmt::format(R"sql(
    WITH calls AS (
      SELECT u.session_uid, COALESCE(u.model, '') AS model,
        COALESCE(u.ts_ms, s.started_at_ms, 0) AS ts,
        COALESCE(strftime('%Y-%m-%d', u.ts_ms / 1000, 'unixepoch'),
                 strftime('%Y-%m-%d', s.started_at_ms / 1000, 'unixepoch'), 'unknown') AS day,
        u.input_tokens, u.output_tokens, u.cache_creation_tokens, u.cache_read_tokens,
        u.reasoning_tokens,
        u.input_tokens + 5.0 * u.output_tokens + 1.25 * u.cache_creation_tokens
          + 0.1 * u.cache_read_tokens AS weight
      FROM usage u JOIN sessions s ON s.uid = u.session_uid
      WHERE (?3 = '' OR s.flavor = ?3) AND (?4 = '' OR s.repo = ?4) AND (?5 = '' OR s.uid = ?5)
        AND (u.ts_ms BETWEEN ?6 - 86400000 AND ?7 + 86400000
             OR (u.ts_ms IS NULL AND s.started_at_ms BETWEEN ?6 - 86400000 AND ?7 + 86400000))),
    shared AS (
      SELECT c.*, SUM(c.weight) OVER (PARTITION BY c.session_uid, c.day, c.model) AS row_weight
      FROM calls c)
    SELECT c.session_uid, c.model, c.ts, c.input_tokens, c.output_tokens,
      c.cache_creation_tokens, c.cache_read_tokens, c.reasoning_tokens, 1,
      CASE WHEN c.row_weight > 0 THEN COALESCE(d.cost_usd, 0) * c.weight / c.row_weight
           ELSE 0 END
    FROM shared c
    LEFT JOIN usage_days d ON d.session_uid = c.session_uid AND d.day = c.day
      AND d.model = c.model
    WHERE c.ts BETWEEN ?6 AND ?7
    ORDER BY c.ts, c.session_uid)sql"));
  bind_scope(st, scope);
  st.bind(6, since_ms).bind(7, until_ms);
  while (st.step()) {
    UsageCall c{st.text(0), st.text(1), st.integer(2), tokens_at(st, 3)};
    visit(c);
  }
}

UsageTokens session_usage_totals(Store& store, const std::string& uid) {
  auto st = store.database().cached(R"sql(
    SELECT COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0),
      COALESCE(SUM(cache_creation_tokens), 0), COALESCE(SUM(cache_read_tokens), 0),
      COALESCE(SUM(reasoning_tokens), 0), COALESCE(SUM(calls), 0), TOTAL(cost_usd)
    FROM usage_days WHERE session_uid = ?)sql");
  st->bind(1, uid);
  st->step();
  return tokens_at(*st, 0);
}

std::map<std::string, int64_t> unpriced_models(Store& store, const std::string& digester,
                                               const UsageScope& scope) {
  // The LIKE skips the JSON of every digest that names no unpriced model.
  auto st = store.database().prepare(fmt::format(R"sql(
    SELECT m.value, COUNT(*) FROM digests g, json_each(g.json, '$.cost.unpriced_models') m
    WHERE g.digester = ?6 AND g.json LIKE '%"unpriced_models":["%'
      AND g.session_uid IN (SELECT d.session_uid FROM usage_days d
                            JOIN sessions s ON s.uid = d.session_uid WHERE {})
    GROUP BY 1 ORDER BY 1)sql",
                                                 kScope));
  bind_scope(st, scope);
  st.bind(6, digester);
  std::map<std::string, int64_t> out;
  while (st.step()) out[st.text(0)] = st.integer(1);
  return out;
}

}  // namespace helix

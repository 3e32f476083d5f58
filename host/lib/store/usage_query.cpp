#include "store/usage_query.hpp"

#include "pricing/price_book.hpp"

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
  if (!st.is_null(first + 7)) t.agent_cost_usd = st.real(first + 7);
  t.unpriced_tokens = st.integer(first + 8);
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
  if (o.agent_cost_usd) agent_cost_usd = agent_cost_usd.value_or(0) + *o.agent_cost_usd;
  unpriced_tokens += o.unpriced_tokens;
  return *this;
}

void for_each_usage_day(Store& store, const UsageScope& scope,
                        const std::function<void(const UsageDayRow&)>& visit) {
  auto st = store.database().prepare(fmt::format(R"sql(
    SELECT d.session_uid, d.day, d.model, s.flavor, COALESCE(s.repo, ''),
      COALESCE(s.title, s.prompt_title, ''), COALESCE(s.started_at_ms, 0),
      d.input_tokens, d.output_tokens, d.cache_creation_tokens, d.cache_read_tokens,
      d.reasoning_tokens, d.calls, COALESCE(d.cost_usd, 0), d.agent_cost_usd, d.unpriced_tokens
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
                         UsagePricer& prices, const std::function<void(const UsageCall&)>& visit) {
  // By the call's own time (index usage_time), else by its session's start.
  auto st = store.database().prepare(R"sql(
    SELECT u.session_uid, COALESCE(u.model, ''), COALESCE(s.model, ''),
      COALESCE(u.ts_ms, s.started_at_ms, 0) AS ts, u.input_tokens, u.output_tokens,
      u.cache_read_tokens, u.cache_creation_tokens, u.cache_creation_1h_tokens,
      u.reasoning_tokens, u.cost_usd
    FROM usage u JOIN sessions s ON s.uid = u.session_uid
    WHERE (?3 = '' OR s.flavor = ?3) AND (?4 = '' OR s.repo = ?4) AND (?5 = '' OR s.uid = ?5)
      AND (u.ts_ms BETWEEN ?6 AND ?7
           OR (u.ts_ms IS NULL AND COALESCE(s.started_at_ms, 0) BETWEEN ?6 AND ?7))
    ORDER BY ts, u.session_uid)sql");
  bind_scope(st, scope);
  st.bind(6, since_ms).bind(7, until_ms);
  while (st.step()) {
    UsageCall c{st.text(0), st.text(1), st.integer(3), {}};
    const CallTokens call{st.integer(4), st.integer(5), st.integer(6), st.integer(7),
                          st.integer(8)};
    c.tokens.input = call.input;
    c.tokens.output = call.output;
    c.tokens.cache_read = call.cache_read;
    c.tokens.cache_creation = call.cache_write;
    c.tokens.reasoning = st.integer(9);
    c.tokens.calls = 1;
    if (!st.is_null(10)) c.tokens.agent_cost_usd = st.real(10);
    if (const ModelPrice* price = prices.find(c.model.empty() ? st.text(2) : c.model))
      c.tokens.cost_usd = price->cost(call);
    else
      c.tokens.unpriced_tokens = call.billed();
    visit(c);
  }
}

std::vector<RateLimitState> latest_rate_limits(Store& store, const std::string& flavor) {
  // SQLite takes the bare columns of a MAX() aggregate from the row that has the maximum.
  auto st = store.database().prepare(R"sql(
    SELECT flavor, limit_id, window_name, session_uid, used_percent,
      COALESCE(window_minutes, 0), COALESCE(resets_at_ms, 0), MAX(ts_ms)
    FROM rate_limits WHERE ?1 = '' OR flavor = ?1
    GROUP BY flavor, limit_id, window_name ORDER BY flavor, limit_id, window_name)sql");
  st.bind(1, flavor);
  std::vector<RateLimitState> out;
  while (st.step())
    out.push_back({st.text(0), st.text(1), st.text(2), st.text(3), st.real(4), st.integer(5),
                   st.integer(6), st.is_null(7) ? 0 : st.integer(7)});
  return out;
}

}  // namespace helix

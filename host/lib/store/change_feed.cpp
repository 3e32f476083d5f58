#include "store/change_feed.hpp"

#include "store/database.hpp"
#include "store/schema.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace helix {

std::vector<ChangeMark> changed_sessions(Store& store, const ChangeMark& after, int64_t limit) {
  auto& db = store.database();
  if (user_version(db) < 11)
    throw std::runtime_error(fmt::format(
        "the store {} has an older layout; run 'helix-host sweep' once to upgrade it, then push",
        store.path().string()));
  // A scan of the sessions table (one row each; ~20 ms at 100,000 sessions): the stamp is not
  // indexed, so that ingest and the digest pass pay nothing for push.
  auto lease = db.cached(R"sql(
    SELECT v, uid FROM (SELECT MAX(COALESCE(ingested_at_ms, 0), COALESCE(analyzed_at_ms, 0)) AS v,
                               uid FROM sessions)
    WHERE (v, uid) > (?1, ?2) ORDER BY v, uid LIMIT ?3)sql");
  Statement& st = *lease;
  st.bind(1, after.version).bind(2, after.uid).bind(3, limit);
  std::vector<ChangeMark> out;
  while (st.step()) out.push_back({st.integer(0), st.text(1)});
  return out;
}

std::vector<UsageDayRow> session_usage_ledger(Store& store, const std::string& uid) {
  auto lease = store.database().cached(R"sql(
    SELECT day, model, calls, input_tokens, output_tokens, cache_read_tokens,
      cache_creation_tokens, reasoning_tokens, cost_usd, agent_cost_usd, unpriced_tokens
    FROM usage_days WHERE session_uid = ? ORDER BY day, model)sql");
  Statement& st = *lease;
  st.bind(1, uid);
  std::vector<UsageDayRow> out;
  while (st.step()) {
    UsageDayRow r;
    r.day = st.text(0);
    r.model = st.text(1);
    r.calls = st.integer(2);
    r.input_tokens = st.integer(3);
    r.output_tokens = st.integer(4);
    r.cache_read_tokens = st.integer(5);
    r.cache_creation_tokens = st.integer(6);
    r.reasoning_tokens = st.integer(7);
    if (!st.is_null(8)) r.cost_usd = st.real(8);
    if (!st.is_null(9)) r.agent_cost_usd = st.real(9);
    r.unpriced_tokens = st.integer(10);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace helix

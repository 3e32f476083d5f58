#include "store/catalog.hpp"

#include <string>

namespace helix {
namespace {

std::vector<std::string> texts(Database& db, const char* sql) {
  std::vector<std::string> out;
  auto st = db.prepare(sql);
  while (st.step()) out.push_back(st.text(0));
  return out;
}

}  // namespace

std::vector<std::string> sessions_matching(Store& store, std::string_view ref, int64_t limit) {
  if (ref.empty()) return {};
  // Ranked: 0 exact uid, 1 uid prefix with a flavor, 2 exact native id, 3 a prefix of either.
  // The uid prefix is a range over the primary key; native ids are scanned (one short column).
  auto st = store.database().prepare(R"sql(
    SELECT uid, CASE WHEN uid = ?1 THEN 0
                     WHEN instr(?1, ':') > 0 AND substr(uid, 1, length(?1)) = ?1 THEN 1
                     WHEN native_id = ?1 THEN 2 ELSE 3 END AS rank
    FROM sessions
    WHERE (uid >= ?1 AND uid < ?1 || char(1114111))
       OR substr(native_id, 1, length(?1)) = ?1
    ORDER BY rank, uid)sql");
  st.bind(1, ref);
  std::vector<std::string> out;
  int64_t best = -1;
  while (st.step() && static_cast<int64_t>(out.size()) < limit) {
    const int64_t rank = st.integer(1);
    if (best >= 0 && rank != best && best < 3) break;  // a better kind of match wins outright
    best = rank;
    out.push_back(st.text(0));
  }
  return out;
}

std::vector<std::string> all_session_uids(Store& store) {
  return texts(store.database(), "SELECT uid FROM sessions ORDER BY uid");
}

std::vector<std::string> stored_flavors(Store& store) {
  return texts(store.database(), "SELECT DISTINCT flavor FROM sessions ORDER BY 1");
}

std::vector<std::string> stored_repos(Store& store) {
  return texts(store.database(),
               "SELECT DISTINCT repo FROM sessions WHERE repo IS NOT NULL AND repo <> '' "
               "ORDER BY 1");
}

std::vector<WarningCount> warning_counts(Store& store) {
  std::vector<WarningCount> out;
  auto st = store.database().prepare(
      "SELECT category, COUNT(*) FROM warnings GROUP BY category ORDER BY 2 DESC, 1");
  while (st.step()) out.push_back({st.text(0), st.integer(1)});
  return out;
}

void for_each_warning(Store& store, std::string_view category, int64_t limit,
                      const std::function<void(const WarningRow&)>& visit) {
  auto st = store.database().prepare(R"sql(
    SELECT category, message, path, source_offset, at_ms FROM (
      SELECT w.category, w.message, s.path, w.source_offset, w.at_ms,
        ROW_NUMBER() OVER (PARTITION BY w.category ORDER BY w.at_ms DESC, w.id DESC) AS n
      FROM warnings w LEFT JOIN sources s ON s.id = w.source_id
      WHERE ?1 = '' OR w.category = ?1)
    WHERE n <= ?2 ORDER BY category, at_ms DESC, path, source_offset)sql");
  st.bind(1, category).bind(2, limit);
  while (st.step()) visit({st.text(0), st.text(1), st.text(2), st.integer(3), st.integer(4)});
}

}  // namespace helix

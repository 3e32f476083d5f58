// Test support: usage reports answered by usage_rollup against the same reports computed from
// usage_days itself, for every grouping the rollup answers, each flavor and a since day.
#pragma once

#include "store/digest_store.hpp"
#include "store/store.hpp"

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

namespace helix::test {

inline std::vector<std::string> column_texts(Database& db, const std::string& sql) {
  std::vector<std::string> out;
  auto st = db.prepare(sql);
  while (st.step()) out.push_back(st.text(0));
  return out;
}

// The rollup of the store is current (no day stale, as the digest pass leaves it) and every
// report it answers equals the report from usage_days: tokens and calls exactly, cost up to
// floating-point rounding.
inline void expect_rollup_equals_usage_days(const std::filesystem::path& db_file,
                                            const std::string& context) {
  Store store(db_file, /*read_only=*/true);
  auto& db = store.database();
  BOOST_TEST(column_texts(db, "SELECT day FROM usage_rollup_stale").empty(), context);
  std::vector<std::string> flavors = column_texts(db, "SELECT DISTINCT flavor FROM sessions");
  flavors.push_back("");
  std::vector<std::string> since = column_texts(
      db,
      "SELECT day FROM usage_days ORDER BY day LIMIT 1 OFFSET (SELECT COUNT(*) / 2 FROM "
      "usage_days)");
  since.push_back("");
  int compared = 0;
  for (const char* by : {"day", "model", "flavor"})
    for (const auto& flavor : flavors)
      for (const auto& day : since) {
        const auto rolled = usage_report(store, by, day, flavor);
        const auto direct = usage_report(store, by, day, flavor, UsageSource::usage_days);
        const std::string what =
            context + ": by " + by + ", flavor '" + flavor + "', since '" + day + "'";
        BOOST_TEST_REQUIRE(rolled.size() == direct.size(), what);
        for (std::size_t i = 0; i < rolled.size(); ++i) {
          const auto &r = rolled[i], &d = direct[i];
          BOOST_TEST(r.key == d.key, what);
          BOOST_TEST(r.calls == d.calls, what << " " << r.key);
          BOOST_TEST(r.input_tokens == d.input_tokens, what << " " << r.key);
          BOOST_TEST(r.output_tokens == d.output_tokens, what << " " << r.key);
          BOOST_TEST(r.cache_read_tokens == d.cache_read_tokens, what << " " << r.key);
          BOOST_TEST(r.cache_creation_tokens == d.cache_creation_tokens, what << " " << r.key);
          BOOST_TEST(r.reasoning_tokens == d.reasoning_tokens, what << " " << r.key);
          BOOST_TEST(
              std::abs(r.cost_usd - d.cost_usd) <= 1e-9 * std::max(1.0, std::abs(d.cost_usd)),
              what << " " << r.key << ": cost " << r.cost_usd << " != " << d.cost_usd);
          ++compared;
        }
      }
  BOOST_TEST(compared > 0, context << ": no usage to compare");
}

}  // namespace helix::test

// Retention (§5.2) over a real store: each pass on its own, the invariant over many randomized
// rounds with small caps, and the store file really shrinking.
#define BOOST_TEST_MODULE retention
#include <boost/test/unit_test.hpp>

#include "retention/retention.hpp"
#include "store/store.hpp"
#include "temp_dir.hpp"

#include <random>

using namespace helix;

namespace {

constexpr int64_t kDay = 86400 * 1000;
constexpr int64_t kNow = 1800000000000;  // 2027-01-15

struct RetentionFixture {
  test::TempDir dir;
  Store store{dir / "helix.db"};
  RetentionConfig config;
  std::mt19937 random{7};

  // A session of `events` records with incompressible text, last active `age_days` ago.
  void add_session(const std::string& id, int events, int64_t age_days) {
    SourceCursor cursor;
    cursor.path = (dir / (id + ".jsonl")).string();
    cursor.flavor = "demo";
    cursor.adapter = "demo";
    cursor.layout = 1;
    RecordBatch batch;
    for (int i = 0; i < events; ++i) {
      EventRecord e;
      e.session_id = id;
      e.source_offset = static_cast<uint64_t>(i) * 1000;
      e.kind = "assistant_msg";
      e.ts_ms = kNow - age_days * kDay - (events - i) * 1000;
      for (int k = 0; k < 2000; ++k) e.text += static_cast<char>('a' + random() % 26);
      batch.events.push_back(std::move(e));
    }
    store.commit_chunk(cursor, batch, false);
    // The store stamps ingested_at with the wall clock; a sweep long ago in this timeline:
    auto st = store.database().prepare(
        "UPDATE sessions SET ingested_at_ms = ?, ended_at_ms = ? WHERE uid = ?");
    st.bind(1, kNow - age_days * kDay).bind(2, kNow - age_days * kDay).bind(3, "demo:" + id).run();
  }

  // The session's source grows by `events` records after its last ingest, `at` in this timeline.
  void grow_session(const std::string& id, int events, int64_t at) {
    auto cursor = store.find_source((dir / (id + ".jsonl")).string());
    BOOST_REQUIRE(cursor);
    auto next = store.database().prepare(
        "SELECT COALESCE(MAX(covered_offset), 0) + 1000000 FROM digest_coverage WHERE "
        "session_uid = ?");
    next.bind(1, "demo:" + id);
    next.step();
    RecordBatch batch;
    for (int i = 0; i < events; ++i) {
      EventRecord e;
      e.session_id = id;
      e.source_offset = static_cast<uint64_t>(next.integer(0) + i * 1000);
      e.kind = "user_msg";
      e.ts_ms = at;
      for (int k = 0; k < 2000; ++k) e.text += static_cast<char>('a' + random() % 26);
      batch.events.push_back(std::move(e));
    }
    store.commit_chunk(*cursor, batch, false);
    auto st = store.database().prepare("UPDATE sessions SET ingested_at_ms = ? WHERE uid = ?");
    st.bind(1, at).bind(2, "demo:" + id).run();
  }

  void analyze(const std::string& id, int64_t when) {
    auto st = store.database().prepare("UPDATE sessions SET analyzed_at_ms = ? WHERE uid = ?");
    st.bind(1, when).bind(2, "demo:" + id).run();
  }

  Retention retention() { return Retention(store, config, kNow); }

  std::vector<std::string> uids(const RetentionPlan& plan, const std::string& pass = "") {
    std::vector<std::string> out;
    for (const auto& s : plan.steps)
      if (pass.empty() || s.pass == pass) out.push_back(s.session_uid);
    return out;
  }

  bool evicted(const std::string& id) {
    auto row = store.session("demo:" + id);
    return row && row->evicted_at_ms > 0;
  }

  int64_t data_loss_events() {
    auto st = store.database().prepare(
        "SELECT COUNT(*) FROM retention_events WHERE kind = 'session_memory.data_loss'");
    st.step();
    return st.integer(0);
  }
};

using Strings = std::vector<std::string>;

}  // namespace

BOOST_FIXTURE_TEST_SUITE(passes, RetentionFixture)

BOOST_AUTO_TEST_CASE(backstop_drops_old_analyzed_sessions_whatever_the_space) {
  add_session("old-analyzed", 5, 60);
  add_session("old-raw", 5, 60);
  add_session("young-analyzed", 5, 3);
  analyze("old-analyzed", kNow - 50 * kDay);
  analyze("young-analyzed", kNow - 2 * kDay);
  auto plan = retention().plan();
  BOOST_TEST(uids(plan) == Strings{"demo:old-analyzed"}, boost::test_tools::per_element());
  BOOST_TEST(plan.steps.front().pass == "backstop");
}

BOOST_AUTO_TEST_CASE(budget_drops_the_oldest_analyzed_first_and_stops_at_the_soft_cap) {
  for (const char* id : {"a", "b", "c", "d"}) add_session(id, 20, 5);
  analyze("c", kNow - 4 * kDay);  // analyzed first: evicted first
  analyze("a", kNow - 3 * kDay);
  analyze("b", kNow - 2 * kDay);  // "d" stays un-analyzed
  const int64_t total = measured_tier1_bytes(store);
  config.raw_soft_cap_bytes = total - 1000;  // one session too many
  config.raw_hard_cap_bytes = total * 2;
  auto plan = retention().plan();
  BOOST_TEST(uids(plan, "budget") == Strings{"demo:c"}, boost::test_tools::per_element());
  config.raw_soft_cap_bytes = 1;  // everything must go: still never the un-analyzed one
  plan = retention().plan();
  BOOST_TEST(uids(plan) == (Strings{"demo:c", "demo:a", "demo:b"}),
             boost::test_tools::per_element());
  BOOST_TEST(!plan.over_hard_cap_after);
}

BOOST_AUTO_TEST_CASE(over_the_hard_cap_it_analyzes_now_before_anything_is_lost) {
  for (const char* id : {"a", "b", "c"}) add_session(id, 20, 5);
  config.raw_soft_cap_bytes = 1;
  config.raw_hard_cap_bytes = 2;
  int calls = 0;
  auto plan = retention().plan([&] {
    ++calls;
    for (const char* id : {"a", "b", "c"}) analyze(id, kNow);
    return int64_t{3};
  });
  BOOST_TEST(calls == 1);
  BOOST_TEST(plan.analyzed_now == 3);
  BOOST_TEST(uids(plan, "budget").size() == 3u);
  BOOST_TEST(uids(plan, "hard_cap").empty());
}

BOOST_AUTO_TEST_CASE(the_last_resort_evicts_the_oldest_raw_data_and_reports_the_loss) {
  add_session("older", 20, 9);
  add_session("newer", 20, 5);
  const int64_t total = measured_tier1_bytes(store);
  config.raw_soft_cap_bytes = 1;
  config.raw_hard_cap_bytes = total - 10000;  // one session must go
  auto r = retention();
  auto plan = r.plan([] { return int64_t{0}; });  // analysis cannot keep up
  BOOST_TEST(uids(plan, "hard_cap") == Strings{"demo:older"}, boost::test_tools::per_element());
  BOOST_TEST(!plan.steps.front().analyzed);
  r.apply(plan);
  BOOST_TEST(evicted("older"));
  BOOST_TEST(!evicted("newer"));
  BOOST_TEST(data_loss_events() == 1);
  BOOST_TEST(store.events("demo:older", false).empty());
}

BOOST_AUTO_TEST_CASE(a_session_still_being_written_is_never_evicted) {
  add_session("busy", 20, 0);  // active a moment ago
  analyze("busy", kNow);
  config.raw_soft_cap_bytes = 1;
  config.raw_hard_cap_bytes = 2;
  auto plan = retention().plan([] { return int64_t{0}; });
  BOOST_TEST(plan.steps.empty());
  BOOST_TEST(plan.over_hard_cap_after);
}

BOOST_AUTO_TEST_CASE(tier2_over_its_cap_is_flagged_never_dropped) {
  add_session("a", 5, 5);
  config.distilled_cap_bytes = 0;
  // A large digest: Tier 2 grows (digests are never evicted).
  store.database().exec(
      "INSERT INTO digests (session_uid, digester, digester_version, digested_at_ms, json) "
      "VALUES ('demo:a', 'big', '1.0.0', 0, '\"' || hex(randomblob(60000)) || '\"')");
  auto plan = retention().plan();
  BOOST_TEST(plan.tier2_over_cap);
  BOOST_TEST(plan.tier2_bytes >= 100000);
  BOOST_TEST(plan.steps.empty());
}

// A sweep that wrote nothing does not measure Tier 2 again (dbstat reads every page of it):
// the guard waits for a sweep that writes; the passes over Tier 1 are the same.
BOOST_AUTO_TEST_CASE(a_sweep_that_wrote_nothing_leaves_the_tier2_guard_unmeasured) {
  add_session("a", 5, 5);
  analyze("a", kNow - 2 * kDay);
  config.distilled_cap_bytes = 0;
  config.raw_soft_cap_bytes = 1;
  const auto measured = retention().plan({}, true, true);
  const auto skipped = retention().plan({}, true, false);
  BOOST_TEST(measured.tier2_over_cap);
  BOOST_TEST(skipped.tier2_bytes == -1);
  BOOST_TEST(!skipped.tier2_over_cap);
  BOOST_TEST(skipped.steps.size() == measured.steps.size());
  BOOST_TEST(skipped.tier1_bytes == measured.tier1_bytes);
}

BOOST_AUTO_TEST_CASE(eviction_really_shrinks_the_store_file) {
  for (int i = 0; i < 6; ++i) add_session("s" + std::to_string(i), 60, 5);
  store.database().exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const auto before = std::filesystem::file_size(dir / "helix.db");
  for (int i = 0; i < 6; ++i) analyze("s" + std::to_string(i), kNow - kDay);
  config.raw_soft_cap_bytes = 1;
  auto r = retention();
  r.apply(r.plan());
  const auto after = std::filesystem::file_size(dir / "helix.db");
  BOOST_TEST(after < before / 4);
  BOOST_TEST(std::filesystem::file_size(dir / "helix.db-wal") == 0u);
  BOOST_TEST(store.status().sessions == 6);  // the sessions (and their digests) stay
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_CASE(the_invariant_holds_over_randomized_rounds, RetentionFixture) {
  // No session loses raw data before it is analyzed, except on the reported hard-cap path.
  std::uniform_int_distribution<int> size(1, 25), age(2, 80), coin(0, 2);
  int next = 0;
  for (int round = 0; round < 30; ++round) {
    for (int k = 0; k < 3; ++k)
      add_session("r" + std::to_string(next++), size(random), age(random));
    for (auto& s : store.sessions({}))
      if ((s.analyzed_at_ms == 0 || s.analyzed_at_ms < s.ingested_at_ms) && coin(random) == 0)
        analyze(s.native_id, kNow - age(random) * kDay);
    const int64_t total = measured_tier1_bytes(store);
    config.raw_soft_cap_bytes = total / 2;
    config.raw_hard_cap_bytes = total * 3 / 4;
    config.raw_max_age_days = 60;
    auto r = retention();
    auto plan = r.plan(round % 3 == 0 ? AnalyzeNow{} : AnalyzeNow([] { return int64_t{0}; }));
    const int64_t losses_before = data_loss_events();
    int64_t unanalyzed_steps = 0;
    for (const auto& step : plan.steps) {
      auto row = store.session(step.session_uid);
      BOOST_REQUIRE(row);
      // Analyzed = a digest newer than every record of the session.
      const bool fresh = row->analyzed_at_ms > 0 && row->analyzed_at_ms >= row->ingested_at_ms;
      BOOST_TEST(fresh == step.analyzed);
      if (!step.analyzed) {
        BOOST_TEST(step.pass == "hard_cap");
        ++unanalyzed_steps;
      }
    }
    r.apply(plan);
    BOOST_TEST(data_loss_events() - losses_before == unanalyzed_steps);
    // An evicted session grows: its new raw data waits for a new digest like any other.
    std::vector<std::string> evicted_ids;
    for (auto& s : store.sessions({}))
      if (s.evicted_at_ms > 0) evicted_ids.push_back(s.native_id);
    if (!evicted_ids.empty())
      grow_session(evicted_ids[random() % evicted_ids.size()], size(random), kNow - 30 * kDay);
  }
  // Raw data gone while its digest was stale: only with a data-loss record.
  auto st = store.database().prepare(R"sql(
    SELECT COUNT(*) FROM sessions s WHERE s.evicted_at_ms IS NOT NULL
      AND (s.analyzed_at_ms IS NULL OR s.analyzed_at_ms < s.ingested_at_ms)
      AND NOT EXISTS (SELECT 1 FROM events e WHERE e.session_uid = s.uid)
      AND NOT EXISTS (SELECT 1 FROM retention_events r WHERE r.session_uid = s.uid))sql");
  st.step();
  BOOST_TEST(st.integer(0) == 0);
  auto evicted_count =
      store.database().prepare("SELECT COUNT(*) FROM sessions WHERE evicted_at_ms IS NOT NULL");
  evicted_count.step();
  BOOST_TEST(evicted_count.integer(0) > 10);  // the rounds did evict
}

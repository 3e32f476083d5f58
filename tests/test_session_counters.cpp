// The per-session counters of schema 11 (events, user messages, retries, Tier 1 bytes, usage
// sums, session_sources): exact after every write and delete path, equal to what the row-counting
// queries of older stores give, and filled by the migration from a version 10 store.
#define BOOST_TEST_MODULE session_counters
#include <boost/test/unit_test.hpp>

#include "retention/retention.hpp"
#include "schema_v10.hpp"
#include "store/schema.hpp"
#include "store/session_counters.hpp"
#include "store/store.hpp"
#include "temp_dir.hpp"

#include <fmt/format.h>

using namespace helix;

namespace {

constexpr int64_t kNow = 1800000000000;

struct CounterFixture {
  test::TempDir dir;
  std::unique_ptr<Store> store = std::make_unique<Store>(dir / "helix.db");

  SourceCursor cursor(const std::string& name) {
    const std::string path = (dir / name).string();
    if (auto found = store->find_source(path)) return *found;
    SourceCursor c;
    c.path = path;
    c.flavor = "demo";
    c.adapter = "demo";
    c.layout = 1;
    c.size = 1000;
    c.mtime_ns = (kNow - 1000 * static_cast<int64_t>(name.size())) * 1000000;  // per source
    return c;
  }
  static EventRecord event(const std::string& session, uint64_t offset, const std::string& kind,
                           const std::string& uid, uint32_t flags = 0) {
    EventRecord e;
    e.session_id = session;
    e.source_offset = offset;
    e.kind = kind;
    e.uid = uid;
    e.flags = flags;
    e.ts_ms = kNow - 1000000 + static_cast<int64_t>(offset);
    e.summary = fmt::format("résumé {} ✓", offset);  // length() counts characters, not bytes
    e.text = fmt::format("text of {} at {}", uid, offset);
    return e;
  }
  static UsageRecord usage(const std::string& session, const std::string& key, uint64_t offset,
                           int64_t input, double cost) {
    UsageRecord u;
    u.session_id = session;
    u.key = key;
    u.source_offset = offset;
    u.input_tokens = input;
    u.output_tokens = input / 2;
    u.cost_usd = cost;
    return u;
  }
  void commit(const std::string& source, RecordBatch batch, bool new_generation = false) {
    auto c = cursor(source);
    if (new_generation) ++c.generation;
    c.size += 500;
    store->commit_chunk(c, batch, new_generation);
  }
  int64_t scalar(const std::string& sql) {
    auto st = store->database().prepare(sql);
    st.step();
    return st.integer(0);
  }
  // What the listing says of a session: its stored counters (schema 11).
  SessionRow row(const std::string& id) {
    auto r = store->session("demo:" + id);
    BOOST_REQUIRE(r);
    return *r;
  }
  void expect_exact(const std::string& when) {
    BOOST_TEST_CONTEXT(when) {
      const auto wrong = sessions_with_wrong_counters(store->database());
      BOOST_TEST(wrong.empty(), (wrong.empty() ? "" : wrong.front()));
      expect_listing_as_counted_from_rows();
    }
  }
  // The listing and retention's bytes from the counters equal those of the row-counting queries
  // that a store older than schema 11 is read with (chosen by user_version).
  void expect_listing_as_counted_from_rows() {
    // Analyzed, so evictable; the quiet periods put the sources' last changes (7 and 13 s ago)
    // on either side of the boundary.
    store->database().exec("UPDATE sessions SET analyzed_at_ms = ingested_at_ms");
    const std::vector<int64_t> quiet_periods = {0, 6999, 7000, 7001, 13000, 13001};
    auto evictable = [&] {
      std::vector<int64_t> bytes;
      for (const int64_t quiet : quiet_periods)
        bytes.push_back(Retention(*store, RetentionConfig{}, kNow, quiet).evictable_bytes());
      return bytes;
    };
    const auto counted = store->sessions(SessionFilter{});
    const auto counted_evictable = evictable();
    store->database().exec("PRAGMA user_version = 10");
    const auto from_rows = store->sessions(SessionFilter{});
    const auto evictable_from_rows = evictable();
    store->database().exec(fmt::format("PRAGMA user_version = {}", kStoreSchemaVersion));
    BOOST_TEST(counted_evictable == evictable_from_rows, boost::test_tools::per_element());
    BOOST_REQUIRE(counted.size() == from_rows.size());
    for (std::size_t i = 0; i < counted.size(); ++i) {
      const auto& a = counted[i];
      const auto& b = from_rows[i];
      BOOST_TEST_CONTEXT(a.uid) {
        BOOST_TEST(a.uid == b.uid);
        BOOST_TEST(a.event_count == b.event_count);
        BOOST_TEST(a.turns == b.turns);
        BOOST_TEST(a.retries == b.retries);
        BOOST_TEST(a.source_bytes == b.source_bytes);
        BOOST_TEST(a.usage.input_tokens == b.usage.input_tokens);
        BOOST_TEST(a.usage.output_tokens == b.usage.output_tokens);
        BOOST_TEST(a.usage.cost_usd == b.usage.cost_usd);
      }
    }
  }
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(counters_stay_exact_through_every_write_and_delete, CounterFixture) {
  // A sweep: session a in a.jsonl (two turns, one in a side chain, a retry), b beside it.
  RecordBatch first;
  first.events = {event("a", 0, "user_msg", "u1"), event("a", 100, "assistant_msg", "u2"),
                  event("a", 200, "user_msg", "u3", /*sidechain*/ 1),
                  event("a", 300, "retry", "u4"), event("b", 400, "user_msg", "")};
  first.usage = {usage("a", "k1", 100, 1000, 0.1), usage("b", "k2", 400, 10, 0.3),
                 usage("b", "k0", 400, 20, -1)};  // -1: no cost, as the adapters give it
  commit("a.jsonl", first);
  expect_exact("after the first chunk");
  BOOST_TEST(row("a").event_count == 4);
  BOOST_TEST(row("a").turns == 1);
  BOOST_TEST(row("a").retries == 1);
  BOOST_TEST(row("a").usage.input_tokens == 1000);
  BOOST_TEST(row("a").source_bytes == 1500);
  BOOST_TEST(scalar("SELECT tier1_bytes FROM sessions WHERE uid = 'demo:a'") >
             scalar("SELECT SUM(length(data)) FROM payload_packs WHERE session_uid = 'demo:a'"));

  // Growth: a new turn, and a repeated usage key with a larger total (the row is replaced).
  RecordBatch growth;
  growth.events = {event("a", 500, "user_msg", "u5")};
  growth.usage = {usage("a", "k1", 500, 3000, 0.25), usage("a", "k3", 500, 7, 0.05)};
  commit("a.jsonl", growth);
  expect_exact("after growth");
  BOOST_TEST(row("a").turns == 2);
  BOOST_TEST(row("a").usage.input_tokens == 3007);
  // Unpriced usage: new rows add their tokens, replaced ones swap theirs; a priced row
  // replaced by an unpriced one takes its cost away.
  RecordBatch unpriced;
  unpriced.usage = {usage("b", "k0", 450, 25, -1), usage("b", "k5", 450, 4, -1),
                    usage("b", "k6", 460, 1, -1), usage("a", "k3", 455, 70, -1)};
  RecordBatch repeated;  // one key twice in a chunk: the second replaces the row the first made
  repeated.usage = {usage("a", "k8", 480, 5, -1), usage("a", "k8", 490, 9, -1)};
  commit("a.jsonl", repeated);
  expect_exact("after a key repeated in a chunk");
  BOOST_TEST(row("a").usage.input_tokens == 3016);
  commit("a.jsonl", unpriced);
  expect_exact("after unpriced usage");
  BOOST_TEST(row("b").usage.input_tokens == 40);
  BOOST_TEST(row("a").usage.input_tokens == 3079);
  BOOST_TEST(row("a").usage.cost_usd == 0.25);
  RecordBatch more_unpriced;
  more_unpriced.usage = {usage("b", "k7", 470, 100, -1)};
  commit("a.jsonl", more_unpriced);
  expect_exact("after new unpriced usage");
  BOOST_TEST(row("b").usage.input_tokens == 140);

  // A resumed file repeats u1 and u4 (shadows) and adds u6: copies count bytes, not events.
  RecordBatch resumed;
  resumed.events = {event("a", 0, "user_msg", "u1"), event("a", 10, "retry", "u4"),
                    event("a", 20, "assistant_msg", "u6")};
  resumed.usage = {usage("a", "k4", 20, 50, 0.5)};
  commit("resumed.jsonl", resumed);
  expect_exact("after shadows");
  BOOST_TEST(row("a").event_count == 6);
  BOOST_TEST(scalar("SELECT COUNT(*) FROM events WHERE shadowed = 1") == 2);

  // a.jsonl rewritten without u1 and u4: their copies in resumed.jsonl are promoted, its usage
  // and b's rows go with the old generation.
  RecordBatch rewritten;
  rewritten.events = {event("a", 0, "assistant_msg", "u2")};
  commit("a.jsonl", rewritten, /*new_generation=*/true);
  expect_exact("after a rewrite");
  BOOST_TEST(scalar("SELECT COUNT(*) FROM events WHERE shadowed = 1") == 0);
  BOOST_TEST(row("a").event_count == 4);  // u2, and u1, u4, u6 from the resumed file
  BOOST_TEST(row("a").turns == 1);
  BOOST_TEST(row("a").retries == 1);
  BOOST_TEST(row("a").usage.input_tokens == 50);
  BOOST_TEST(row("b").event_count == 0);
  BOOST_TEST(row("b").source_bytes == 0);

  // Eviction: a's Tier 1 rows go, its usage (Tier 2) stays.
  RetentionPlan plan;
  plan.steps.push_back({"demo:a", "budget", 1, true});
  Retention(*store, RetentionConfig{}, kNow, 0).apply(plan);
  expect_exact("after an eviction");
  BOOST_TEST(row("a").event_count == 0);
  BOOST_TEST(row("a").usage.input_tokens == 50);
  BOOST_TEST(scalar("SELECT tier1_bytes FROM sessions WHERE uid = 'demo:a'") == 0);

  // Growth after eviction.
  RecordBatch later;
  later.events = {event("a", 30, "user_msg", "u7")};
  commit("resumed.jsonl", later);
  expect_exact("after growth after eviction");
  BOOST_TEST(row("a").event_count == 1);
  BOOST_TEST(row("a").turns == 1);
}

BOOST_FIXTURE_TEST_CASE(a_version_10_store_migrates_to_filled_counters, CounterFixture) {
  RecordBatch batch;
  batch.events = {event("a", 0, "user_msg", "u1"), event("a", 100, "retry", "u2"),
                  event("b", 200, "user_msg", "u3", 1)};
  batch.usage = {usage("a", "k1", 0, 100, 0.1), usage("a", "k2", 100, 5, 0.2)};
  commit("a.jsonl", batch);
  RecordBatch copy;
  copy.events = {event("a", 0, "user_msg", "u1")};
  commit("copy.jsonl", copy);
  const auto before = store->sessions(SessionFilter{});
  // Back to version 10's layout: no counters, no links, events_source.
  store->database().exec(fmt::format("BEGIN; {} {} {} {} {} PRAGMA user_version = 10; COMMIT;",
                                     test::kUndoSchema16, test::kUndoSchema15, test::kUndoSchema14,
                                     test::kUndoSchema12, test::kUndoSchema11));
  store.reset();
  {  // read-only: not migrated, listed from the rows
    Store read_only(dir / "helix.db", /*read_only=*/true);
    BOOST_TEST(read_only.sessions(SessionFilter{}).size() == before.size());
    BOOST_TEST(read_only.session("demo:a")->event_count == 2);
  }
  store = std::make_unique<Store>(dir / "helix.db");  // a writable open migrates
  BOOST_TEST(scalar("PRAGMA user_version") == kStoreSchemaVersion);
  BOOST_TEST(scalar("SELECT COUNT(*) FROM sqlite_schema WHERE name = 'events_source'") == 0);
  BOOST_TEST(scalar("SELECT event_count FROM sessions WHERE uid = 'demo:a'") == 2);
  BOOST_TEST(scalar("SELECT retry_count FROM sessions WHERE uid = 'demo:a'") == 1);
  BOOST_TEST(scalar("SELECT user_msg_count FROM sessions WHERE uid = 'demo:b'") == 0);
  BOOST_TEST(scalar("SELECT usage_input_tokens FROM sessions WHERE uid = 'demo:a'") == 105);
  BOOST_TEST(scalar("SELECT COUNT(*) FROM session_sources WHERE session_uid = 'demo:a'") == 2);
  expect_exact("after the migration");
  const auto after = store->sessions(SessionFilter{});
  BOOST_REQUIRE(after.size() == before.size());
  for (std::size_t i = 0; i < after.size(); ++i) {
    BOOST_TEST(after[i].event_count == before[i].event_count);
    BOOST_TEST(after[i].source_bytes == before[i].source_bytes);
    BOOST_TEST(after[i].usage.cost_usd == before[i].usage.cost_usd);
  }
}

// Without events_source, every statement that picks events by source still finds them through
// an index (the unique index on their position starts with source_id).
BOOST_FIXTURE_TEST_CASE(events_by_source_use_an_index, CounterFixture) {
  for (const char* sql :
       {"DELETE FROM events WHERE source_id = 1",
        "SELECT session_uid, uid, ordinal FROM events WHERE source_id = 1 AND "
        "uid IS NOT NULL AND shadowed = 0",
        "SELECT session_uid FROM events WHERE source_id = 1 GROUP BY session_uid"}) {
    auto plan = store->database().prepare(fmt::format("EXPLAIN QUERY PLAN {}", sql));
    std::string steps;
    while (plan.step()) steps += plan.text(3) + "\n";
    BOOST_TEST_CONTEXT(sql) {
      BOOST_TEST(steps.find("INDEX sqlite_autoindex_events_1 (source_id=?)") != std::string::npos,
                 steps);
      BOOST_TEST(steps.find("SCAN events") == std::string::npos, steps);
    }
  }
}

// The bytes the write path adds per event count characters as SQLite's length() does, also for
// text that is not clean UTF-8 (the migration and the check recompute them with length()).
BOOST_FIXTURE_TEST_CASE(text_lengths_are_counted_as_sqlite_counts_them, CounterFixture) {
  using namespace std::string_literals;
  for (const std::string& text : {""s, "abc"s, "résumé ✓"s, "😀x"s, "a\0b"s, "\x80\x80z"s, "\xc3"s,
                                  "\xe2\x9c"s, "\xff\x80\x80"s, "x\xc3\xa9\x80y"s}) {
    auto st = store->database().prepare("SELECT length(?)");
    st.bind(1, text);
    st.step();
    BOOST_TEST(sqlite_text_length(text) == st.integer(0), "for " << text.size() << " bytes");
  }
}

// The store: a real SQLite file, written through commit_chunk and read back.
#define BOOST_TEST_MODULE store
#include <boost/test/unit_test.hpp>

#include "store/database.hpp"
#include "store/schema.hpp"
#include "store/store.hpp"
#include "temp_dir.hpp"

#include <sys/stat.h>

#include <chrono>

using namespace helix;

namespace {

struct StoreFixture {
  test::TempDir dir;
  Store store{dir / "store/helix.db"};
  SourceCursor cursor;

  StoreFixture() {
    cursor.path = (dir / "source.jsonl").string();
    cursor.flavor = "demo";
    cursor.adapter = "demo";
    cursor.layout = 1;
  }

  EventRecord event(std::string session, uint64_t offset, std::string kind, std::string uid = "",
                    std::string parent = "") {
    EventRecord e;
    e.session_id = std::move(session);
    e.source_offset = offset;
    e.kind = std::move(kind);
    e.uid = std::move(uid);
    e.parent_uid = std::move(parent);
    e.ts_ms = 1700000000000 + static_cast<int64_t>(offset);
    return e;
  }

  UsageRecord usage(std::string key, int64_t in, int64_t out, uint64_t offset) {
    UsageRecord u;
    u.session_id = "s1";
    u.key = std::move(key);
    u.input_tokens = in;
    u.output_tokens = out;
    u.cache_read_tokens = 100;
    u.source_offset = offset;
    return u;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(store, StoreFixture)

BOOST_AUTO_TEST_CASE(round_trip_keeps_fields_bodies_and_links) {
  RecordBatch batch;
  SessionRecord s;
  s.native_id = "s1";
  s.cwd = "/nowhere/proj";
  s.repo = "proj";  // resolved by the reading side; the store keeps what it is given
  s.domain = "forge";
  s.title = "first title";
  s.model = "m1";
  batch.sessions.push_back(s);
  s.cwd = "/elsewhere/other";  // cwd (and its repo and domain): the first known value wins
  s.repo = "other";
  s.domain = "";
  s.title = "second title";  // title: the latest wins
  s.model = "";              // empty never erases
  batch.sessions.push_back(s);
  batch.payloads = {R"({"raw":1})"};
  auto call = event("s1", 0, "tool_call", "u1");
  call.tool = "Bash";
  call.call_id = "c1";
  call.text = "ls -la";
  call.payload_index = 0;
  auto result = event("s1", 20, "tool_result", "u2", "u1");
  result.call_id = "c1";  // no tool: inherited from the call
  result.text = "total 0";
  batch.events = {call, result};
  cursor.offset = 40;
  auto stats = store.commit_chunk(cursor, batch, false);
  BOOST_TEST(stats.events_added == 2);
  BOOST_TEST(cursor.id > 0);

  auto row = store.session("demo:s1");
  BOOST_REQUIRE(row);
  BOOST_TEST(row->cwd == "/nowhere/proj");
  BOOST_TEST(row->repo == "proj");
  BOOST_TEST(row->domain == "forge");
  BOOST_TEST(row->title == "second title");
  BOOST_TEST(row->model == "m1");
  BOOST_TEST(row->event_count == 2);
  BOOST_TEST(row->started_at_ms == 1700000000000);
  BOOST_TEST(row->ended_at_ms == 1700000000020);

  auto events = store.events("demo:s1", true);
  BOOST_REQUIRE(events.size() == 2u);
  BOOST_TEST(events[0].seq == 0);
  BOOST_TEST(events[0].text == "ls -la");
  BOOST_TEST(events[0].payload == R"({"raw":1})");
  BOOST_TEST(events[0].payload_ref.rfind("blob://pack/", 0) == 0u);
  BOOST_TEST(events[1].parent_seq == 0);
  BOOST_TEST(events[1].tool == "Bash");
  BOOST_TEST(events[1].text == "total 0");
  BOOST_TEST(events[1].payload.empty());

  auto stored = store.find_source(cursor.path);
  BOOST_REQUIRE(stored);
  BOOST_TEST(stored->offset == 40);
}

BOOST_AUTO_TEST_CASE(usage_keeps_the_largest_record_per_key) {
  RecordBatch batch;
  batch.usage = {usage("msg1/req1", 10, 8, 0), usage("msg1/req1", 10, 143, 50),
                 usage("msg1/req1", 10, 20, 90), usage("", 5, 5, 120), usage("", 5, 5, 130)};
  store.commit_chunk(cursor, batch, false);
  auto row = store.session("demo:s1");
  BOOST_REQUIRE(row);
  BOOST_TEST(row->usage.input_tokens == 10 + 5 + 5);  // keyless records are each unique
  BOOST_TEST(row->usage.output_tokens == 143 + 5 + 5);
  BOOST_TEST(row->usage.cache_read_tokens == 300);
}

BOOST_AUTO_TEST_CASE(copies_of_a_record_are_stored_once) {
  RecordBatch first;
  first.events = {event("s1", 0, "user_msg", "u1"), event("s1", 10, "assistant_msg", "u2")};
  store.commit_chunk(cursor, first, false);
  SourceCursor other = cursor;  // the same records copied into another file (a resume)
  other.id = 0;
  other.path = (dir / "copy.jsonl").string();
  RecordBatch copy;
  copy.events = {event("s1", 0, "user_msg", "u1"), event("s1", 10, "assistant_msg", "u2"),
                 event("s1", 20, "user_msg", "u3")};
  auto stats = store.commit_chunk(other, copy, false);
  BOOST_TEST(stats.events_added == 1);
  BOOST_TEST(stats.events_skipped_as_copies == 2);
  BOOST_TEST(store.events("demo:s1", false).size() == 3u);
}

BOOST_AUTO_TEST_CASE(a_rewritten_file_cannot_lose_a_record_another_file_holds) {
  RecordBatch chat;  // e.g. Grok chat_history.jsonl: no times, rewritten on compaction
  chat.events = {event("s1", 0, "user_msg", "p1"), event("s1", 10, "assistant_msg", "r1")};
  for (auto& e : chat.events) e.ts_ms = 0;
  store.commit_chunk(cursor, chat, false);
  SourceCursor updates = cursor;  // e.g. updates.jsonl: the same records, with times
  updates.id = 0;
  updates.path = (dir / "updates.jsonl").string();
  RecordBatch log;
  log.events = {event("s1", 0, "user_msg", "p1"), event("s1", 50, "assistant_msg", "r1")};
  store.commit_chunk(updates, log, false);
  auto stored = store.events("demo:s1", false);
  BOOST_REQUIRE(stored.size() == 2u);
  BOOST_TEST(stored[1].ts_ms == 1700000000050);  // the copy filled the missing time
  // The first file is rewritten without the reply: its rows go, the other file's copy stays.
  ++cursor.generation;
  RecordBatch compacted;
  compacted.events = {event("s1", 0, "user_msg", "p1")};
  store.commit_chunk(cursor, compacted, true);
  stored = store.events("demo:s1", false);
  BOOST_REQUIRE(stored.size() == 2u);
  BOOST_TEST(stored[0].kind == "user_msg");
  BOOST_TEST(stored[1].kind == "assistant_msg");
  BOOST_TEST(stored[1].source_path == updates.path);
  BOOST_TEST(stored[0].seq != stored[1].seq);
}

BOOST_AUTO_TEST_CASE(a_new_generation_replaces_the_source_rows_atomically) {
  RecordBatch batch;
  batch.events = {event("s1", 0, "user_msg"), event("s1", 10, "assistant_msg")};
  batch.usage = {usage("k", 1, 1, 10)};
  store.commit_chunk(cursor, batch, false);
  ++cursor.generation;
  RecordBatch rewritten;
  rewritten.events = {event("s1", 0, "user_msg")};
  store.commit_chunk(cursor, rewritten, true);
  BOOST_TEST(store.events("demo:s1", false).size() == 1u);
  BOOST_TEST(store.session("demo:s1")->usage.input_tokens == 0);
}

BOOST_AUTO_TEST_CASE(two_events_at_one_position_keep_the_first_and_warn) {
  RecordBatch batch;
  batch.events = {event("s1", 0, "user_msg"), event("s1", 0, "assistant_msg")};
  auto stats = store.commit_chunk(cursor, batch, false);
  BOOST_TEST(stats.events_added == 1);
  BOOST_TEST(store.status().warnings == 1);
}

BOOST_AUTO_TEST_CASE(status_measures_tier1_bytes) {
  auto before = store.status().tier1_bytes;
  RecordBatch batch;
  for (int i = 0; i < 200; ++i) {
    auto e = event("s1", static_cast<uint64_t>(i) * 100, "assistant_msg");
    e.text = std::string(2000, static_cast<char>('a' + i % 26)) + std::to_string(i);
    batch.events.push_back(e);
  }
  store.commit_chunk(cursor, batch, false);
  auto after = store.status();
  BOOST_TEST(after.events == 200);
  BOOST_TEST(after.tier1_bytes > before);
  BOOST_TEST(after.tier1_bytes <= after.file_bytes);
}

BOOST_AUTO_TEST_CASE(a_batch_commits_by_volume_and_a_failed_chunk_leaves_nothing) {
  const auto file = dir / "store/helix.db";
  store.begin_batch(1000, std::chrono::hours(1));
  RecordBatch batch;
  batch.events = {event("s1", 0, "user_msg"), event("s1", 10, "assistant_msg")};
  cursor.offset = 20;
  store.commit_chunk(cursor, batch, false, 20);  // below the volume: still open
  BOOST_TEST(Store(file, true).status().events == 0);

  // A cursor whose row cannot be saved (another source has its path) fails at the very end
  // of its chunk, after its session and events were written.
  SourceCursor unknown = cursor;
  unknown.id = 424242;
  RecordBatch other;
  other.events = {event("s2", 0, "user_msg")};
  BOOST_CHECK_THROW(store.commit_chunk(unknown, other, false, 20), std::runtime_error);

  RecordBatch more;
  more.events = {event("s1", 20, "assistant_msg")};
  cursor.offset = 30;
  store.commit_chunk(cursor, more, false, 2000);  // past the volume: committed
  Store reader(file, true);
  BOOST_TEST(reader.status().events == 3);
  BOOST_TEST(!reader.session("demo:s2"));
  BOOST_TEST(reader.find_source(cursor.path)->offset == 30);
  store.end_batch();
}

BOOST_AUTO_TEST_CASE(a_batch_left_open_commits_at_its_end) {
  store.begin_batch(1 << 30, std::chrono::hours(1));
  RecordBatch batch;
  batch.events = {event("s1", 0, "user_msg")};
  store.commit_chunk(cursor, batch, false, 10);
  store.end_batch();
  BOOST_TEST(Store(dir / "store/helix.db", true).status().events == 1);
}

// A batch that SQLite undoes whole (as after a full disk or an I/O error: here a trigger's
// RAISE(ROLLBACK) on one event) or whose COMMIT fails (a deferred foreign key left broken)
// throws BatchLost, and the search entries of its events go with it: the next batch reuses
// their event ids, and a stale entry would index other words under them.
struct LostBatchFixture : StoreFixture {
  std::filesystem::path file = dir / "store/helix.db";

  EventRecord said(uint64_t offset, const std::string& text) {
    EventRecord e = event("s1", offset, "user_msg", "u" + std::to_string(offset));
    e.text = text;
    return e;
  }

  // Batches `doomed` after a first chunk; the batch is lost. Then another source's chunk
  // commits in a new batch: the store must hold exactly that one, and a sound search index.
  void lose_a_batch_then_commit_another(const EventRecord& doomed) {
    store.begin_batch(1000, std::chrono::hours(1));
    RecordBatch first;
    first.events = {said(0, "quokkafizz one"), said(10, "quokkafizz two")};
    cursor.offset = 20;
    store.commit_chunk(cursor, first, false, 20);
    RecordBatch second;
    second.events = {doomed};
    cursor.offset = 600;
    BOOST_CHECK_THROW(store.commit_chunk(cursor, second, false, 2000), BatchLost);
    BOOST_TEST(!store.find_source(cursor.path));  // its row was in the lost batch too

    SourceCursor other = cursor;
    other.path = (dir / "other.jsonl").string();
    other.offset = 30;
    RecordBatch next;
    next.events = {said(0, "marmoset one"), said(10, "marmoset two"), said(20, "marmoset 3")};
    store.commit_chunk(other, next, false, 2000);
    store.end_batch();

    Database db(file);
    auto count = [&](const std::string& sql) {
      auto st = db.prepare(sql);
      st.step();
      return st.integer(0);
    };
    BOOST_TEST(count("SELECT count(*) FROM events") == 3);
    BOOST_TEST(count("SELECT count(*) FROM sources") == 1);
    BOOST_TEST(count("SELECT count(*) FROM search_events WHERE search_events MATCH 'quokkafizz'") ==
               0);
    BOOST_TEST(count("SELECT count(*) FROM search_events WHERE search_events MATCH 'marmoset'") ==
               3);
    BOOST_CHECK_NO_THROW(
        db.exec("INSERT INTO search_events (search_events, rank) VALUES ('integrity-check', 1)"));
  }
};

BOOST_FIXTURE_TEST_CASE(a_batch_sqlite_rolls_back_leaves_no_search_entry_behind, LostBatchFixture) {
  store.database().exec(
      "CREATE TRIGGER test_rollback BEFORE INSERT ON events WHEN NEW.source_offset = 500 "
      "BEGIN SELECT RAISE(ROLLBACK, 'forced rollback'); END");
  lose_a_batch_then_commit_another(said(500, "zebrawomble"));
}

BOOST_FIXTURE_TEST_CASE(a_batch_whose_commit_fails_is_lost_whole, LostBatchFixture) {
  store.database().exec(R"sql(
    CREATE TABLE test_parent (id INTEGER PRIMARY KEY);
    CREATE TABLE test_child (parent INTEGER REFERENCES test_parent (id)
                             DEFERRABLE INITIALLY DEFERRED);
    CREATE TRIGGER test_break_commit AFTER INSERT ON events WHEN NEW.source_offset = 500
    BEGIN INSERT INTO test_child VALUES (1); END)sql");
  lose_a_batch_then_commit_another(said(500, "zebrawomble"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_CASE(a_cached_statement_comes_back_reset_and_unbound) {
  test::TempDir dir;
  Database db(dir / "helix.db");
  db.exec("CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (1), (2), (3)");
  const char* sql = "SELECT n FROM t WHERE ?1 IS NULL OR n >= ?1 ORDER BY n";
  {
    auto first = db.cached(sql);
    first->bind(1, int64_t{2});
    BOOST_TEST(first->step());
    BOOST_TEST(first->integer(0) == 2);
    auto second = db.cached(sql);  // lent out already: a statement of its own
    BOOST_TEST(second->step());
    BOOST_TEST(second->integer(0) == 1);
    BOOST_TEST(first->step());
    BOOST_TEST(first->integer(0) == 3);
  }  // both leases end mid-result
  auto again = db.cached(sql);
  BOOST_TEST(again->step());  // from the first row, with no value left bound
  BOOST_TEST(again->integer(0) == 1);
}

BOOST_AUTO_TEST_CASE(a_store_from_a_newer_helix_is_refused) {
  test::TempDir dir;
  {
    Database db(dir / "helix.db");
    db.exec("PRAGMA user_version = 99");
  }
  for (bool read_only : {false, true})  // read-only commands cannot know what its tables mean
    BOOST_CHECK_EXCEPTION(
        Store(dir / "helix.db", read_only), std::runtime_error, [](const std::exception& e) {
          return std::string(e.what()).find("newer than this helix-host") != std::string::npos;
        });
}

// With umask 000, every folder the store creates on its way is still private to its user.
BOOST_AUTO_TEST_CASE(the_store_folders_are_created_private_whatever_the_umask) {
  test::TempDir dir;
  const mode_t old = ::umask(0);
  { Store store(dir / "a/b/c/helix.db"); }
  ::umask(old);
  for (const char* folder : {"a", "a/b", "a/b/c"})
    BOOST_TEST(static_cast<unsigned>(std::filesystem::status(dir / folder).permissions() &
                                     std::filesystem::perms::mask) == 0700u,
               folder);
  BOOST_TEST(static_cast<unsigned>(std::filesystem::status(dir / "a/b/c/helix.db").permissions() &
                                   std::filesystem::perms::mask) == 0600u);
}

BOOST_AUTO_TEST_CASE(reading_a_missing_store_says_to_sweep_first) {
  test::TempDir dir;
  BOOST_CHECK_EXCEPTION(
      Store(dir / "none/helix.db", true), std::runtime_error, [](const std::exception& e) {
        return std::string(e.what()).find("run 'helix-host sweep'") != std::string::npos;
      });
}

// Descriptors this process holds open on `file` (SQLite keeps one per open connection).
int open_descriptors_on(const std::filesystem::path& file) {
  int n = 0;
  for (const auto& fd : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    if (std::filesystem::read_symlink(fd.path(), ec) == file) ++n;
  }
  return n;
}

BOOST_AUTO_TEST_CASE(a_file_that_is_not_a_store_is_refused_and_left_closed) {
  test::TempDir dir;
  const auto file = std::filesystem::canonical(dir.path()) / "helix.db";
  test::write_file(file, std::string(8192, 'x'));  // opens fine; its first read fails
  for (int attempt = 0; attempt < 3; ++attempt)
    BOOST_CHECK_EXCEPTION(Database{file}, std::runtime_error, [](const std::exception& e) {
      return std::string(e.what()).find("not a database") != std::string::npos;
    });
  BOOST_TEST(open_descriptors_on(file) == 0);
}

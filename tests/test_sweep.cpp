// The sweep and its cursors, end to end: real plugins from the build, real files in a temporary
// agent home, a real store. Each case compares stores, so it holds for any adapter mapping.
#define BOOST_TEST_MODULE sweep
#include <boost/test/unit_test.hpp>

#include "adapter_harness.hpp"
#include "config/config.hpp"
#include "ingest/sweep.hpp"
#include "store/store.hpp"
#include "store_dump.hpp"
#include "temp_dir.hpp"

#include <zstd.h>
#include <algorithm>
#include <cstdlib>

using namespace helix;

namespace {

const std::string kSessionFile = "entire-2.1.17-interrupts-synthetic.jsonl";
const std::string kSessionId = "d563fb6b-39cf-4895-bb5f-681c33e58bbc";

// A Claude Code home in a temp dir, a store, and the build's plugins.
struct SweepFixture {
  test::TempDir dir;
  PluginRegistry registry;
  Config config;
  std::filesystem::path project = dir / "claude/projects/-work-demo";

  SweepFixture() {
    registry.load_directory(HELIX_TEST_PLUGIN_DIR);
    ::setenv("CLAUDE_CONFIG_DIR", (dir / "claude").c_str(), 1);
    ::setenv("CODEX_HOME", (dir / "no-codex").c_str(), 1);
    ::setenv("GROK_HOME", (dir / "no-grok").c_str(), 1);
    ::setenv("GEMINI_CLI_HOME", (dir / "no-gemini").c_str(), 1);
    std::filesystem::create_directories(project);
  }

  std::string fixture_bytes() const {
    return test::read_file(test::fixture("claude/" + kSessionFile));
  }
  std::filesystem::path session_path(const std::string& suffix = "") const {
    return project / (kSessionId + ".jsonl" + suffix);
  }

  SweepReport sweep(const std::string& store_name = "store") {
    Store store(dir / store_name / "helix.db");
    Sweep sweep(store, registry, config);
    return sweep.run();
  }

  int64_t events(const std::string& store_name = "store") {
    Store store(dir / store_name / "helix.db");
    return store.status().events;
  }

  // Events of these bytes swept in one go, as a fresh file into a store of its own: the oracle
  // every other way of arriving at the same bytes must equal.
  int64_t events_of(const std::string& bytes, const std::string& name = "ref") {
    test::write_file(dir / name / "claude/projects/-work-demo" / (kSessionId + ".jsonl"), bytes);
    ::setenv("CLAUDE_CONFIG_DIR", (dir / name / "claude").c_str(), 1);
    sweep(name + "-store");
    ::setenv("CLAUDE_CONFIG_DIR", (dir / "claude").c_str(), 1);
    return events(name + "-store");
  }
  int64_t events_of_whole_file() { return events_of(fixture_bytes()); }
};

std::string first_lines(const std::string& bytes, int n) {
  std::size_t pos = 0;
  for (int i = 0; i < n; ++i) pos = bytes.find('\n', pos) + 1;
  return bytes.substr(0, pos);
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(sweep_and_cursors, SweepFixture)

BOOST_AUTO_TEST_CASE(a_second_sweep_over_unchanged_sources_reads_nothing) {
  test::write_file(session_path(), fixture_bytes());
  auto first = sweep();
  BOOST_TEST(first.sources_new == 1);
  BOOST_TEST(first.events_added > 100);
  auto second = sweep();
  BOOST_TEST(second.sources_unchanged == 1);
  BOOST_TEST(second.events_added == 0);
  BOOST_TEST(second.bytes_read == 0);
  BOOST_TEST(events() == first.events_added);
}

BOOST_AUTO_TEST_CASE(appended_lines_are_ingested_exactly_once) {
  const std::string all = fixture_bytes();
  const std::string head = first_lines(all, 40);
  test::write_file(session_path(), head);
  auto first = sweep();
  test::write_file(session_path(), all.substr(head.size()), /*append=*/true);
  auto second = sweep();
  BOOST_TEST(second.sources_changed == 1);
  BOOST_TEST(second.bytes_read == static_cast<int64_t>(all.size() - head.size()));
  BOOST_TEST(events() == events_of_whole_file());
  BOOST_TEST(first.events_added + second.events_added == events());
}

BOOST_AUTO_TEST_CASE(a_partial_last_line_waits_for_its_newline) {
  const std::string all = fixture_bytes();
  const std::string head = first_lines(all, 30);
  const std::string line = first_lines(all, 31).substr(head.size());
  test::write_file(session_path(), head + line.substr(0, line.size() / 2));
  sweep();
  const int64_t before = events();
  {
    Store store(dir / "store/helix.db");
    BOOST_TEST(store.find_source(session_path().string())->offset ==
               static_cast<int64_t>(head.size()));
  }
  test::write_file(session_path(),
                   line.substr(line.size() / 2) + all.substr(head.size() + line.size()),
                   /*append=*/true);
  sweep();
  BOOST_TEST(events() > before);
  BOOST_TEST(events() == events_of_whole_file());
}

BOOST_AUTO_TEST_CASE(a_finished_last_line_without_newline_is_ingested_once_the_file_is_quiet) {
  std::string all = fixture_bytes();
  if (all.back() == '\n') all.pop_back();
  test::write_file(session_path(), all);
  config.final_line_grace_seconds = 3600;  // just written: the writer may be mid-line
  sweep();
  const int64_t waiting = events();
  config.final_line_grace_seconds = 0;  // quiet long enough: the complete record goes in
  auto report = sweep();
  BOOST_TEST(report.events_added > 0);
  BOOST_TEST(events() > waiting);
  {
    Store store(dir / "store/helix.db");
    BOOST_TEST(store.find_source(session_path().string())->offset ==
               static_cast<int64_t>(all.size()));
  }
  // The agent goes on writing: a newline and a copy of a stored record. Nothing is read twice.
  const std::string bytes = fixture_bytes();
  const std::size_t at = bytes.rfind('\n', bytes.find("\"type\":\"assistant\"")) + 1;
  test::write_file(session_path(), "\n" + bytes.substr(at, bytes.find('\n', at) + 1 - at),
                   /*append=*/true);
  auto more = sweep();
  BOOST_TEST(more.sources_rewritten == 0);
  BOOST_TEST(more.events_added == 0);  // that record is a copy of one already stored
  BOOST_TEST(sweep().sources_unchanged == 1);
}

BOOST_AUTO_TEST_CASE(an_unfinished_last_line_is_never_delivered) {
  test::write_file(session_path(), first_lines(fixture_bytes(), 5) + "{\"type\":\"user\",\"mess");
  config.final_line_grace_seconds = 0;
  sweep();
  Store store(dir / "store/helix.db");
  BOOST_TEST(store.find_source(session_path().string())->offset ==
             static_cast<int64_t>(first_lines(fixture_bytes(), 5).size()));
}

BOOST_AUTO_TEST_CASE(small_chunks_give_the_same_store_as_one_read) {
  config.chunk_bytes = 4096;
  test::write_file(session_path(), fixture_bytes());
  sweep();
  BOOST_TEST(events() == events_of_whole_file());
}

BOOST_AUTO_TEST_CASE(a_file_rewritten_in_place_replaces_its_rows_without_duplicates) {
  const std::string all = fixture_bytes();
  test::write_file(session_path(), all);
  sweep();
  const int64_t full = events();
  // Same inode, new shorter content (a rewind/compaction rewrite).
  test::write_file(session_path(), first_lines(all, 10));
  auto report = sweep();
  BOOST_TEST(report.sources_rewritten == 1);
  BOOST_TEST(events() == events_of(first_lines(all, 10), "ref-10"));
  BOOST_TEST(events() < full);
  // Growing back to the full content: the head fingerprint matches, the rows extend.
  test::write_file(session_path(), all);
  sweep();
  BOOST_TEST(events() == full);
}

BOOST_AUTO_TEST_CASE(a_renamed_file_keeps_its_cursor_and_a_deleted_one_its_rows) {
  test::write_file(session_path(), fixture_bytes());
  sweep();
  const int64_t stored = events();
  std::filesystem::rename(session_path(), project / "renamed-copy.jsonl");
  auto moved = sweep();
  BOOST_TEST(moved.sources_new == 0);
  BOOST_TEST(moved.events_added == 0);
  BOOST_TEST(moved.sources_missing == 0);
  std::filesystem::remove(project / "renamed-copy.jsonl");
  auto gone = sweep();
  BOOST_TEST(gone.sources_missing == 1);
  BOOST_TEST(events() == stored);
  Store store(dir / "store/helix.db");
  BOOST_TEST(store.find_source((project / "renamed-copy.jsonl").string())->state ==
             helix::SourceState::missing);
}

BOOST_AUTO_TEST_CASE(compressed_sources_read_like_plain_ones_and_plain_wins) {
  const std::string raw = fixture_bytes();
  std::string packed(ZSTD_compressBound(raw.size()), '\0');
  packed.resize(ZSTD_compress(packed.data(), packed.size(), raw.data(), raw.size(), 3));
  test::write_file(session_path(".zst"), packed);
  // Claude's patterns do not list .zst; make the host see it through a config root whose
  // adapter does: here we read it directly through the sweep's path entry point.
  Store store(dir / "store/helix.db");
  Sweep one(store, registry, config);
  auto report = one.run_paths({session_path(".zst").string()});
  BOOST_TEST(report.sources_failed == 0);
  BOOST_TEST(store.status().events == events_of_whole_file());
}

BOOST_AUTO_TEST_CASE(codex_zst_rollouts_are_found_and_the_plain_copy_wins) {
  const std::string name = "rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl";
  const std::string raw = test::read_file(test::fixture("codex/" + name));
  std::string packed(ZSTD_compressBound(raw.size()), '\0');
  packed.resize(ZSTD_compress(packed.data(), packed.size(), raw.data(), raw.size(), 3));
  auto day = dir / "codex/sessions/2026/02/23";
  ::setenv("CODEX_HOME", (dir / "codex").c_str(), 1);
  test::write_file(day / (name + ".zst"), packed);  // archived copy only
  auto compressed = sweep("zst-store");
  BOOST_TEST(compressed.sources_new == 1);
  BOOST_TEST(compressed.events_added ==
             10);                     // prompt, reply, thinking, call, 2 lifecycle, 4 context
  test::write_file(day / name, raw);  // both present: only the plain file is read
  auto both = sweep("both-store");
  BOOST_TEST(both.sources_seen == 1);
  BOOST_TEST(both.events_added == compressed.events_added);
  Store store(dir / "both-store/helix.db");
  BOOST_TEST(!store.find_source((day / (name + ".zst")).string()));
  BOOST_TEST(store.find_source((day / name).string())->adapter == "codex");
}

BOOST_AUTO_TEST_CASE(a_file_no_plugin_recognises_is_reported_and_left_unread) {
  test::write_file(project / "notes.jsonl", "just some notes\nnot a transcript\n");
  auto report = sweep();
  BOOST_TEST(report.sources_unclaimed == 1);
  BOOST_TEST(report.events_added == 0);
  BOOST_REQUIRE(!report.problems.empty());
  BOOST_TEST(report.problems.front().find("no loaded plugin recognises this file") !=
             std::string::npos);
}

// The store's first batch holding the record at `offset` of `path` cannot commit: a trigger
// breaks a deferred foreign key, which fails the COMMIT, as a full disk or an I/O error would.
void break_the_commit_at(const std::filesystem::path& db_file, const std::string& path,
                         int64_t offset) {
  Store store(db_file);
  store.database().exec(fmt::format(R"sql(
    CREATE TABLE test_parent (id INTEGER PRIMARY KEY);
    CREATE TABLE test_child (parent INTEGER REFERENCES test_parent (id)
                             DEFERRABLE INITIALLY DEFERRED);
    CREATE TRIGGER test_break_commit AFTER INSERT ON events
    WHEN NEW.source_offset = {} AND NEW.source_id = (SELECT id FROM sources WHERE path = '{}')
    BEGIN INSERT INTO test_child VALUES (1); END)sql",
                                    offset, path));
}

void mend_the_commit(const std::filesystem::path& db_file) {
  Store store(db_file);
  store.database().exec(
      "DROP TRIGGER test_break_commit; DROP TABLE test_child; "
      "DROP TABLE test_parent");
}

// A batch lost mid-file must not cost a record: the visit stops there (its cursor stays where
// the last committed batch left it), and the next sweep ends with what a clean sweep stores,
// search index included.
BOOST_AUTO_TEST_CASE(after_a_lost_batch_the_next_sweep_stores_what_a_clean_sweep_stores) {
  config.chunk_bytes = 4096;  // dozens of batches per file
  // The default quiet period: a cursor left mid-file is marked unfinished, so the next sweep
  // reads on at once rather than taking the rest for a last line still being written.
  const std::string bytes = fixture_bytes();
  test::write_file(session_path(), bytes);
  test::write_file(project / "zz-second.jsonl",
                   test::read_file(test::fixture("claude/entire-2.0.76-tool-errors.jsonl")));
  BOOST_REQUIRE(sweep("clean").sources_failed == 0);

  int64_t offset = 0;  // of an event halfway through the first file
  {
    Store clean(dir / "clean/helix.db", true);
    auto st =
        clean.database().prepare("SELECT min(source_offset) FROM events WHERE source_offset >= ?");
    st.bind(1, static_cast<int64_t>(bytes.size() / 2));
    BOOST_REQUIRE(st.step());
    offset = st.integer(0);
  }
  const auto db_file = dir / "store/helix.db";
  break_the_commit_at(db_file, session_path().string(), offset);
  const SweepReport broken = sweep();
  BOOST_TEST(broken.sources_failed == 1);
  BOOST_TEST(std::count_if(broken.problems.begin(), broken.problems.end(), [](const auto& p) {
               return p.find("could not commit its latest writes") != std::string::npos;
             }) == 1);
  BOOST_TEST(broken.store_failures == 1);
  BOOST_TEST(broken.events_added == Store(db_file, true).status().events);  // what it holds
  BOOST_TEST(Store(db_file, true).find_source(session_path().string())->offset <= offset);
  mend_the_commit(db_file);

  const SweepReport next = sweep();
  BOOST_TEST(next.sources_failed == 0);
  BOOST_TEST(next.events_added > 0);
  const auto expected = test::dump_store(dir / "clean/helix.db");
  const auto actual = test::dump_store(db_file);
  BOOST_TEST((actual == expected), test::first_difference(expected, actual));
  Store store(db_file);
  BOOST_CHECK_NO_THROW(store.database().exec(
      "INSERT INTO search_events (search_events, rank) VALUES ('integrity-check', 1)"));
}

// Counts and messages of a visit whose write failed are still reported, not only the failure.
BOOST_AUTO_TEST_CASE(a_failed_write_keeps_the_rest_of_its_visits_report) {
  test::write_file(project / "notes.jsonl", "just some notes\nnot a transcript\n");
  Store(dir / "store/helix.db")
      .database()
      .exec(
          "CREATE TRIGGER test_refuse BEFORE INSERT ON sources WHEN NEW.state = 'unclaimed' "
          "BEGIN SELECT RAISE(ABORT, 'forced failure'); END");
  auto report = sweep();
  BOOST_TEST(report.sources_failed == 1);
  BOOST_TEST(report.sources_unclaimed == 1);
  auto mentions = [&](const std::string& text) {
    return std::any_of(report.problems.begin(), report.problems.end(),
                       [&](const auto& p) { return p.find(text) != std::string::npos; });
  };
  BOOST_TEST(mentions("forced failure"));
  BOOST_TEST(mentions("no loaded plugin recognises this file"));
}

// A rewrite that changes the first prompt changes the title derived from it.
BOOST_AUTO_TEST_CASE(a_rewrite_changes_the_title_derived_from_the_first_prompt) {
  const std::string all = fixture_bytes();
  test::write_file(session_path(), all);
  sweep();
  const std::string uid = "claude:" + kSessionId;
  auto title = [&] {
    Store store(dir / "store" / "helix.db");
    return store.session(uid).value().title;
  };
  BOOST_TEST(title().starts_with("can you look at the changes in this branch"));
  std::string rewritten = first_lines(all, 10);
  const std::string old_prompt = "can you look at the changes in this branch";
  rewritten.replace(rewritten.find(old_prompt), old_prompt.size(), "please write the changelog");
  test::write_file(session_path(), rewritten);
  BOOST_TEST(sweep().sources_rewritten == 1);
  BOOST_TEST(title().starts_with("please write the changelog"), title());
}

BOOST_AUTO_TEST_SUITE_END()

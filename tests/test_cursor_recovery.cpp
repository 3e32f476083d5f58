// Cursors under the file operations agents and administrators really do: rotation (renamed
// away, a new file in its place), atomic rewrites through a temp file and rename, truncation
// and regrowth past the old offset, inode reuse, and a vanished file coming back. Each case
// ends with a store equal in content to a fresh sweep of the final files, and checks how much
// was read (a followed file is not read again).
#define BOOST_TEST_MODULE cursor_recovery
#include <boost/test/unit_test.hpp>

#include "config/config.hpp"
#include "ingest/sweep.hpp"
#include "store/store.hpp"
#include "temp_dir.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <cstdlib>
#include <map>

using namespace helix;

namespace {

const std::string kA = "claude/entire-2.1.17-interrupts-synthetic.jsonl";
const std::string kB = "claude/entire-2.0.76-tool-errors.jsonl";

std::string fixture(const std::string& name) {
  return test::read_file(std::filesystem::path(HELIX_TEST_FIXTURE_DIR) / name);
}

std::string first_lines(const std::string& bytes, int n) {
  std::size_t pos = 0;
  for (int i = 0; i < n; ++i) pos = bytes.find('\n', pos) + 1;
  return bytes.substr(0, pos);
}

// Visible events per session: the content a store answers with, whatever the cursors were.
using Content = std::map<std::string, std::vector<std::string>>;

struct Home {
  test::TempDir dir;
  PluginRegistry registry;
  Config config;
  std::filesystem::path project = dir / "home/claude/projects/-work-demo";

  Home() {
    registry.load_directory(HELIX_TEST_PLUGIN_DIR);
    config.final_line_grace_seconds = 0;
    std::filesystem::create_directories(project);
  }

  SweepReport sweep(const std::string& home = "home", const std::string& store = "store") {
    ::setenv("CLAUDE_CONFIG_DIR", (dir / home / "claude").c_str(), 1);
    ::setenv("CODEX_HOME", (dir / "none").c_str(), 1);
    ::setenv("GROK_HOME", (dir / "none").c_str(), 1);
    ::setenv("GEMINI_CLI_HOME", (dir / "none").c_str(), 1);
    Store s(dir / store / "helix.db");
    Sweep sweep(s, registry, config);
    return sweep.run();
  }

  Content content(const std::string& store = "store") {
    Store s(dir / store / "helix.db", true);
    Content out;
    for (const auto& session : s.sessions(SessionFilter{}))
      for (const auto& e : s.events(session.uid, true))
        out[session.uid].push_back(fmt::format("{}|{}|{}|{}|{}", e.kind, e.uid, e.ordinal,
                                               e.summary, e.text));  // in seq order
    return out;
  }

  // A fresh sweep of copies of the project's current files, in a home and store of their own.
  Content reference() {
    const auto copy = dir / "ref-home/claude/projects/-work-demo";
    std::filesystem::remove_all(dir / "ref-home");
    std::filesystem::remove_all(dir / "ref-store");
    std::filesystem::create_directories(copy);
    for (const auto& f : std::filesystem::directory_iterator(project))
      std::filesystem::copy(f.path(), copy / f.path().filename());
    sweep("ref-home", "ref-store");
    return content("ref-store");
  }

  // Replaces `name` atomically, as editors and some agents do: temp file, then rename.
  void atomic_write(const std::string& name, const std::string& bytes) {
    test::write_file(project / (name + ".tmp"), bytes);
    std::filesystem::rename(project / (name + ".tmp"), project / name);
  }

  int64_t events() { return Store(dir / "store/helix.db", true).status().events; }
};

std::size_t total(const Content& c) {
  std::size_t n = 0;
  for (const auto& [uid, events] : c) n += events.size();
  return n;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(cursor_recovery, Home)

BOOST_AUTO_TEST_CASE(a_rotated_file_keeps_its_cursor_and_the_new_file_gets_its_own) {
  const std::string a = fixture(kA), b = fixture(kB);
  test::write_file(project / "live.jsonl", a);
  sweep();
  const auto before = content();
  // Rotation: the file moves away (still discovered) and a new file takes its name.
  std::filesystem::rename(project / "live.jsonl", project / "live-1.jsonl");
  test::write_file(project / "live.jsonl", b);
  auto report = sweep();
  BOOST_TEST(report.sources_rewritten == 0);
  BOOST_TEST(report.sources_new == 1);
  BOOST_TEST(report.bytes_read == static_cast<int64_t>(b.size()));  // the rotated one: not again
  BOOST_TEST(total(content()) > total(before));
  BOOST_TEST((content() == reference()));
  {
    Store s(dir / "store/helix.db", true);
    BOOST_TEST(s.find_source((project / "live-1.jsonl").string())->offset ==
               static_cast<int64_t>(a.size()));
  }
  // Rotated again: both earlier files move on, a third one arrives.
  std::filesystem::rename(project / "live-1.jsonl", project / "live-2.jsonl");
  std::filesystem::rename(project / "live.jsonl", project / "live-1.jsonl");
  test::write_file(project / "live.jsonl", first_lines(a, 3));
  report = sweep();
  BOOST_TEST(report.sources_rewritten == 0);
  BOOST_TEST(report.bytes_read == static_cast<int64_t>(first_lines(a, 3).size()));
  BOOST_TEST((content() == reference()));
}

BOOST_AUTO_TEST_CASE(an_atomic_rewrite_with_the_same_prefix_continues_at_the_offset) {
  const std::string a = fixture(kA);
  const std::string head = first_lines(a, 50);
  test::write_file(project / "s.jsonl", head);
  sweep();
  atomic_write("s.jsonl", a);  // a new inode holding the old bytes and more
  auto report = sweep();
  BOOST_TEST(report.sources_rewritten == 0);
  BOOST_TEST(report.bytes_read == static_cast<int64_t>(a.size() - head.size()));
  BOOST_TEST((content() == reference()));
}

BOOST_AUTO_TEST_CASE(an_atomic_rewrite_that_changes_old_bytes_starts_a_new_generation) {
  const std::string a = fixture(kA);
  test::write_file(project / "s.jsonl", a);
  sweep();
  const std::size_t full = total(content());
  // Same first 4 KiB, the rest of the transcript rewound to its first 60 lines (a rewind).
  atomic_write("s.jsonl", first_lines(a, 60));
  auto report = sweep();
  BOOST_TEST(report.sources_rewritten == 1);
  BOOST_TEST((content() == reference()));
  BOOST_TEST(total(content()) < full);  // the rewound records are gone, nothing doubled
}

BOOST_AUTO_TEST_CASE(truncated_and_regrown_past_the_offset_is_detected) {
  // Promtail's failure mode: after a truncate the file grows back beyond the old offset with
  // other bytes, so only the hash of the bytes before the offset can tell.
  const std::string a = fixture(kA);
  const std::string head = first_lines(a, 30);
  test::write_file(project / "s.jsonl", head);
  sweep();
  // Same first bytes; lines 20 to 40 gone, so other bytes sit before the old offset.
  const std::string regrown = first_lines(a, 20) + a.substr(first_lines(a, 40).size());
  BOOST_REQUIRE(regrown.size() > head.size());
  BOOST_REQUIRE(regrown.compare(0, 4096, head, 0, 4096) == 0);
  test::write_file(project / "s.jsonl", regrown);  // in place: same inode
  auto report = sweep();
  BOOST_TEST(report.sources_rewritten == 1);
  BOOST_TEST((content() == reference()));
}

BOOST_AUTO_TEST_CASE(a_new_file_on_a_reused_inode_does_not_take_a_vanished_files_rows) {
  const std::string a = fixture(kA), b = fixture(kB);
  test::write_file(project / "old.jsonl", a);
  sweep();
  const auto stored = content();
  std::filesystem::remove(project / "old.jsonl");
  test::write_file(project / "new.jsonl", b);
  {
    // The file system gave the new file the deleted file's inode: make the cursor say so.
    Store s(dir / "store/helix.db");
    auto cursor = s.find_source((project / "old.jsonl").string());
    struct stat st {};
    BOOST_REQUIRE(::stat((project / "new.jsonl").c_str(), &st) == 0);
    cursor->dev = st.st_dev;
    cursor->ino = st.st_ino;
    s.save_source(*cursor);
  }
  auto report = sweep();
  BOOST_TEST(report.sources_new == 1);
  BOOST_TEST(report.sources_missing == 1);
  BOOST_TEST(report.sources_rewritten == 0);
  auto now = content();
  for (const auto& [uid, events] : stored) BOOST_TEST((now[uid] == events), uid);
  Store s(dir / "store/helix.db", true);
  BOOST_TEST(s.find_source((project / "old.jsonl").string())->state == helix::SourceState::missing);
  BOOST_TEST(s.find_source((project / "new.jsonl").string())->offset ==
             static_cast<int64_t>(b.size()));
}

BOOST_AUTO_TEST_CASE(a_missing_file_that_comes_back_is_not_read_twice) {
  const std::string a = fixture(kA);
  test::write_file(project / "s.jsonl", a);
  sweep();
  const auto stored = content();
  std::filesystem::rename(project / "s.jsonl", dir / "backup.jsonl");  // out of every root
  BOOST_TEST(sweep().sources_missing == 1);
  BOOST_TEST((content() == stored));  // a missing source keeps its rows
  std::filesystem::copy(dir / "backup.jsonl", project / "s.jsonl");  // restored: a new inode
  auto report = sweep();
  BOOST_TEST(report.sources_rewritten == 0);
  BOOST_TEST(report.bytes_read == 0);
  BOOST_TEST((content() == stored));
  Store s(dir / "store/helix.db", true);
  BOOST_TEST(s.find_source((project / "s.jsonl").string())->state == helix::SourceState::active);
}

BOOST_AUTO_TEST_SUITE_END()

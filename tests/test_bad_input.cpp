// Damaged transcripts through the real sweep, for every adapter: invalid JSON, invalid UTF-8,
// NUL runs, torn records, two records on one line, very deep nesting, binary and empty files.
// Each case builds a damaged file from a real fixture and the undamaged file it stands for; the
// sweep of the damaged one must store exactly the events of the undamaged one (the good records
// around the damage are all there, nothing is invented) and report the damage with its file and
// offset. A single line of hundreds of MB runs through the helix-host binary to measure memory.
#define BOOST_TEST_MODULE bad_input
#include <boost/test/unit_test.hpp>

#include "host_process.hpp"
#include "ingest/sweep.hpp"
#include "store/store.hpp"
#include "temp_dir.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <random>
#include <set>

using namespace helix;

namespace {

struct Flavor {
  std::string name, fixture, home_relative;  // fixture under tests/fixtures; path in the home
};

const std::vector<Flavor> kFlavors = {
    {"claude", "claude/entire-2.1.17-interrupts-synthetic.jsonl",
     "claude/projects/-work-demo/d563fb6b-39cf-4895-bb5f-681c33e58bbc.jsonl"},
    {"codex", "codex/rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl",
     "codex/sessions/2026/02/23/"
     "rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl"},
    {"grok",
     "grok/hermetic-grok-1.0.41/grok_home/sessions/%2Ftmp%2Fgh%2Fproj/"
     "01a2029c-db54-7f63-8de6-3e496b22d736/updates.jsonl",
     "grok/sessions/%2Ftmp%2Fgh%2Fproj/01a2029c-db54-7f63-8de6-3e496b22d736/updates.jsonl"},
};

std::filesystem::path fixture(const std::string& name) {
  return std::filesystem::path(HELIX_TEST_FIXTURE_DIR) / name;
}

std::vector<std::string> lines_of(const std::string& bytes) {
  std::vector<std::string> out;
  for (std::size_t pos = 0; pos < bytes.size();) {
    std::size_t end = bytes.find('\n', pos);
    end = end == std::string::npos ? bytes.size() : end + 1;
    out.push_back(bytes.substr(pos, end - pos));
    pos = end;
  }
  return out;
}

std::string join(const std::vector<std::string>& lines, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t i = from; i < to && i < lines.size(); ++i) out += lines[i];
  return out;
}

std::string first_difference(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    const std::string x = i < a.size() ? a[i] : "<end>", y = i < b.size() ? b[i] : "<end>";
    if (x != y) return "expected " + x.substr(0, 300) + "\n  actual " + y.substr(0, 300);
  }
  return "none";
}

// A damaged file, the undamaged file it must read as, and the damage it must report.
struct Case {
  std::string name, damaged, clean;
  std::string category;  // empty: no damage warning expected
  int64_t offset = 0;    // where the damage is reported
  bool loose = false;    // compare the events without uid and summary
};

// One sweep of `bytes` as the flavor's file, into a fresh home and store of its own.
struct SweptStore {
  test::TempDir dir;
  std::filesystem::path file;
  SweepReport report;
  std::vector<std::string> events;  // every visible event, offsets and paths left out, sorted
  // The same without uid and summary: a record's uid may hash its exact bytes (Grok prompts),
  // and a summary cut counts characters of the unrepaired text.
  std::vector<std::string> loose;
  std::set<int64_t> offsets;  // of the records that gave events
  std::vector<std::tuple<std::string, int64_t, std::string>> warnings;  // path, offset, category

  SweptStore(const Flavor& flavor, const std::string& bytes) {
    file = dir / ("home/" + flavor.home_relative);
    test::write_file(file, bytes);
    ::setenv("CLAUDE_CONFIG_DIR", (dir / "home/claude").c_str(), 1);
    ::setenv("CODEX_HOME", (dir / "home/codex").c_str(), 1);
    ::setenv("GROK_HOME", (dir / "home/grok").c_str(), 1);
    ::setenv("GEMINI_CLI_HOME", (dir / "home/gemini").c_str(), 1);
    PluginRegistry registry;
    registry.load_directory(HELIX_TEST_PLUGIN_DIR);
    Config config;
    config.final_line_grace_seconds = 0;
    Store store(dir / "store/helix.db");
    Sweep sweep(store, registry, config);
    report = sweep.run();
    for (const auto& s : store.sessions(SessionFilter{}))
      for (const auto& e : store.events(s.uid, true)) {
        offsets.insert(e.source_offset);
        events.push_back(fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", s.uid, e.kind, e.role, e.tool,
                                     e.uid, e.call_id, e.ts_ms, e.is_sidechain, e.summary, e.text));
        loose.push_back(fmt::format("{}|{}|{}|{}|{}|{}|{}|{}", s.uid, e.kind, e.role, e.tool,
                                    e.call_id, e.ts_ms, e.is_sidechain, e.text));
      }
    std::sort(events.begin(), events.end());
    std::sort(loose.begin(), loose.end());
    auto st = store.database().prepare(
        "SELECT s.path, w.source_offset, w.category FROM warnings w JOIN sources s "
        "ON s.id = w.source_id");
    while (st.step()) warnings.emplace_back(st.text(0), st.integer(1), st.text(2));
  }

  bool warned(const std::string& category, int64_t offset) const {
    return std::find(warnings.begin(), warnings.end(),
                     std::make_tuple(file.string(), offset, category)) != warnings.end();
  }
  int64_t damage_warnings() const {
    int64_t n = 0;
    for (const auto& [path, offset, category] : warnings)
      n += category != "unknown_type" && category != "missing_field";
    return n;
  }
};

// The first line at or after `from` that holds a non-empty text field and gives events.
std::size_t line_with_text(const std::vector<std::string>& lines, std::size_t from,
                           const std::set<int64_t>& offsets) {
  for (std::size_t i = from; i < lines.size(); ++i) {
    if (!offsets.count(static_cast<int64_t>(join(lines, 0, i).size()))) continue;
    auto at = lines[i].find("\"text\":\"");
    if (at != std::string::npos && lines[i][at + 8] != '"' && lines[i][at + 8] != '\\') return i;
  }
  BOOST_FAIL("no line with a text field");
  return 0;
}

std::vector<Case> cases_for(const Flavor& flavor, const std::set<int64_t>& offsets) {
  const auto lines = lines_of(test::read_file(fixture(flavor.fixture)));
  BOOST_REQUIRE(lines.size() >= 6);
  const std::size_t k = lines.size() / 2;
  const std::string before = join(lines, 0, k), after = join(lines, k, lines.size());
  const auto at = static_cast<int64_t>(before.size());
  std::vector<Case> cases;
  cases.push_back({"invalid JSON", before + "{\"type\": nope, \"uuid\": }\n" + after,
                   before + after, "invalid_json", at});
  {
    const std::size_t t = line_with_text(lines, k, offsets);
    std::string bad = lines[t], good = lines[t];
    const auto pos = bad.find("\"text\":\"") + 8;
    bad.insert(pos, "\xC3\x28\xFF");
    good.insert(pos, "\xEF\xBF\xBD(\xEF\xBF\xBD");  // what the host stores in their place
    cases.push_back({"invalid UTF-8", join(lines, 0, t) + bad + join(lines, t + 1, lines.size()),
                     join(lines, 0, t) + good + join(lines, t + 1, lines.size()), "invalid_utf8",
                     static_cast<int64_t>(join(lines, 0, t).size()), /*loose=*/true});
  }
  cases.push_back({"a run of NUL bytes, then a record on the same line",
                   before + std::string(517, '\0') + after, before + after, "nul_bytes", at});
  cases.push_back({"a torn record followed by the next record on its line",
                   before + lines[k].substr(0, lines[k].size() / 2) + after, before + after,
                   "invalid_json", at});
  cases.push_back(
      {"two records on one line",
       before + lines[k].substr(0, lines[k].size() - 1) + join(lines, k + 1, lines.size()),
       before + after, "", 0});
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "{\"a\":";
  deep += "1" + std::string(100000, '}') + "\n";
  cases.push_back(
      {"100,000 levels of nesting", before + deep + after, before + after, "invalid_json", at});
  std::mt19937 random(7);
  std::string binary(4096, '\0');
  for (auto& c : binary) c = static_cast<char>(random() % 256);
  std::replace(binary.begin(), binary.end(), '\n', 'x');
  std::replace(binary.begin(), binary.end(), '\0', 'y');
  cases.push_back({"4 KiB of binary garbage", before + binary + "\n" + after, before + after,
                   "invalid_json", at});
  return cases;
}

}  // namespace

BOOST_AUTO_TEST_CASE(damaged_records_cost_only_themselves_in_every_adapter) {
  for (const auto& flavor : kFlavors) {
    const SweptStore whole(flavor, test::read_file(fixture(flavor.fixture)));
    for (const auto& c : cases_for(flavor, whole.offsets)) {
      BOOST_TEST_CONTEXT(flavor.name << ": " << c.name) {
        SweptStore clean(flavor, c.clean), damaged(flavor, c.damaged);
        BOOST_TEST(damaged.report.sources_failed == 0);
        BOOST_TEST(clean.events.size() > 5u);
        BOOST_TEST(damaged.events.size() == clean.events.size());
        if (c.loose)
          BOOST_TEST((damaged.loose == clean.loose), first_difference(clean.loose, damaged.loose));
        else
          BOOST_TEST((damaged.events == clean.events),
                     first_difference(clean.events, damaged.events));
        if (c.category.empty()) {
          BOOST_TEST(damaged.damage_warnings() == clean.damage_warnings());
          BOOST_TEST(damaged.report.bad_records == 0);
        } else {
          BOOST_TEST(damaged.warned(c.category, c.offset));
          BOOST_TEST(damaged.report.bad_records >= 1);
          const std::string line =
              fmt::format("{}: offset {}: {}", damaged.file.string(), c.offset, c.category);
          BOOST_TEST(std::any_of(damaged.report.problems.begin(), damaged.report.problems.end(),
                                 [&](const std::string& p) { return p.rfind(line, 0) == 0; }),
                     "no problem line starting with " << line);
        }
      }
    }
  }
}

// A UTF-8 byte order mark before the first record (editors and Windows tools write one): the
// file reads as without it, with no damage reported, and the next sweep finds it unchanged (the
// fingerprints are of the file's own bytes, not of the blanks the BOM is read as).
BOOST_AUTO_TEST_CASE(a_byte_order_mark_is_read_past_without_a_warning) {
  for (const auto& flavor : kFlavors) {
    BOOST_TEST_CONTEXT(flavor.name) {
      const std::string bytes = test::read_file(fixture(flavor.fixture));
      SweptStore plain(flavor, bytes);
      SweptStore marked(flavor, "\xEF\xBB\xBF" + bytes);
      BOOST_TEST(marked.damage_warnings() == 0);
      BOOST_TEST(!marked.events.empty());
      BOOST_TEST((marked.loose == plain.loose), first_difference(plain.loose, marked.loose));
      PluginRegistry registry;
      registry.load_directory(HELIX_TEST_PLUGIN_DIR);
      Config config;
      config.final_line_grace_seconds = 0;
      Store store(marked.dir / "store/helix.db");
      const SweepReport again = Sweep(store, registry, config).run();
      BOOST_TEST(again.sources_rewritten == 0);
      BOOST_TEST(again.events_added == 0);
    }
  }
}

BOOST_AUTO_TEST_CASE(empty_and_binary_files_never_stop_a_sweep) {
  for (const auto& flavor : kFlavors) {
    BOOST_TEST_CONTEXT(flavor.name) {
      SweptStore empty(flavor, "");
      BOOST_TEST(empty.report.sources_failed == 0);
      BOOST_TEST(empty.events.empty());
      std::mt19937 random(11);
      std::string binary(256 * 1024, '\0');
      for (auto& c : binary) c = static_cast<char>(random() % 256);
      SweptStore garbage(flavor, binary);
      BOOST_TEST(garbage.report.sources_failed == 0);
      BOOST_TEST(garbage.events.empty());
    }
  }
}

// R10: one line far larger than [sweep] max_record_bytes between good records. The sweep skips
// it reading bounded buffers, reports it, and keeps the records on both sides.
BOOST_AUTO_TEST_CASE(a_line_of_hundreds_of_megabytes_is_skipped_in_bounded_memory) {
  const Flavor& flavor = kFlavors.front();
  const auto lines = lines_of(test::read_file(fixture(flavor.fixture)));
  const std::size_t k = lines.size() / 2;
  test::TempDir dir;
  const auto file = dir / ("home/" + flavor.home_relative);
  constexpr std::size_t kLineBytes = std::size_t{300} << 20;
  {
    test::write_file(file, join(lines, 0, k));
    std::ofstream out(file, std::ios::binary | std::ios::app);
    const std::string block =
        "{\"type\":\"user\",\"message\":{\"content\":\"" + std::string((1 << 20) - 40, 'x');
    for (std::size_t written = 0; written < kLineBytes; written += block.size()) out << block;
    out << "\"}}\n" << join(lines, k, lines.size());
  }
  const std::string config = (dir / "config.toml").string();
  test::write_file(config, "[sweep]\nfinal_line_grace_seconds = 0\n");
  ::setenv("CLAUDE_CONFIG_DIR", (dir / "home/claude").c_str(), 1);
  ::setenv("CODEX_HOME", (dir / "home/codex").c_str(), 1);
  ::setenv("GROK_HOME", (dir / "home/grok").c_str(), 1);
  ::setenv("GEMINI_CLI_HOME", (dir / "home/gemini").c_str(), 1);
  test::HostProcess sweep({"--plugins", HELIX_TEST_PLUGIN_DIR, "--config", config, "--store",
                           (dir / "store").string(), "sweep"},
                          dir.path());
  const auto& result = sweep.wait();
  BOOST_REQUIRE_MESSAGE(result.exit_code == 0, result.err);
  const long peak_mib = result.peak_rss_kib / 1024;
  BOOST_TEST_MESSAGE(
      fmt::format("sweep over a {} MiB line: peak RSS {} MiB", kLineBytes >> 20, peak_mib));
  // Bounded by max_record_bytes (64 MiB) plus a chunk and the process itself, not by the line.
  // (Not under AddressSanitizer, whose shadow memory and quarantine are RSS of their own.)
#if !defined(__SANITIZE_ADDRESS__)
  BOOST_TEST(peak_mib < 160);
#endif
  BOOST_TEST(result.out.find("record_too_large 1") != std::string::npos, result.out);
  BOOST_TEST(result.err.find(fmt::format("offset {}: record_too_large",
                                         join(lines, 0, k).size())) != std::string::npos,
             result.err);
  // The good records on both sides are all there: as many events as the file without the line.
  SweptStore clean(flavor, join(lines, 0, lines.size()));
  Store store(dir / "store/helix.db", true);
  BOOST_TEST(store.status().events == static_cast<int64_t>(clean.events.size()));
}

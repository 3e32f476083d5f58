// Tests of the Claude Code adapter plugin over the real fixtures in tests/fixtures/claude
// (provenance: tests/fixtures/claude/SOURCES.md). Every figure below was derived from the fixture
// files independently of the plugin (a Python pass over the raw JSONL: records split, blocks
// counted, usage grouped by message.id/requestId keeping the largest line).
#define BOOST_TEST_MODULE claude_adapter
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <initializer_list>
#include <iterator>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "adapter_harness.hpp"
#include "ingest/discovery.hpp"

namespace {

using helix::RecordBatch;
using helix::UsageRecord;
using helix::test::fixture;

const std::string kLegacyDir =
    "ccl-2.0.28-legacy-agent-layout/-Users-dain-workspace-danieldemmel-me-next/";
const std::string kSubagentsDir = "ccl-2.1.17-subagents-layout/-src-experiments-claude_p/";
const std::string kMetaDir = "ccl-2.1.114-subagents-meta/-experiments-worktrees/";
const std::string kMetaSession = "ef958aa1-0e93-49f0-bb71-150f63befcd1";

const helix::test::AdapterHarness& harness() {
  static const helix::test::AdapterHarness instance("claude");
  return instance;
}

// Original file names (SOURCES.md): the Entire checkpoints are copies of <sessionId>.jsonl.
std::string original_name(const std::string& file) {
  static const std::map<std::string, std::string> names = {
      {"entire-2.0.76-tool-errors.jsonl", "cf564e14-9b07-42ad-8d9a-4faa1b79a0ed.jsonl"},
      {"entire-2.0.76-compaction-synthetic.jsonl", "198393f2-22db-477b-ac77-1825bea883ae.jsonl"},
      {"entire-2.1.17-interrupts-synthetic.jsonl", "d563fb6b-39cf-4895-bb5f-681c33e58bbc.jsonl"},
      {"entire-2.1.19-agent-progress-subagent.jsonl", "163396cf-348b-4175-90f5-5ca0986ac0f1.jsonl"},
      {"entire-2.1.32-persisted-output.jsonl", "531e0007-8fdd-4e98-a526-3f675a2b8f16.jsonl"},
      {"entire-2.1.5-api-errors.slice.jsonl", "b00b80af-879f-4265-b95b-48db0938673c.jsonl"},
      {"entire-2.1.14-microcompact.slice.jsonl", "839b35f7-4dbd-4d93-9772-3c272cc87caa.jsonl"},
      {"entire-2.1.7-concatenated-records.slice.jsonl",
       "86cc3044-7515-43f1-9c25-1444738c64c9.jsonl"},
      {"entire-2.1.29-user-image.slice.jsonl", "062a8bdd-4322-4ffa-bc38-3e8b8bfb5a56.jsonl"},
      {"ccl-1.0.51-early-format.jsonl", "326189cf-5676-4237-8cde-1ce80aae4a9f.jsonl"},
      {"ccl-summary-only.jsonl", "4e27c414-a885-46a0-b5c8-d58e1417377d.jsonl"}};
  auto it = names.find(file);
  return it == names.end() ? file : it->second;
}

// The fixture where Claude Code keeps it, <root>/projects/<project dir>/<original name> (under
// the build dir): the adapter takes the session id of records without one from the file name.
std::filesystem::path staged(const std::string& file) {
  namespace fs = std::filesystem;
  auto slash = file.find('/');
  std::string inside =
      slash == std::string::npos ? "-fixtures/" + original_name(file) : file.substr(slash + 1);
  fs::path path = fs::path(HELIX_TEST_BINARY_DIR) / "claude-home/projects" / inside;
  fs::create_directories(path.parent_path());
  fs::remove(path);
  fs::copy_file(fixture("claude/" + file), path);
  return path;
}

RecordBatch parse(const std::string& file) { return harness().parse_file(staged(file)); }

// Whole lines in calls of about `chunk_bytes`, the saved state threaded from call to call as the
// host does, a partial last line held back. (AdapterHarness::parse_file_in_chunks also drops the
// complete lines of its last chunk when the file does not end with a newline.)
RecordBatch parse_in_chunks(const std::filesystem::path& path, std::size_t chunk_bytes) {
  const std::string bytes = helix::test::read_file(path);
  const std::size_t complete = bytes.rfind('\n') + 1;  // 0 when there is no newline at all
  RecordBatch all;
  std::string state;
  for (std::size_t pos = 0; pos < complete;) {
    std::size_t end = bytes.find('\n', std::min(pos + chunk_bytes, complete) - 1) + 1;
    RecordBatch batch;
    harness().adapter().parse(path.string(), HELIX_LAYOUT_LINES, pos,
                              std::string_view(bytes).substr(pos, end - pos), state, batch);
    if (batch.saved_state) state = *batch.saved_state;
    const auto payload_base = static_cast<int64_t>(all.payloads.size());
    for (auto& e : batch.events) {
      if (e.payload_index >= 0) e.payload_index += payload_base;
      all.events.push_back(std::move(e));
    }
    std::move(batch.payloads.begin(), batch.payloads.end(), std::back_inserter(all.payloads));
    std::move(batch.sessions.begin(), batch.sessions.end(), std::back_inserter(all.sessions));
    std::move(batch.usage.begin(), batch.usage.end(), std::back_inserter(all.usage));
    std::move(batch.warnings.begin(), batch.warnings.end(), std::back_inserter(all.warnings));
    pos = end;
  }
  return all;
}

// Events per kind, printable in a failed check.
struct KindCounts {
  KindCounts() = default;
  KindCounts(std::initializer_list<std::pair<const std::string, int>> list) : counts(list) {}
  std::map<std::string, int> counts;
  bool operator==(const KindCounts&) const = default;
  friend std::ostream& operator<<(std::ostream& os, const KindCounts& k) {
    for (const auto& [kind, n] : k.counts) os << kind << '=' << n << ' ';
    return os;
  }
};

KindCounts kind_counts(const RecordBatch& batch) {
  KindCounts k;
  for (const auto& e : batch.events) ++k.counts[e.kind];
  return k;
}

int count_warnings(const RecordBatch& batch, const std::string& category) {
  int n = 0;
  for (const auto& w : batch.warnings) n += w.category == category;
  return n;
}

// What the host does with usage: one row per non-empty key, the one with the largest total.
struct TokenTotals {
  std::size_t calls = 0;
  int64_t input = 0, output = 0, cache_read = 0, cache_creation = 0;
};

TokenTotals deduplicated(const RecordBatch& batch) {
  std::map<std::string, UsageRecord> by_key;
  std::vector<UsageRecord> unkeyed;
  for (const auto& u : batch.usage) {
    if (u.key.empty()) {
      unkeyed.push_back(u);
      continue;
    }
    auto [it, inserted] = by_key.try_emplace(u.key, u);
    if (!inserted && u.total() > it->second.total()) it->second = u;
  }
  TokenTotals t;
  auto add = [&](const UsageRecord& u) {
    ++t.calls;
    t.input += u.input_tokens;
    t.output += u.output_tokens;
    t.cache_read += u.cache_read_tokens;
    t.cache_creation += u.cache_creation_tokens;
  };
  for (const auto& [key, u] : by_key) add(u);
  for (const auto& u : unkeyed) add(u);
  return t;
}

// tool_result/error events whose call_id names no tool_call/edit/test_run of the same batch.
int unpaired_results(const RecordBatch& batch) {
  std::set<std::string> calls;
  for (const auto& e : batch.events)
    if (e.kind == "tool_call" || e.kind == "edit" || e.kind == "test_run") calls.insert(e.call_id);
  int unpaired = 0;
  for (const auto& e : batch.events)
    if ((e.kind == "tool_result" || e.kind == "error") && !e.call_id.empty())
      unpaired += calls.count(e.call_id) == 0;
  return unpaired;
}

int results_with_call_id(const RecordBatch& batch) {
  int n = 0;
  for (const auto& e : batch.events)
    n += (e.kind == "tool_result" || e.kind == "error") && !e.call_id.empty();
  return n;
}

int sidechain_events(const RecordBatch& batch) {
  int n = 0;
  for (const auto& e : batch.events) n += (e.flags & HELIX_EVENT_SIDECHAIN) != 0;
  return n;
}

std::set<std::string> event_sessions(const RecordBatch& batch) {
  std::set<std::string> ids;
  for (const auto& e : batch.events) ids.insert(e.session_id);
  return ids;
}

// The host's merge of session records: the latest non-empty title wins.
std::string merged_title(const RecordBatch& batch, const std::string& session) {
  std::string title;
  for (const auto& s : batch.sessions)
    if (s.native_id == session && !s.title.empty()) title = s.title;
  return title;
}

const helix::EventRecord* find_event(const RecordBatch& batch, const std::string& kind,
                                     uint64_t offset, uint32_t ordinal = 0) {
  for (const auto& e : batch.events)
    if (e.kind == kind && e.source_offset == offset && e.ordinal == ordinal) return &e;
  return nullptr;
}

std::string payload_of(const RecordBatch& batch, const helix::EventRecord& e) {
  return e.payload_index < 0 ? std::string()
                             : batch.payloads.at(static_cast<std::size_t>(e.payload_index));
}

struct Expected {
  std::string file;
  KindCounts kinds;
  int sidechain;  // events flagged HELIX_EVENT_SIDECHAIN
  int results;    // tool_result + error events carrying a call_id
  std::size_t calls;
  int64_t input, output, cache_read, cache_creation;
};

// Per-file figures: events per kind (one per content block, plus one link event per subagent an
// Agent result names), tool results, deduplicated usage (group by message.id/requestId, keep the
// line with the largest total, sum the groups; synthetic replies are no model calls; api_error
// records with a retryAttempt are retries). Four
// Entire captures end without a newline: their last record is a partial line the host holds back.
// One fixture per block reads better than one number per line:
// clang-format off
const std::vector<Expected>& real_fixtures() {
  static const std::vector<Expected> table = {
      {"entire-2.0.76-tool-errors.jsonl",
       {{"edit", 2}, {"error", 1}, {"other", 2}, {"thinking", 4}, {"tool_call", 1},
        {"tool_result", 2}, {"user_msg", 1}},
       0, 3, 4, 34, 744, 122052, 41434},
      {"entire-2.0.76-compaction-synthetic.jsonl",
       {{"assistant_msg", 9}, {"edit", 3}, {"lifecycle", 2}, {"other", 7}, {"test_run", 3},
        {"thinking", 12}, {"tool_call", 4}, {"tool_result", 10}, {"user_msg", 3}},
       0, 10, 12, 102, 2038, 654807, 649094},
      {"entire-2.1.17-interrupts-synthetic.jsonl",
       {{"assistant_msg", 9}, {"edit", 4}, {"error", 2}, {"human_intervention", 1}, {"other", 37},
        {"test_run", 2}, {"thinking", 18}, {"tool_call", 9}, {"tool_result", 13}, {"user_msg", 6}},
       0, 15, 18, 152, 42, 563052, 60069},
      {"entire-2.1.19-agent-progress-subagent.jsonl",
       {{"assistant_msg", 2}, {"lifecycle", 1}, {"other", 51}, {"thinking", 1}, {"tool_call", 4},
        {"tool_result", 4}, {"user_msg", 3}},
       1, 4, 4, 12, 8, 112682, 57834},
      {"entire-2.1.32-persisted-output.jsonl",
       {{"assistant_msg", 22}, {"edit", 4}, {"error", 1}, {"other", 51}, {"test_run", 3},
        {"thinking", 2}, {"tool_call", 21}, {"tool_result", 27}, {"user_msg", 3}},
       0, 28, 28, 32, 505, 1511518, 45593},
      {"entire-2.1.5-api-errors.slice.jsonl",
       {{"assistant_msg", 1}, {"error", 1}, {"other", 9}, {"retry", 17}, {"thinking", 1},
        {"user_msg", 3}},
       0, 0, 1, 10, 718, 0, 136153},
      {"entire-2.1.14-microcompact.slice.jsonl",
       {{"lifecycle", 1}, {"thinking", 5}, {"tool_call", 6}, {"tool_result", 5}},
       0, 5, 5, 1441, 5, 579384, 116970},
      {"entire-2.1.7-concatenated-records.slice.jsonl",
       {{"assistant_msg", 2}, {"other", 5}, {"thinking", 2}, {"tool_call", 2}, {"tool_result", 2},
        {"user_msg", 1}},
       0, 2, 3, 24, 4, 205234, 1063},
      {"entire-2.1.29-user-image.slice.jsonl",
       {{"assistant_msg", 2}, {"other", 7}, {"thinking", 2}, {"user_msg", 2}},
       0, 0, 2, 20, 5, 181691, 2343},
      {"ccl-1.0.51-early-format.jsonl",
       {{"assistant_msg", 6}, {"edit", 4}, {"error", 2}, {"other", 18}, {"tool_call", 10},
        {"tool_result", 12}, {"user_msg", 2}},
       0, 14, 15, 43, 487, 299222, 25577},
      {"ccl-summary-only.jsonl", {{"other", 1}}, 0, 0, 0, 0, 0, 0, 0},
      {kLegacyDir + "5ed31c36-bca8-40fd-8d24-f1a1f0af7901.jsonl",
       {{"assistant_msg", 3}, {"edit", 1}, {"tool_call", 3}, {"tool_result", 4}, {"user_msg", 2}},
       0, 4, 3, 43, 3, 44742, 4330},
      {kLegacyDir + "7864f562-717b-4d70-a1cb-b588f7826a1a.jsonl", {}, 0, 0, 0, 0, 0, 0, 0},
      {kLegacyDir + "agent-3ea04571.jsonl", {{"assistant_msg", 1}, {"user_msg", 1}}, 2, 0, 1, 1366,
       146, 0, 0},
      {kLegacyDir + "agent-b1f5d80e.jsonl", {{"assistant_msg", 1}, {"user_msg", 1}}, 2, 0, 1, 3, 87,
       0, 1374},
      {kLegacyDir + "agent-c3d572ee.jsonl", {{"assistant_msg", 1}, {"user_msg", 1}}, 2, 0, 1, 3, 62,
       1374, 0},
      {kLegacyDir + "agent-c63fe96c.jsonl", {{"assistant_msg", 1}, {"user_msg", 1}}, 2, 0, 1, 1366,
       190, 0, 0},
      {kSubagentsDir + "29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl",
       {{"assistant_msg", 1}, {"lifecycle", 1}, {"other", 2}, {"tool_call", 1}, {"tool_result", 1},
        {"user_msg", 1}},
       1, 1, 2, 2, 2, 36009, 7996},
      {kSubagentsDir + "29ccd257-68b1-427f-ae5f-6524b7cb6f20/subagents/agent-a2271d1.jsonl",
       {{"assistant_msg", 10}, {"tool_call", 24}, {"tool_result", 24}, {"user_msg", 1}},
       59, 24, 10, 4466, 18, 236968, 42768},
      {kMetaDir + kMetaSession + ".jsonl",
       {{"assistant_msg", 8}, {"lifecycle", 6}, {"other", 75}, {"thinking", 14}, {"tool_call", 40},
        {"tool_result", 40}, {"user_msg", 3}},
       6, 40, 17, 1308, 22901, 728660, 102189},
      {kMetaDir + kMetaSession + "/subagents/agent-a4ca7529859c158c2.jsonl",
       {{"assistant_msg", 7}, {"edit", 5}, {"error", 1}, {"tool_call", 19}, {"tool_result", 23},
        {"user_msg", 1}},
       56, 24, 20, 445, 7923, 615694, 113769},
      {kMetaDir + kMetaSession + "/subagents/agent-aef063ba534d73153.jsonl",
       {{"assistant_msg", 3}, {"edit", 1}, {"tool_call", 5}, {"tool_result", 6}, {"user_msg", 1}},
       16, 6, 5, 10, 2373, 100730, 16998},
  };
  return table;
}
// clang-format on

std::vector<std::pair<std::string, uint32_t>> declared_patterns() {
  std::vector<std::pair<std::string, uint32_t>> out;
  for (auto* p = harness().adapter().plugin().adapter->patterns; p->glob; ++p)
    out.emplace_back(p->glob, p->layout);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(declares_flavor_roots_and_patterns) {
  const auto* vtable = &*harness().adapter().plugin().adapter;
  BOOST_TEST(std::string(vtable->flavor) == "claude");
  BOOST_TEST(std::string(vtable->root_env) == "CLAUDE_CONFIG_DIR");
  BOOST_TEST(std::string(vtable->default_roots[0]) == "~/.claude");
  BOOST_TEST(std::string(vtable->default_roots[1]) == "~/.config/claude");
  BOOST_TEST(vtable->default_roots[2] == nullptr);

  auto layout_of = [](const std::string& path) {
    for (const auto& [glob, layout] : declared_patterns())
      if (helix::glob_match(glob, path)) return layout;
    return 0u;
  };
  BOOST_TEST(layout_of("projects/-home-u-repo/" + kMetaSession + ".jsonl") == HELIX_LAYOUT_LINES);
  BOOST_TEST(layout_of("projects/-home-u-repo/agent-c3d572ee.jsonl") == HELIX_LAYOUT_LINES);
  BOOST_TEST(layout_of("projects/p/" + kMetaSession + "/subagents/agent-a2271d1.jsonl") ==
             HELIX_LAYOUT_LINES);
  BOOST_TEST(layout_of("projects/p/s/subagents/workflows/wf_1/agent-aef063ba534d73153.jsonl") ==
             HELIX_LAYOUT_LINES);
  BOOST_TEST(layout_of("projects/p/s/subagents/agent-a2271d1.meta.json") == HELIX_LAYOUT_DOCUMENT);
  BOOST_TEST(layout_of("projects/p/s/subagents/workflows/wf_1/journal.jsonl") == 0u);
  BOOST_TEST(layout_of("projects/p/s/tool-results/toolu_1.txt") == 0u);
  BOOST_TEST(layout_of("projects/p/sessions-index.json") == 0u);
  BOOST_TEST(layout_of("history.jsonl") == 0u);
}

BOOST_AUTO_TEST_CASE(real_fixtures_normalize_to_the_verified_figures) {
  for (const auto& x : real_fixtures()) {
    BOOST_TEST_CONTEXT(x.file) {
      RecordBatch batch = parse(x.file);
      BOOST_TEST(kind_counts(batch) == x.kinds);
      BOOST_TEST(sidechain_events(batch) == x.sidechain);
      BOOST_TEST(results_with_call_id(batch) == x.results);
      BOOST_TEST(unpaired_results(batch) == 0);
      BOOST_TEST(batch.warnings.empty());
      TokenTotals t = deduplicated(batch);
      BOOST_TEST(t.calls == x.calls);
      BOOST_TEST(t.input == x.input);
      BOOST_TEST(t.output == x.output);
      BOOST_TEST(t.cache_read == x.cache_read);
      BOOST_TEST(t.cache_creation == x.cache_creation);
      for (const auto& e : batch.events) BOOST_TEST(e.payload_index >= 0);
    }
  }
}

BOOST_AUTO_TEST_CASE(chunked_parsing_gives_the_one_shot_events_and_usage) {
  auto same_event = [](const RecordBatch& a, const helix::EventRecord& x, const RecordBatch& b,
                       const helix::EventRecord& y) {
    return x.session_id == y.session_id && x.source_offset == y.source_offset &&
           x.ordinal == y.ordinal && x.flags == y.flags && x.ts_ms == y.ts_ms && x.kind == y.kind &&
           x.role == y.role && x.tool == y.tool && x.uid == y.uid && x.parent_uid == y.parent_uid &&
           x.call_id == y.call_id && x.summary == y.summary && x.text == y.text &&
           x.model == y.model && payload_of(a, x) == payload_of(b, y);
  };
  std::vector<std::string> files{"agent-sessions-schema-catalog.jsonl"};
  for (const auto& x : real_fixtures()) files.push_back(x.file);
  for (const auto& file : files) {
    BOOST_TEST_CONTEXT(file) {
      RecordBatch whole = parse(file);
      RecordBatch chunked = parse_in_chunks(staged(file), 700);
      BOOST_TEST_REQUIRE(chunked.events.size() == whole.events.size());
      for (std::size_t i = 0; i < whole.events.size(); ++i)
        BOOST_TEST(same_event(whole, whole.events[i], chunked, chunked.events[i]), "event " << i);
      BOOST_TEST_REQUIRE(chunked.usage.size() == whole.usage.size());
      for (std::size_t i = 0; i < whole.usage.size(); ++i) {
        BOOST_TEST(chunked.usage[i].key == whole.usage[i].key);
        BOOST_TEST(chunked.usage[i].total() == whole.usage[i].total());
      }
      BOOST_TEST(chunked.warnings.size() == whole.warnings.size());
    }
  }
}

BOOST_AUTO_TEST_CASE(legacy_flat_agent_files_attach_to_the_parent_session) {
  RecordBatch agent = parse(kLegacyDir + "agent-c3d572ee.jsonl");
  BOOST_TEST(event_sessions(agent) ==
             std::set<std::string>{"5ed31c36-bca8-40fd-8d24-f1a1f0af7901"});
  for (const auto& u : agent.usage) BOOST_TEST(u.flags == HELIX_EVENT_SIDECHAIN);
  // A subagent must not overwrite the parent's model (the Warmup agent ran on another model).
  BOOST_TEST_REQUIRE(agent.sessions.size() == 1u);
  BOOST_TEST(agent.sessions[0].model.empty());
  BOOST_TEST(agent.events[0].uid == "03561a7d-93e7-4570-871b-0834ebff12b0");
  BOOST_TEST(agent.events[1].parent_uid == "03561a7d-93e7-4570-871b-0834ebff12b0");
}

BOOST_AUTO_TEST_CASE(subagents_directory_files_attach_to_the_parent_session) {
  RecordBatch agent =
      parse(kSubagentsDir + "29ccd257-68b1-427f-ae5f-6524b7cb6f20/subagents/agent-a2271d1.jsonl");
  BOOST_TEST(event_sessions(agent) ==
             std::set<std::string>{"29ccd257-68b1-427f-ae5f-6524b7cb6f20"});
  // An agent file starts a new root, under the link to the call that launched it.
  BOOST_TEST(agent.events.front().parent_uid == "agent-a2271d1");
  BOOST_TEST(agent.events.front().call_id == "agent-a2271d1");
  BOOST_TEST(agent.events.front().kind == "user_msg");

  RecordBatch main = parse(kSubagentsDir + "29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl");
  BOOST_TEST_REQUIRE(main.sessions.size() == 1u);
  const auto& s = main.sessions[0];
  BOOST_TEST(s.native_id == "29ccd257-68b1-427f-ae5f-6524b7cb6f20");
  BOOST_TEST(s.cwd == "/src/experiments/claude_p");
  BOOST_TEST(s.model == "claude-opus-4-5-20251101");
  BOOST_TEST(s.agent_version == "2.1.17");
  BOOST_TEST(s.started_at_ms == 1769189682643);  // 2026-01-23T17:34:42.643Z
  BOOST_TEST(s.ended_at_ms == 1769189761839);    // 2026-01-23T17:36:01.839Z
}

BOOST_AUTO_TEST_CASE(empty_session_file_with_warmup_agents) {
  const std::string empty = kLegacyDir + "7864f562-717b-4d70-a1cb-b588f7826a1a.jsonl";
  RecordBatch main = parse(empty);
  BOOST_TEST(main.events.empty());
  BOOST_TEST(main.sessions.empty());
  BOOST_TEST(harness().probe(staged(empty)) == 40);
  BOOST_TEST(harness().probe(fixture("claude/" + empty)) == 0);  // not under a projects/ dir

  // Both Warmup agents bill real tokens to the session whose main file stayed empty.
  TokenTotals billed;
  for (const char* agent : {"agent-3ea04571.jsonl", "agent-b1f5d80e.jsonl"}) {
    RecordBatch batch = parse(kLegacyDir + agent);
    BOOST_TEST(event_sessions(batch) ==
               std::set<std::string>{"7864f562-717b-4d70-a1cb-b588f7826a1a"});
    BOOST_TEST(batch.events[0].text == "Warmup");
    BOOST_TEST(sidechain_events(batch) == 2);
    TokenTotals t = deduplicated(batch);
    billed.input += t.input;
    billed.output += t.output;
    billed.cache_creation += t.cache_creation;
  }
  BOOST_TEST(billed.input == 1369);
  BOOST_TEST(billed.output == 233);
  BOOST_TEST(billed.cache_creation == 1374);
}

BOOST_AUTO_TEST_CASE(agent_meta_sidecar_announces_the_subagent_on_the_parent) {
  auto meta =
      fixture("claude/" + kMetaDir + kMetaSession + "/subagents/agent-a4ca7529859c158c2.meta.json");
  BOOST_TEST(harness().probe(meta) == 95);
  RecordBatch batch = harness().parse_file(meta, HELIX_LAYOUT_DOCUMENT);
  BOOST_TEST_REQUIRE(batch.events.size() == 1u);
  const auto& e = batch.events[0];
  BOOST_TEST(e.session_id == kMetaSession);
  BOOST_TEST(e.kind == "lifecycle");
  BOOST_TEST(e.flags == HELIX_EVENT_SIDECHAIN);
  BOOST_TEST(e.summary ==
             "subagent a4ca7529859c158c2 (general-purpose): Research Claude Code plan mode");
  BOOST_TEST(payload_of(batch, e) == helix::test::read_file(meta));
  BOOST_TEST(harness().adapter().probe("/tmp/x/agent-1.meta.json", R"({"agentType":"x"})", 17) ==
             0);
}

// The canary's run of Claude Code 2.1.330 (canary-2.1.330/tools, tests/fixtures/claude/SOURCES.md):
// 4 api-request, 2 api-request-blob, 1 api-request-shape, 1 cost-state, 3 tools-used and 3
// atis-latch lines (counted with grep over the file).
BOOST_AUTO_TEST_CASE(current_era_bookkeeping_records_are_other_events) {
  const std::string file =
      "canary-2.1.330/tools/.claude/projects/-tmp-helix-canary-claude-tools-work-tools/"
      "9a2a8856-aa79-4383-8618-85faa3075c65.jsonl";
  RecordBatch batch = parse(file);
  BOOST_TEST(count_warnings(batch, "unknown_type") == 0);
  BOOST_TEST(batch.warnings.empty());
  std::map<std::string, int> bookkeeping;
  const helix::EventRecord* cost = nullptr;
  std::set<std::string> latch_uids;
  for (const auto& e : batch.events) {
    if (e.kind != "other") continue;
    if (e.summary.starts_with("atis-latch")) latch_uids.insert(e.uid);
    for (std::string_view type : {"api-request:", "api-request-blob ", "api-request-shape ",
                                  "cost-state:", "tools-used:", "atis-latch"})
      if (e.summary.starts_with(type)) ++bookkeeping[std::string(type)];
    if (e.summary.starts_with("cost-state:")) cost = &e;
  }
  BOOST_TEST(bookkeeping == (std::map<std::string, int>{{"api-request:", 4},
                                                        {"api-request-blob ", 2},
                                                        {"api-request-shape ", 1},
                                                        {"cost-state:", 1},
                                                        {"tools-used:", 3},
                                                        {"atis-latch", 3}}));
  // The three atis-latch lines are byte-identical: each is an event of its own, with its own uid.
  BOOST_TEST(latch_uids.size() == 3u);
  BOOST_TEST_REQUIRE(cost != nullptr);
  BOOST_TEST(cost->summary == "cost-state: $0.0588");
  BOOST_TEST(cost->text ==
             "total $0.0588; claude-opus-5-5 $0.0588 (input 14, output 220, cache read 27850, "
             "cache write 9750)");
  int requests = 0;
  for (const auto& e : batch.events)
    if (e.summary == "api-request: claude-opus-5-5 (sdk)") {
      ++requests;
      BOOST_TEST(e.text.starts_with("model claude-opus-5-5; query source sdk; id "));
    }
  BOOST_TEST(requests == 4);
}

// A directory named "subagents" above the Claude root (here the canary's scenario folder) is not
// the session: the agent metadata still names the session directory below projects/.
BOOST_AUTO_TEST_CASE(subagents_directory_above_the_root_is_not_a_session) {
  const std::string session = "395fed10-2032-458c-b382-c5b471aca46a";
  const std::string dir =
      "claude/canary-2.1.330/subagents/.claude/projects/"
      "-tmp-helix-canary-claude-subagents-work-subagents/" +
      session + "/subagents/";
  for (const char* meta :
       {"agent-a77a339c5ea910bfe.meta.json", "agent-afe57258d72fdb6fe.meta.json"}) {
    RecordBatch batch = harness().parse_file(fixture(dir + meta), HELIX_LAYOUT_DOCUMENT);
    BOOST_TEST_REQUIRE(batch.events.size() == 1u);
    BOOST_TEST(batch.events[0].session_id == session);
  }
}

// The canary's run of Claude Code 2.1.330: a foreground Agent (agent-a77a339c5ea910bfe, call
// toolu_01huUuuZfFSNPjj9EBQuZWT8) and a background one (agent-afe57258d72fdb6fe, call
// toolu_01r0wa6AKqQIs3kY3osxFiRE) whose result arrives as a <task-notification> user turn.
const std::string kCanarySubagents =
    "claude/canary-2.1.330/subagents/.claude/projects/"
    "-tmp-helix-canary-claude-subagents-work-subagents/";
const std::string kCanaryParent = "395fed10-2032-458c-b382-c5b471aca46a";

BOOST_AUTO_TEST_CASE(subagent_transcripts_are_linked_to_their_calls) {
  const std::map<std::string, std::string> call_of = {
      {"a77a339c5ea910bfe", "toolu_01huUuuZfFSNPjj9EBQuZWT8"},
      {"afe57258d72fdb6fe", "toolu_01r0wa6AKqQIs3kY3osxFiRE"}};
  for (const auto& [agent, call] : call_of) {
    const std::string dir = kCanarySubagents + kCanaryParent + "/subagents/agent-" + agent;
    // The sidecar is the link: its uid is the name the transcript uses, its call_id the call.
    RecordBatch meta = harness().parse_file(fixture(dir + ".meta.json"), HELIX_LAYOUT_DOCUMENT);
    BOOST_TEST_REQUIRE(meta.events.size() == 1u);
    BOOST_TEST(meta.events[0].kind == "lifecycle");
    BOOST_TEST(meta.events[0].uid == "agent-" + agent);
    BOOST_TEST(meta.events[0].call_id == call);
    BOOST_TEST(meta.events[0].ordinal == 0x10000u);  // above any content block's index
    // Every event of the transcript that pairs with nothing of its own names the link; its own
    // calls and results keep theirs; its first record hangs under the link.
    RecordBatch agent_file = harness().parse_file(fixture(dir + ".jsonl"));
    BOOST_TEST_REQUIRE(!agent_file.events.empty());
    BOOST_TEST(agent_file.events.front().parent_uid == "agent-" + agent);
    int linked = 0, own = 0;
    for (const auto& e : agent_file.events) {
      const bool pairs = e.kind == "tool_call" || e.kind == "tool_result" || e.kind == "error";
      if (pairs) {
        own += e.call_id.starts_with("toolu_");
      } else if (!e.uid.empty()) {
        BOOST_TEST(e.call_id == "agent-" + agent, e.kind << " at " << e.source_offset);
        ++linked;
      }
    }
    BOOST_TEST(linked > 0);
    BOOST_TEST(own == 2);  // one Bash call and its result
  }
  // The parent's Agent results name the same links; the background result is a tool result
  // delivered as a user turn, with its call's id.
  RecordBatch parent = harness().parse_file(fixture(kCanarySubagents + kCanaryParent + ".jsonl"));
  std::map<std::string, std::string> links;
  const helix::EventRecord* notification = nullptr;
  for (const auto& e : parent.events) {
    if (e.kind == "lifecycle" && e.uid.starts_with("agent-")) links[e.uid] = e.call_id;
    if (e.kind == "tool_result" && e.role == "user") notification = &e;
  }
  BOOST_TEST(links == (std::map<std::string, std::string>{
                          {"agent-a77a339c5ea910bfe", "toolu_01huUuuZfFSNPjj9EBQuZWT8"},
                          {"agent-afe57258d72fdb6fe", "toolu_01r0wa6AKqQIs3kY3osxFiRE"}}));
  BOOST_TEST_REQUIRE(notification != nullptr);
  BOOST_TEST(notification->call_id == "toolu_01r0wa6AKqQIs3kY3osxFiRE");
  BOOST_TEST(notification->summary == "Agent \"Print git branch\" finished");
  BOOST_TEST(notification->text.find("<result>The current branch is main.</result>") !=
             std::string::npos);
}

// The canary's compaction (a manual /compact, then an auto-compaction) and errors (an HTTP 529
// the CLI retried) runs.
BOOST_AUTO_TEST_CASE(compactions_and_retries) {
  const std::string dir =
      "claude/canary-2.1.330/compaction/.claude/projects/"
      "-tmp-helix-canary-claude-compaction-work-compaction/";
  std::vector<std::string> compactions, summaries;
  for (const char* file :
       {"9c16a007-c219-42be-b428-4fea375b013a.jsonl", "f58d5ed5-3e4c-4939-ad88-0176243e0ea8.jsonl"})
    for (const auto& e : harness().parse_file(fixture(dir + file)).events) {
      if (e.kind != "lifecycle") continue;
      if (e.summary.starts_with("context compacted")) compactions.push_back(e.summary);
      if (e.summary == "summary of the conversation so far") summaries.push_back(e.text);
    }
  std::sort(compactions.begin(), compactions.end());
  BOOST_TEST(
      compactions == (std::vector<std::string>{"context compacted (auto, 988591 tokens before)",
                                               "context compacted (manual, 9168 tokens before)"}),
      boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(summaries.size() == 2u);
  for (const auto& text : summaries)
    BOOST_TEST(text.find("Checkpoint summary") != std::string::npos);

  RecordBatch errors = harness().parse_file(
      fixture("claude/canary-2.1.330/errors/.claude/projects/-tmp-helix-canary-claude-errors-work-"
              "errors/b35a071c-901f-4fb4-8b5e-61e00c620cc2.jsonl"));
  int retries = 0;
  for (const auto& e : errors.events)
    if (e.kind == "retry") {
      ++retries;
      BOOST_TEST(e.summary.find("retry 1/") != std::string::npos);
    }
  BOOST_TEST(retries == 1);
}

// --fork-session: the copied assistant records name the origin in requestSessionId.
BOOST_AUTO_TEST_CASE(a_fork_names_its_origin) {
  const std::string dir =
      "claude/canary-2.1.330/fork/.claude/projects/-tmp-helix-canary-claude-fork-work-fork/";
  RecordBatch fork =
      harness().parse_file(fixture(dir + "e41fc739-04eb-4eb6-9108-1632d35fb7ba.jsonl"));
  BOOST_TEST_REQUIRE(fork.sessions.size() == 1u);
  BOOST_TEST(fork.sessions[0].forked_from_native_id == "0e1b0555-1c57-42bf-9322-fce908955414");
  RecordBatch origin =
      harness().parse_file(fixture(dir + "0e1b0555-1c57-42bf-9322-fce908955414.jsonl"));
  BOOST_TEST(origin.sessions.at(0).forked_from_native_id.empty());
}

// A usage line without a requestId is a call of its own (ccusage does not de-duplicate such
// lines on message.id alone); one with both ids is keyed by them.
BOOST_AUTO_TEST_CASE(usage_keys_need_both_ids) {
  const std::string lines =
      R"({"type":"assistant","sessionId":"s1","uuid":"a1","message":{"id":"m1","model":"claude-x","content":[],"usage":{"input_tokens":1,"output_tokens":2}}})"
      "\n"
      R"({"type":"assistant","sessionId":"s1","uuid":"a2","requestId":"r1","message":{"id":"m1","model":"claude-x","content":[],"usage":{"input_tokens":1,"output_tokens":2}}})"
      "\n";
  RecordBatch batch;
  harness().adapter().parse("/h/.claude/projects/p/s1.jsonl", HELIX_LAYOUT_LINES, 0, lines, "",
                            batch);
  BOOST_TEST_REQUIRE(batch.usage.size() == 2u);
  BOOST_TEST(batch.usage[0].key.empty());
  BOOST_TEST(batch.usage[1].key == "m1/r1");
}

BOOST_AUTO_TEST_CASE(concatenated_records_on_one_line_are_split) {
  RecordBatch batch = parse("entire-2.1.7-concatenated-records.slice.jsonl");
  // Slice line 7 starts at byte 8418; the file-history-snapshot is glued on at byte 10201.
  const auto* assistant = find_event(batch, "assistant_msg", 8418);
  const auto* snapshot = find_event(batch, "other", 10201);
  BOOST_TEST_REQUIRE(assistant);
  BOOST_TEST_REQUIRE(snapshot);
  BOOST_TEST(assistant->uid == "aab06a4a-6ef3-4658-baa6-0f13dec5ce68");
  BOOST_TEST(payload_of(batch, *assistant).size() == 10201u - 8418u);
  BOOST_TEST(payload_of(batch, *assistant).back() == '}');
  BOOST_TEST(payload_of(batch, *snapshot).size() == 482u);
  BOOST_TEST(payload_of(batch, *snapshot).starts_with(R"({"type":"file-history-snapshot")"));
  BOOST_TEST(snapshot->summary == "file-history-snapshot");
  // The resumed CLI rewrote the same assistant record on the next line: same uid and usage key.
  const auto* rewritten = find_event(batch, "assistant_msg", 10684);
  BOOST_TEST_REQUIRE(rewritten);
  BOOST_TEST(rewritten->uid == assistant->uid);
}

BOOST_AUTO_TEST_CASE(agent_progress_usage_is_not_counted) {
  RecordBatch batch = parse("entire-2.1.19-agent-progress-subagent.jsonl");
  // 7 assistant records carry usage; 18 agent_progress records embed a subagent's usage too.
  BOOST_TEST(batch.usage.size() == 7u);
  for (const auto& u : batch.usage) {
    const auto* event = find_event(batch, "other", u.source_offset);
    BOOST_TEST(!event, "usage read from the progress record at " << u.source_offset);
  }
  BOOST_TEST(deduplicated(batch).output == 8);  // 45 more if the nested usage were counted
}

BOOST_AUTO_TEST_CASE(usage_keys_and_synthetic_model) {
  RecordBatch errors = parse("entire-2.1.5-api-errors.slice.jsonl");
  // The <synthetic> reply at 27121 (an API error the CLI wrote) is no model call: no usage.
  for (const auto& u : errors.usage) BOOST_TEST(u.source_offset != 27121u);
  BOOST_TEST(errors.usage.size() == 1u);
  const auto* api_error = find_event(errors, "error", 27121);
  BOOST_TEST_REQUIRE(api_error);
  BOOST_TEST(api_error->text.starts_with("API Error: 529"));
  BOOST_TEST(api_error->model.empty());
  BOOST_TEST(errors.sessions.at(0).model == "claude-opus-4-5-20251101");

  RecordBatch split = parse("entire-2.0.76-tool-errors.jsonl");
  for (const auto& u : split.usage) BOOST_TEST(u.key.find("/req_") != std::string::npos);
  // Split lines of one response share a key (7 complete assistant lines, 4 model calls).
  BOOST_TEST(split.usage.size() == 7u);
}

BOOST_AUTO_TEST_CASE(errors_interrupts_and_compaction) {
  RecordBatch rejected = parse("entire-2.0.76-tool-errors.jsonl");
  int errors = 0;
  for (const auto& e : rejected.events)
    if (e.kind == "error") {
      ++errors;
      BOOST_TEST(e.text.find("The user doesn't want to proceed") != std::string::npos);
      BOOST_TEST(e.tool.empty());  // the host gives it the tool of the paired call
    }
  BOOST_TEST(errors == 1);
  BOOST_TEST(rejected.events.at(1).uid == "144d1e26-cadb-4b92-a409-fb82d734baa2");
  BOOST_TEST(rejected.events.at(2).parent_uid == "144d1e26-cadb-4b92-a409-fb82d734baa2");

  RecordBatch interrupted = parse("entire-2.1.17-interrupts-synthetic.jsonl");
  const auto* stop = find_event(interrupted, "human_intervention", 108308);
  BOOST_TEST_REQUIRE(stop);
  BOOST_TEST(stop->text == "[Request interrupted by user for tool use]");

  RecordBatch compacted = parse("entire-2.0.76-compaction-synthetic.jsonl");
  const auto* boundary = find_event(compacted, "lifecycle", 117295);
  BOOST_TEST_REQUIRE(boundary);
  BOOST_TEST(boundary->uid == "2698f93f-93a5-40da-819d-287f5b38e7c1");
  BOOST_TEST(boundary->parent_uid == "026bffd4-bab4-47e0-8da4-7d5152f764ae");  // logicalParentUuid
  const auto* summary = find_event(compacted, "lifecycle", 117866);
  BOOST_TEST_REQUIRE(summary);
  BOOST_TEST(summary->text.starts_with("This session is being continued"));
  std::vector<std::string> test_runs;
  for (const auto& e : compacted.events)
    if (e.kind == "test_run") test_runs.push_back(e.tool + ": " + e.text.substr(0, 13));
  BOOST_TEST(test_runs == (std::vector<std::string>{"Bash: mise run test", "Bash: go test ./cmd",
                                                    "Bash: mise run test"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(summary_only_file_and_titles) {
  RecordBatch only = parse("ccl-summary-only.jsonl");
  BOOST_TEST_REQUIRE(only.events.size() == 1u);
  BOOST_TEST(only.events[0].session_id == "4e27c414-a885-46a0-b5c8-d58e1417377d");  // file name
  BOOST_TEST(merged_title(only, "4e27c414-a885-46a0-b5c8-d58e1417377d") ==
             "TUI Cache Handling: Empty State Fix");
  // Under a name that is no session id, a record naming no session has nowhere to go.
  RecordBatch renamed = harness().parse_file(fixture("claude/ccl-summary-only.jsonl"));
  BOOST_TEST(renamed.events.empty());
  BOOST_TEST(count_warnings(renamed, "missing_session_id") == 1);

  RecordBatch early = parse("ccl-1.0.51-early-format.jsonl");
  BOOST_TEST(merged_title(early, "326189cf-5676-4237-8cde-1ce80aae4a9f") ==
             "Claude Code Log: Timestamp-Based Caching Implementation");

  // custom-title > agent-name > ai-title, even when the ai-title comes later in another chunk.
  auto catalog = staged("agent-sessions-schema-catalog.jsonl");
  BOOST_TEST(merged_title(harness().parse_file(catalog), "ses_stage0_small") ==
             "Stage0 small fixture");
  BOOST_TEST(merged_title(parse_in_chunks(catalog, 200), "ses_stage0_small") ==
             "Stage0 small fixture");
}

BOOST_AUTO_TEST_CASE(schema_catalogue_parses_and_reports_unknown_types) {
  RecordBatch batch;
  BOOST_REQUIRE_NO_THROW(batch = parse("agent-sessions-schema-catalog.jsonl"));
  BOOST_TEST(batch.events.size() == 96u);
  BOOST_TEST(kind_counts(batch) == (KindCounts{{"assistant_msg", 6},
                                               {"error", 6},
                                               {"lifecycle", 3},
                                               {"other", 63},
                                               {"thinking", 6},
                                               {"tool_call", 3},
                                               {"tool_result", 2},
                                               {"user_msg", 7}}));
  // started, result, bridge-session; atis-latch is a 2.1.3xx bookkeeping record (other)
  BOOST_TEST(count_warnings(batch, "unknown_type") == 3);
  BOOST_TEST(batch.warnings.size() == 3u);
  for (const auto& e : batch.events) BOOST_TEST(!e.session_id.empty());
  int unknown_kept = 0;
  for (const auto& e : batch.events)
    unknown_kept +=
        e.kind == "other" && (e.summary.starts_with("started") || e.summary.starts_with("result") ||
                              e.summary.starts_with("bridge-session"));
  BOOST_TEST(unknown_kept == 3);
}

BOOST_AUTO_TEST_CASE(tool_calls_that_edit_or_run_tests) {
  auto kind_of = [](const std::string& tool, const std::string& command) {
    const std::string line =
        R"({"type":"assistant","sessionId":"s1","uuid":"a1","message":{"id":"m1","content":[)"
        R"({"type":"tool_use","id":"t1","name":")" +
        tool + R"(","input":{"command":")" + command + R"("}}]}})" + "\n";
    RecordBatch batch;
    harness().adapter().parse("/h/.claude/projects/p/s1.jsonl", HELIX_LAYOUT_LINES, 0, line, "",
                              batch);
    return batch.events.size() == 1 ? batch.events[0].kind : std::string("?");
  };
  for (const char* command :
       {"pytest -q", "python -m pytest tests/", "npm test", "npm run test:unit", "yarn test",
        "cargo test --all", "go test ./...", "cd build && ctest --output-on-failure", "make test",
        "npx jest src", "npx vitest run", "./node_modules/.bin/mocha", "mise run test"})
    BOOST_TEST(kind_of("Bash", command) == "test_run", command);
  for (const char* command : {"ls -la", "cargo check", "cargo build", "npm install", "make",
                              "go build ./...", "git commit -m test"})
    BOOST_TEST(kind_of("Bash", command) == "tool_call", command);
  for (const char* tool : {"Edit", "Write", "MultiEdit", "NotebookEdit"})
    BOOST_TEST(kind_of(tool, "") == "edit", tool);
  BOOST_TEST(kind_of("Read", "pytest") == "tool_call");
}

BOOST_AUTO_TEST_CASE(bad_lines_are_reported_never_fatal) {
  const std::string data =
      R"({"type":"user","sessionId":"s1","uuid":"u1","message":{"role":"user","content":"hi"}})"
      "\n"
      R"({"type":"assistant","sessionId":"s1","mess)"
      "\n"
      "not json at all\n"
      "[1,2]\n";
  RecordBatch batch;
  BOOST_REQUIRE_NO_THROW(harness().adapter().parse("/h/.claude/projects/p/x.jsonl",
                                                   HELIX_LAYOUT_LINES, 0, data, "", batch));
  BOOST_TEST(batch.events.size() == 1u);
  BOOST_TEST(count_warnings(batch, "invalid_json") == 2);
  BOOST_TEST(count_warnings(batch, "not_an_object") == 1);
}

BOOST_AUTO_TEST_CASE(probe_claims_claude_records_only) {
  for (const auto& x : real_fixtures()) {
    if (x.kinds.counts.empty()) continue;  // the 0-byte session
    BOOST_TEST(harness().probe(staged(x.file)) == 95, x.file);
    BOOST_TEST(harness().probe(fixture("claude/" + x.file)) == 85, x.file);  // outside projects/
  }
  const std::string file =
      helix::test::read_file(fixture("claude/entire-2.1.19-agent-progress-subagent.jsonl"));
  const std::string_view head = std::string_view(file).substr(0, 64 * 1024);

  // First line of a real Codex rollout (tests/fixtures of the codex adapter, shortened).
  const std::string codex =
      R"({"timestamp":"2026-08-03T10:48:56.000Z","type":"session_meta","payload":{"id":"019fc8be-3658-7ca3-9e29-000000000000","cwd":"/tmp/repo","originator":"codex_cli_rs","cli_version":"0.146.0"}})"
      "\n";
  BOOST_TEST(harness().adapter().probe("/home/u/.codex/sessions/2026/08/03/rollout-x.jsonl", codex,
                                       codex.size()) == 0);
  BOOST_TEST(harness().adapter().probe("/home/u/.claude/projects/p/rollout-x.jsonl", codex,
                                       codex.size()) == 0);

  // A first line longer than the 64 KiB head (a pasted image) still reads as Claude's.
  const std::string image_line =
      R"({"parentUuid":null,"sessionId":"s1","type":"user","uuid":"u1","message":{"role":"user","content":[{"type":"image","source":{"type":"base64","data":")" +
      std::string(70 * 1024, 'A');
  const std::string_view image_head = std::string_view(image_line).substr(0, 64 * 1024);
  BOOST_TEST(harness().adapter().probe("/h/.claude/projects/p/s1.jsonl", image_head, 80000) == 70);
  BOOST_TEST(harness().adapter().probe("/h/elsewhere/s1.jsonl", image_head, 80000) == 0);

  const std::string journal = R"({"type":"started","key":"v2:k","agentId":"a1"})"
                              "\n";
  const std::string journal_path =
      "/home/u/.claude/projects/p/s/subagents/workflows/wf_1/journal.jsonl";
  BOOST_TEST(harness().adapter().probe(journal_path, journal, journal.size()) == 0);
  BOOST_TEST(harness().adapter().probe(journal_path, head, head.size()) == 0);
}

// Since 2.1.5 the records say which cache writes were 1-hour ones (usage.cache_creation), which
// cost more: the adapter passes that part apart. Python over the files, keeping the largest line
// of each call: 2.1.32 45,593 of 45,593 writes, 2.1.29 2,343 of 2,343, 2.0.76 none.
BOOST_AUTO_TEST_CASE(one_hour_cache_writes_are_passed_apart) {
  auto one_hour = [](const RecordBatch& batch) {
    std::map<std::string, const UsageRecord*> calls;
    for (const auto& u : batch.usage) {
      auto& kept = calls[u.key];
      if (!kept || u.total() > kept->total()) kept = &u;
    }
    int64_t sum = 0;
    for (const auto& [key, u] : calls) {
      BOOST_TEST(u->cache_creation_1h_tokens <= u->cache_creation_tokens);
      sum += u->cache_creation_1h_tokens;
    }
    return sum;
  };
  BOOST_TEST(one_hour(parse("entire-2.1.32-persisted-output.jsonl")) == 45593);
  BOOST_TEST(one_hour(parse("entire-2.1.29-user-image.slice.jsonl")) == 2343);
  BOOST_TEST(one_hour(parse("entire-2.0.76-tool-errors.jsonl")) == 0);
}

// Claude Code 2.1.330's cost-state records (tests/fixtures/pricing/SOURCES.md): its running
// cost per model, sent as agent totals keyed by session and model, with no tokens; the record
// is also kept as an event.
BOOST_AUTO_TEST_CASE(cost_state_records_become_the_agents_own_totals) {
  namespace fs = std::filesystem;
  const std::string inside =
      "-tmp-ccgen-Ifm9ST-scenario-d-compaction/50fe86a8-163f-4014-a26a-97701dc7ca34.jsonl";
  const fs::path path = fs::path(HELIX_TEST_BINARY_DIR) / "claude-home/projects" / inside;
  fs::create_directories(path.parent_path());
  fs::remove(path);
  fs::copy_file(
      fs::path(HELIX_TEST_FIXTURE_DIR) / "pricing/cc-2.1.330-cost-state/projects" / inside, path);
  const RecordBatch batch = harness().parse_file(path);
  std::vector<double> totals;
  for (const auto& u : batch.usage) {
    if (!u.agent_total()) continue;
    BOOST_TEST(u.key == "cost-state/50fe86a8-163f-4014-a26a-97701dc7ca34/claude-opus-5-5");
    BOOST_TEST(u.model == "claude-opus-5-5");
    BOOST_TEST(u.total() == 0);
    totals.push_back(u.cost_usd);
  }
  BOOST_TEST(totals == (std::vector<double>{0.0662784, 0.0779074, 0.14337339999999998}),
             boost::test_tools::per_element());
  int cost_state_events = 0;
  for (const auto& e : batch.events) cost_state_events += e.summary.starts_with("cost-state");
  BOOST_TEST(cost_state_events == 3);
}

// The 1.1 mapping (links, compaction events, bookkeeping as other, usage keys) replaces what 1.0
// stored: the adapter asks the host to parse its sources again (helix.reparse/1).
BOOST_AUTO_TEST_CASE(sources_parsed_by_1_0_are_parsed_again) {
  const auto& table = harness().adapter().plugin().adapter;
  BOOST_TEST_REQUIRE((table && table->get_extension != nullptr));
  const auto* reparse =
      static_cast<const helix_reparse_ext*>(table->get_extension(HELIX_EXT_REPARSE));
  BOOST_TEST_REQUIRE(reparse != nullptr);
  BOOST_TEST(std::string(reparse->reparse_below) == "1.1.0");
}

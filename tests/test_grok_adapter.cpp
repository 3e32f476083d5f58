// The Grok Build adapter over the real files of tests/fixtures/grok (see its SOURCES.md): every
// expectation below was read off the fixture files (jq/python), not off the adapter.
#define BOOST_TEST_MODULE grok_adapter
#include <boost/test/unit_test.hpp>
#include <filesystem>

#include "adapter_harness.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {

using helix::EventRecord;
using helix::RecordBatch;
using helix::test::fixture;

const std::string kSessionId = "01a2029c-db54-7f63-8de6-3e496b22d736";
const std::string kSessionDir =
    "grok/hermetic-grok-1.0.41/grok_home/sessions/%2Ftmp%2Fgh%2Fproj/"
    "01a2029c-db54-7f63-8de6-3e496b22d736/";
const std::string kGroupDir = "grok/hermetic-grok-1.0.41/grok_home/sessions/%2Ftmp%2Fgh%2Fproj/";
const std::string kCurrentDir =
    "grok/agentsview-goldens/current/%2Fworkspace%2Fgrok-worktrees%2Fparser-audit/"
    "019f6000-0000-7000-8000-000000000001/";
const std::string kLegacyDir =
    "grok/agentsview-goldens/legacy/%2Fworkspace%2Fagentsview/"
    "019f6000-0000-7000-8000-000000000002/";

helix::test::AdapterHarness& harness() {
  static helix::test::AdapterHarness instance("grok");
  return instance;
}

RecordBatch parse(const std::string& relative, uint32_t layout = HELIX_LAYOUT_LINES) {
  return harness().parse_file(fixture(relative), layout);
}

// Parses in-memory bytes as if they were the file at `path`.
RecordBatch parse_text(const std::string& path, const std::string& data,
                       uint32_t layout = HELIX_LAYOUT_LINES, const std::string& state = "") {
  RecordBatch batch;
  harness().adapter().parse(path, layout, 0, data, state, batch);
  return batch;
}

std::vector<std::string> kinds(const RecordBatch& batch) {
  std::vector<std::string> out;
  for (const auto& e : batch.events) out.push_back(e.kind);
  return out;
}

std::vector<uint64_t> offsets(const RecordBatch& batch) {
  std::vector<uint64_t> out;
  for (const auto& e : batch.events) out.push_back(e.source_offset);
  return out;
}

const EventRecord& only(const RecordBatch& batch, const std::string& kind) {
  auto count = std::count_if(batch.events.begin(), batch.events.end(),
                             [&](const EventRecord& e) { return e.kind == kind; });
  BOOST_TEST_REQUIRE(count == 1, "expected one " << kind << " event, got " << count);
  return *std::find_if(batch.events.begin(), batch.events.end(),
                       [&](const EventRecord& e) { return e.kind == kind; });
}

// What the host's (session, uid, ordinal) rule sees.
std::set<std::pair<std::string, uint32_t>> native_keys(const RecordBatch& batch) {
  std::set<std::pair<std::string, uint32_t>> keys;
  for (const auto& e : batch.events)
    if (!e.uid.empty()) keys.emplace(e.uid, e.ordinal);
  return keys;
}

std::vector<std::string> warning_categories(const RecordBatch& batch) {
  std::vector<std::string> out;
  for (const auto& w : batch.warnings) out.push_back(w.category);
  return out;
}

void require_session_ids(const RecordBatch& batch, const std::string& id) {
  for (const auto& e : batch.events) BOOST_TEST(e.session_id == id);
  for (const auto& s : batch.sessions) BOOST_TEST(s.native_id == id);
  for (const auto& u : batch.usage) BOOST_TEST(u.session_id == id);
}

// Every file of one canary scenario (tests/fixtures/grok/canary-1.0.41/<scenario>) with the
// given name, parsed, in path order.
std::vector<std::pair<std::string, RecordBatch>> canary_files(const std::string& scenario,
                                                              const std::string& name) {
  namespace fs = std::filesystem;
  std::vector<std::string> paths;
  for (const auto& entry :
       fs::recursive_directory_iterator(fixture("grok/canary-1.0.41/" + scenario)))
    if (entry.path().filename() == name) paths.push_back(entry.path().string());
  std::sort(paths.begin(), paths.end());
  std::vector<std::pair<std::string, RecordBatch>> out;
  const uint32_t layout =
      name.ends_with(".json") ? HELIX_LAYOUT_DOCUMENT : static_cast<uint32_t>(HELIX_LAYOUT_LINES);
  for (const auto& path : paths) out.emplace_back(path, harness().parse_file(path, layout));
  return out;
}

int count_kind(const RecordBatch& batch, const std::string& kind) {
  return static_cast<int>(std::count_if(batch.events.begin(), batch.events.end(),
                                        [&](const EventRecord& e) { return e.kind == kind; }));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(canary_runs)

// /compact: auto_compact_completed is the one compaction event; the rewritten chat_history
// holds the summary the session went on from.
BOOST_AUTO_TEST_CASE(a_compaction_is_one_event_and_its_summary_is_kept) {
  int compactions = 0, summaries = 0;
  for (const auto& [path, b] : canary_files("compaction", "updates.jsonl"))
    for (const auto& e : b.events)
      compactions += e.kind == "lifecycle" && e.summary.starts_with("context compacted (");
  for (const auto& [path, b] : canary_files("compaction", "chat_history.jsonl"))
    for (const auto& e : b.events)
      if (e.kind == "lifecycle" && e.summary == "summary of the conversation so far") {
        ++summaries;
        BOOST_TEST(e.text.find("Checkpoint summary") != std::string::npos);
      }
  BOOST_TEST(compactions == 1);
  BOOST_TEST(summaries == 1);
}

// A command exiting 1, a missing file and a string not found: errors in both files (so the
// copy stored first, chat_history's, says so too); the HTTP 500 Grok retried is a retry.
BOOST_AUTO_TEST_CASE(failed_tools_are_errors_and_retries_are_retries) {
  for (const char* name : {"chat_history.jsonl", "updates.jsonl"})
    for (const auto& [path, b] : canary_files("errors", name)) {
      BOOST_TEST(count_kind(b, "error") == 3, path);
      BOOST_TEST(count_kind(b, "tool_result") == 0, path);
    }
  for (const auto& [path, b] : canary_files("errors", "updates.jsonl"))
    BOOST_TEST(count_kind(b, "retry") == 1);
}

BOOST_AUTO_TEST_CASE(an_interrupted_turn_is_a_human_intervention) {
  for (const auto& [path, b] : canary_files("interrupt", "events.jsonl")) {
    BOOST_TEST(count_kind(b, "human_intervention") == 1);
    for (const auto& e : b.events)
      if (e.kind == "human_intervention") BOOST_TEST(e.summary == "turn_ended interrupted");
  }
}

// The fork's summary.json says forked_at: it names its origin, and its copy of the origin's turn
// carries the origin's usage key (the turn's prompt id), so the call counts once.
BOOST_AUTO_TEST_CASE(a_fork_names_its_origin_and_shares_its_turn_keys) {
  std::set<std::string> origins;
  for (const auto& [path, b] : canary_files("fork", "summary.json"))
    for (const auto& s : b.sessions) {
      BOOST_TEST(s.parent_native_id.empty());
      if (!s.forked_from_native_id.empty()) origins.insert(s.forked_from_native_id);
    }
  BOOST_TEST(origins.size() == 1u);
  std::map<std::string, int> keys;
  for (const auto& [path, b] : canary_files("fork", "updates.jsonl"))
    for (const auto& u : b.usage) ++keys[u.key];
  BOOST_TEST(keys.size() == 2u);  // the origin's turn (in both files) and the fork's own
  for (const auto& [key, n] : keys) BOOST_TEST(key.starts_with("turn:"));
  for (const auto& [path, b] : canary_files("fork", "usage.json")) BOOST_TEST(b.usage.empty());
}

// subagents/<child>/meta.json in the parent's directory makes the child a session of its own
// whose parent is the caller.
BOOST_AUTO_TEST_CASE(a_subagent_meta_names_the_child_and_its_parent) {
  const auto metas = canary_files("subagents", "meta.json");
  BOOST_TEST_REQUIRE(metas.size() == 1u);
  const auto& [path, b] = metas[0];
  BOOST_TEST_REQUIRE(b.sessions.size() == 1u);
  const std::string child = std::filesystem::path(path).parent_path().filename().string();
  const std::string parent =
      std::filesystem::path(path).parent_path().parent_path().parent_path().filename().string();
  BOOST_TEST(b.sessions[0].native_id == child);
  BOOST_TEST(b.sessions[0].parent_native_id == parent);
  BOOST_TEST(only(b, "lifecycle").session_id == parent);
  BOOST_TEST(harness().probe(path) == 100);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(updates_journal)

// 10 lines: prompt, tool_call, two tool_call_updates (only the completed one is a result),
// reply, turn_completed, background_tasks, prompt, reply, turn_completed.
BOOST_AUTO_TEST_CASE(one_event_per_message_and_tool_step) {
  const RecordBatch b = parse(kSessionDir + "updates.jsonl");
  const std::vector<std::string> expected = {"user_msg",      "tool_call",     "tool_result",
                                             "assistant_msg", "lifecycle",     "lifecycle",
                                             "user_msg",      "assistant_msg", "lifecycle"};
  BOOST_TEST(kinds(b) == expected, boost::test_tools::per_element());
  const std::vector<uint64_t> expected_offsets = {0, 359, 2047, 3045, 3543, 4265, 4535, 4885, 5382};
  BOOST_TEST(offsets(b) == expected_offsets, boost::test_tools::per_element());
  BOOST_TEST(b.warnings.empty());
  require_session_ids(b, kSessionId);

  const auto& e = b.events;
  BOOST_TEST(e[0].text == "list the files here");
  BOOST_TEST(e[0].ts_ms == 1795340164014);  // params._meta.agentTimestampMs
  BOOST_TEST(e[1].tool == "run_terminal_command");
  BOOST_TEST(e[1].call_id == "call_stub_1");
  BOOST_TEST(e[1].summary == "run_terminal_command: ls");
  BOOST_TEST(e[2].call_id == "call_stub_1");
  BOOST_TEST(e[2].text == "exit: 0\nhello.txt\n");  // rawOutput.output_for_prompt
  BOOST_TEST(e[3].text == "The directory contains hello.txt.");
  BOOST_TEST(e[3].model == "stub-model");
  BOOST_TEST(e[5].summary == "background_tasks");
  BOOST_TEST(e[6].text == "now say hi");
  BOOST_TEST(e[8].summary == "turn completed: end_turn, 1720 tokens");
  // The same reply text in both turns stays two messages: the uid carries the prompt index.
  BOOST_TEST(e[3].uid != e[7].uid);

  BOOST_TEST_REQUIRE(b.sessions.size() == 1u);
  BOOST_TEST(b.sessions[0].model == "stub-model");
  BOOST_TEST(b.sessions[0].cwd == "/tmp/gh/proj");  // decoded group name, a certain one
  BOOST_TEST(b.sessions[0].started_at_ms == 1795340164014);
  BOOST_TEST(b.sessions[0].ended_at_ms == 1795340178636);
}

// turn_completed: inputTokens 2900 / 1700 include cachedReadTokens 2000 / 1000 (grok.md 4.1).
BOOST_AUTO_TEST_CASE(turn_usage_in_the_common_convention) {
  const RecordBatch b = parse(kSessionDir + "updates.jsonl");
  BOOST_TEST_REQUIRE(b.usage.size() == 2u);
  const auto& first = b.usage[0];
  BOOST_TEST(first.key == "turn:ff8bd739-a168-49ca-ab67-2cac275ad94d");  // the turn's prompt id
  BOOST_TEST(first.input_tokens == 900);
  BOOST_TEST(first.cache_read_tokens == 2000);
  BOOST_TEST(first.cache_creation_tokens == 0);
  BOOST_TEST(first.output_tokens == 40);
  BOOST_TEST(first.reasoning_tokens == 10);
  BOOST_TEST(first.model == "stub-model");
  BOOST_TEST(first.cost_usd < 0);  // no costUsdTicks in this run: unknown, not free
  BOOST_TEST(first.source_offset == 3543u);
  BOOST_TEST(b.usage[1].key == "turn:cb0a1b97-dade-4b09-a72c-422723693208");
  BOOST_TEST(b.usage[1].input_tokens == 700);
  BOOST_TEST(b.usage[1].output_tokens == 20);
}

// usage.json session totals: input 4600 (3000 cached), output 60, reasoning 15, 2 turns. The
// journal's turns add up to them; usage.json repeats those turns (with turn numbers that count
// interrupted turns differently, and a fork's copy of its origin's turns) and is no usage source.
BOOST_AUTO_TEST_CASE(token_totals_match_usage_json) {
  const RecordBatch journal = parse(kSessionDir + "updates.jsonl");
  const RecordBatch usage_json = parse(kSessionDir + "usage.json", HELIX_LAYOUT_DOCUMENT);
  BOOST_TEST(usage_json.warnings.empty());
  BOOST_TEST(usage_json.usage.empty());
  BOOST_TEST_REQUIRE(usage_json.sessions.size() == 1u);
  BOOST_TEST(usage_json.sessions[0].native_id == kSessionId);
  int64_t input = 0, output = 0, cached = 0, reasoning = 0;
  for (const auto& u : journal.usage) {
    input += u.input_tokens;
    output += u.output_tokens;
    cached += u.cache_read_tokens;
    reasoning += u.reasoning_tokens;
  }
  BOOST_TEST(input == 4600 - 3000);
  BOOST_TEST(output == 60);
  BOOST_TEST(cached == 3000);
  BOOST_TEST(reasoning == 15);
}

BOOST_AUTO_TEST_CASE(line_by_line_sweeps_give_the_same_events) {
  const RecordBatch whole = parse(kSessionDir + "updates.jsonl");
  const RecordBatch chunked =
      harness().parse_file_in_chunks(fixture(kSessionDir + "updates.jsonl"), 1);
  BOOST_TEST(kinds(chunked) == kinds(whole), boost::test_tools::per_element());
  BOOST_TEST(offsets(chunked) == offsets(whole), boost::test_tools::per_element());
  BOOST_TEST(native_keys(chunked) == native_keys(whole));
  BOOST_TEST_REQUIRE(chunked.usage.size() == 2u);
  BOOST_TEST(chunked.usage[1].key == "turn:cb0a1b97-dade-4b09-a72c-422723693208");
}

// A reply streamed as three chunks, each delivered by a separate parse call (as successive
// sweeps would), is one assistant_msg at the first chunk's offset, with cost from ticks.
BOOST_AUTO_TEST_CASE(streamed_chunks_coalesce_across_parse_calls) {
  const std::string path = "/g/sessions/%2Ftmp%2Fgh%2Fproj/s1/updates.jsonl";
  auto chunk = [](const std::string& text) {
    return R"({"timestamp":1795340164,"method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":")" +
           text + R"("}},"_meta":{"agentTimestampMs":1795340164146}}})" + "\n";
  };
  const std::vector<std::string> lines = {
      chunk("The directory "), chunk("contains "), chunk("hello.txt."),
      R"({"timestamp":1795340164,"method":"_x.ai/session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"turn_completed","prompt_id":"p","stop_reason":"end_turn","usage":{"inputTokens":100,"outputTokens":5,"totalTokens":105,"cachedReadTokens":60,"cacheCreationTokens":10,"reasoningTokens":0,"costUsdTicks":2500000000}}}})"
      "\n"};
  std::string state;
  uint64_t offset = 0;
  std::vector<EventRecord> events;
  std::vector<helix::UsageRecord> usage;
  for (const auto& line : lines) {
    RecordBatch batch;
    harness().adapter().parse(path, HELIX_LAYOUT_LINES, offset, line, state, batch);
    BOOST_TEST_REQUIRE(batch.saved_state.has_value());
    state = *batch.saved_state;
    events.insert(events.end(), batch.events.begin(), batch.events.end());
    usage.insert(usage.end(), batch.usage.begin(), batch.usage.end());
    offset += line.size();
  }
  BOOST_TEST_REQUIRE(events.size() == 2u);
  BOOST_TEST(events[0].kind == "assistant_msg");
  BOOST_TEST(events[0].text == "The directory contains hello.txt.");
  BOOST_TEST(events[0].source_offset == 0u);
  BOOST_TEST(events[1].kind == "lifecycle");
  BOOST_TEST_REQUIRE(usage.size() == 1u);
  BOOST_TEST(usage[0].input_tokens == 30);  // 100 - 60 cached - 10 cache writes
  BOOST_TEST(usage[0].cache_creation_tokens == 10);
  BOOST_TEST(usage[0].cost_usd == 0.25);  // 2.5e9 ticks of 1e-10 USD
}

// A bare ACP notification (legacy, no envelope) and a rewind marker, which is kept as
// lifecycle: the journal is append-only, so the rewound turn's events stay.
BOOST_AUTO_TEST_CASE(legacy_lines_and_rewind_markers) {
  const RecordBatch b = parse_text(
      "/g/sessions/%2Ftmp/s1/updates.jsonl",
      R"({"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}})"
      "\n"
      R"({"timestamp":1795340200,"method":"_x.ai/session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"rewind_marker","target_prompt_index":0,"created_at":"x"}}})"
      "\n");
  BOOST_TEST(kinds(b) == (std::vector<std::string>{"assistant_msg", "lifecycle"}),
             boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(b.events.size() == 2u);
  BOOST_TEST(b.events[0].text == "hi");
  BOOST_TEST(b.events[1].summary == "rewind to prompt 0");
  BOOST_TEST(b.events[1].ts_ms == 1795340200000);  // envelope seconds when no agentTimestampMs
  BOOST_TEST(b.warnings.empty());
}

// 12,000 control characters escape to ~72 KB of JSON: more than the host accepts as state, so
// the open message is emitted at once instead of carried.
BOOST_AUTO_TEST_CASE(saved_state_stays_under_the_host_limit) {
  std::string escaped;
  for (int i = 0; i < 12000; ++i) escaped += "\\u0001";
  const RecordBatch b = parse_text(
      "/g/sessions/%2Ftmp/s1/updates.jsonl",
      R"({"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":")" +
          escaped + "\"}}}\n");
  BOOST_TEST_REQUIRE(b.events.size() == 1u);
  BOOST_TEST(b.events[0].text.size() == 12000u);
  BOOST_TEST_REQUIRE(b.saved_state.has_value());
  BOOST_TEST(b.saved_state->size() < 1024u);
}

BOOST_AUTO_TEST_CASE(unknown_updates_are_kept_and_reported) {
  const std::string path = "/g/sessions/%2Ftmp/s1/updates.jsonl";
  const RecordBatch b = parse_text(
      path,
      R"({"timestamp":1,"method":"_x.ai/session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"brand_new_kind"}}})"
      "\n{not json\n");
  BOOST_TEST(kinds(b) == std::vector<std::string>{"other"}, boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(b.events.size() == 1u);
  BOOST_TEST(b.events[0].payload_index >= 0);
  BOOST_TEST(warning_categories(b) == (std::vector<std::string>{"unknown_type", "invalid_json"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(chat_history)

// 9 items: system, <user_info> preamble, system_reminder, prompt 0, assistant with a tool call
// (empty content), tool_result, reply, prompt 1, reply.
BOOST_AUTO_TEST_CASE(current_form_from_the_real_binary) {
  const RecordBatch b = parse(kSessionDir + "chat_history.jsonl");
  const std::vector<std::string> expected = {"other",         "other",     "other",
                                             "user_msg",      "tool_call", "tool_result",
                                             "assistant_msg", "user_msg",  "assistant_msg"};
  BOOST_TEST(kinds(b) == expected, boost::test_tools::per_element());
  const std::vector<uint64_t> expected_offsets = {0, 118, 360, 891, 1010, 1203, 1288, 1379, 1489};
  BOOST_TEST(offsets(b) == expected_offsets, boost::test_tools::per_element());
  BOOST_TEST(b.warnings.empty());
  require_session_ids(b, kSessionId);
  BOOST_TEST(b.events[0].role == "system");
  BOOST_TEST(b.events[1].summary == "session preamble");
  BOOST_TEST(b.events[2].summary.starts_with("system_reminder: "));
  BOOST_TEST(b.events[3].text == "list the files here");  // <user_query> wrapper removed
  BOOST_TEST(b.events[4].tool == "run_terminal_command");
  BOOST_TEST(b.events[4].call_id == "call_stub_1");
  BOOST_TEST(b.events[4].text == R"({"command": "ls", "description": "List files"})");
  BOOST_TEST(b.events[5].call_id == "call_stub_1");
  BOOST_TEST(b.events[5].text == "exit: 0\nhello.txt\n");
  BOOST_TEST(b.events[6].model == "stub-model");
  for (const auto& e : b.events) BOOST_TEST(e.ts_ms == 0);  // the file has no timestamps
}

// Both files describe prompts, tool call, result and replies: the same (uid, ordinal) keys,
// so the host stores each once; what only one file has carries no uid.
BOOST_AUTO_TEST_CASE(messages_in_both_files_share_their_native_keys) {
  const RecordBatch chat = parse(kSessionDir + "chat_history.jsonl");
  const RecordBatch journal = parse(kSessionDir + "updates.jsonl");
  const auto keys = native_keys(chat);
  BOOST_TEST(keys.size() == 6u);
  BOOST_TEST(keys == native_keys(journal));
  // The prompt index that reply uids carry survives line-by-line sweeps (saved state).
  const RecordBatch chat_by_line =
      harness().parse_file_in_chunks(fixture(kSessionDir + "chat_history.jsonl"), 1);
  BOOST_TEST(native_keys(chat_by_line) == keys);
  std::map<std::string, int> stored;  // kinds left after the host's dedupe
  std::set<std::pair<std::string, uint32_t>> seen;
  for (const RecordBatch* batch : {&chat, &journal})
    for (const auto& e : batch->events)
      if (e.uid.empty() || seen.emplace(e.uid, e.ordinal).second) ++stored[e.kind];
  BOOST_TEST(stored["user_msg"] == 2);
  BOOST_TEST(stored["assistant_msg"] == 2);
  BOOST_TEST(stored["tool_call"] == 1);
  BOOST_TEST(stored["tool_result"] == 1);
}

// agentsview golden, chat_format_version 1: project_instructions, prompt 0, reasoning,
// web_search backend call, reply + read_file call, result, interjection, reply.
BOOST_AUTO_TEST_CASE(current_form_with_reasoning_and_server_tools) {
  const RecordBatch b = parse(kCurrentDir + "chat_history.jsonl");
  const std::vector<std::string> expected = {
      "other",         "other",     "user_msg",    "thinking",           "tool_call",
      "assistant_msg", "tool_call", "tool_result", "human_intervention", "assistant_msg"};
  BOOST_TEST(kinds(b) == expected, boost::test_tools::per_element());
  const std::vector<uint64_t> expected_offsets = {0, 43, 153, 251, 350, 519, 519, 715, 786, 897};
  BOOST_TEST(offsets(b) == expected_offsets, boost::test_tools::per_element());
  BOOST_TEST(b.warnings.empty());
  require_session_ids(b, "019f6000-0000-7000-8000-000000000001");
  BOOST_TEST(b.events[3].text == "Inspect both formats");
  BOOST_TEST(b.events[4].tool == "web_search");
  BOOST_TEST(b.events[4].call_id == "ws_1");
  BOOST_TEST(b.events[4].summary == "web_search: Grok Build persistence");
  BOOST_TEST(b.events[6].tool == "read_file");
  BOOST_TEST(b.events[6].call_id == "call_1");
  BOOST_TEST(b.events[6].model == "grok-4.5");
  BOOST_TEST(b.events[7].call_id == "call_1");
  BOOST_TEST(b.events[7].text == "source body");
  BOOST_TEST(b.events[8].text == "also keep interjections");
  BOOST_TEST(b.events[5].ordinal != b.events[6].ordinal);  // one record, two events
}

// agentsview golden, chat_format_version 0 (role-tagged), made by Grok's own downgrade tool
// from source-v1.jsonl: both forms must give the same conversation and the same keys.
BOOST_AUTO_TEST_CASE(legacy_role_form) {
  const RecordBatch b = parse(kLegacyDir + "chat_history.jsonl");
  const std::vector<std::string> expected = {"other",         "user_msg",  "thinking",
                                             "assistant_msg", "tool_call", "tool_result",
                                             "assistant_msg"};
  BOOST_TEST(kinds(b) == expected, boost::test_tools::per_element());
  BOOST_TEST(b.warnings.empty());
  require_session_ids(b, "019f6000-0000-7000-8000-000000000002");
  BOOST_TEST(b.events[1].text == "Review parser compatibility");
  BOOST_TEST(b.events[2].text == "Check the old format");  // reasoning_content
  BOOST_TEST(b.events[4].tool == "read_file");
  BOOST_TEST(b.events[4].call_id == "call_1");
  BOOST_TEST(b.events[5].call_id == "call_1");
  BOOST_TEST(b.events[5].text == "source body");
  BOOST_TEST(b.sessions.at(0).model == "grok-4.5");

  const std::string source_v1 = helix::test::read_file(fixture(kLegacyDir + "source-v1.jsonl"));
  const RecordBatch v1 = parse_text(
      "/g/sessions/%2Fworkspace%2Fagentsview/019f6000-0000-7000-8000-000000000002/"
      "chat_history.jsonl",
      source_v1);
  BOOST_TEST(native_keys(v1) == native_keys(b));
  BOOST_TEST(native_keys(b).size() == 6u);  // prompt, thought, 2 replies, call, result
}

BOOST_AUTO_TEST_CASE(unknown_items_are_kept_and_reported) {
  const RecordBatch b =
      parse_text("/g/sessions/%2Ftmp/s1/chat_history.jsonl", "{\"type\":\"hologram\",\"x\":1}\n");
  BOOST_TEST(kinds(b) == std::vector<std::string>{"other"}, boost::test_tools::per_element());
  BOOST_TEST(warning_categories(b) == std::vector<std::string>{"unknown_type"},
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(session_files)

// 23 lines: 2 turn_started, 3 loop_started, 10 phase_changed, 2 first_token, tool_started,
// permission_requested/resolved (allow), tool_completed, 2 turn_ended (completed).
BOOST_AUTO_TEST_CASE(runtime_events) {
  const RecordBatch b = parse(kSessionDir + "events.jsonl");
  BOOST_TEST(b.events.size() == 23u);
  BOOST_TEST(b.warnings.empty());
  require_session_ids(b, kSessionId);
  std::map<std::string, int> count;
  for (const auto& e : b.events) ++count[e.kind];
  BOOST_TEST(count["lifecycle"] == 21);
  BOOST_TEST(count["completion"] == 2);
  BOOST_TEST(b.events[0].summary == "turn_started 0 stub-model");
  BOOST_TEST(b.events[0].ts_ms == 1795340164014);
  const auto& tool_done = b.events[9];
  BOOST_TEST(tool_done.summary == "tool_completed run_terminal_command success");
  BOOST_TEST(tool_done.call_id == "call_stub_1");
  BOOST_TEST_REQUIRE(b.sessions.size() == 1u);
  BOOST_TEST(b.sessions[0].cwd.empty());  // sorts before summary.json: leaves cwd to it
  BOOST_TEST(b.sessions[0].started_at_ms == 1795340164014);
  BOOST_TEST(b.sessions[0].ended_at_ms == 1795340178630);
}

BOOST_AUTO_TEST_CASE(hermetic_summary) {
  const RecordBatch b = parse(kSessionDir + "summary.json", HELIX_LAYOUT_DOCUMENT);
  BOOST_TEST(b.warnings.empty());
  BOOST_TEST_REQUIRE(b.sessions.size() == 1u);
  const auto& s = b.sessions[0];
  BOOST_TEST(s.native_id == kSessionId);
  BOOST_TEST(s.cwd == "/tmp/gh/proj");
  BOOST_TEST(s.title == "The directory contains hello.txt.");  // generated_title
  BOOST_TEST(s.model == "stub-model");
  BOOST_TEST(s.started_at_ms == 1795340163926);  // created_at
  BOOST_TEST(s.ended_at_ms == 1795340178645);    // last_active_at
  BOOST_TEST(s.parent_native_id.empty());
  BOOST_TEST(only(b, "lifecycle").summary ==
             "session summary (headless): The directory contains hello.txt.");
}

BOOST_AUTO_TEST_CASE(golden_summary_names_its_parent) {
  const RecordBatch b = parse(kCurrentDir + "summary.json", HELIX_LAYOUT_DOCUMENT);
  BOOST_TEST_REQUIRE(b.sessions.size() == 1u);
  const auto& s = b.sessions[0];
  BOOST_TEST(s.native_id == "019f6000-0000-7000-8000-000000000001");
  BOOST_TEST(s.cwd == "/workspace/grok-worktrees/parser-audit");
  BOOST_TEST(s.parent_native_id == "019f5000-0000-7000-8000-000000000000");
  BOOST_TEST(s.git_branch == "feature/parser-audit");
  BOOST_TEST(s.title == "Audit Grok compatibility");
  BOOST_TEST(s.started_at_ms == 1784368800000);
  BOOST_TEST(s.ended_at_ms == 1784370540000);
  const RecordBatch legacy = parse(kLegacyDir + "summary.json", HELIX_LAYOUT_DOCUMENT);
  BOOST_TEST(legacy.sessions.at(0).cwd == "/workspace/agentsview");
}

// Two prompts of one session, neither a shell command: a session record, no events.
BOOST_AUTO_TEST_CASE(prompt_history_names_its_sessions) {
  const RecordBatch b = parse(kGroupDir + "prompt_history.jsonl");
  BOOST_TEST(b.events.empty());
  BOOST_TEST(b.warnings.empty());
  BOOST_TEST_REQUIRE(b.sessions.size() == 1u);
  BOOST_TEST(b.sessions[0].native_id == kSessionId);
  BOOST_TEST(b.sessions[0].cwd == "/tmp/gh/proj");
  BOOST_TEST(b.sessions[0].started_at_ms == 1795340164013);
  BOOST_TEST(b.sessions[0].ended_at_ms == 1795340178547);

  const RecordBatch bash = parse_text(
      "/g/sessions/%2Ftmp/prompt_history.jsonl",
      R"({"timestamp":"2026-11-22T09:36:04Z","session_id":"s2","prompt":"git status","is_bash":true})"
      "\n");
  BOOST_TEST_REQUIRE(bash.events.size() == 1u);
  BOOST_TEST(bash.events[0].kind == "human_intervention");
  BOOST_TEST(bash.events[0].session_id == "s2");
  BOOST_TEST(bash.events[0].summary == "! git status");
}

// grok.md 2.1: RFC 3986 encoding; names over 255 bytes become slug-<blake3> with a .cwd file.
BOOST_AUTO_TEST_CASE(cwd_decoding_is_offered_only_when_certain) {
  auto cwd_of = [](const std::string& group) {
    const RecordBatch b = parse_text(
        "/g/sessions/" + group + "/prompt_history.jsonl",
        R"({"timestamp":"2026-11-22T09:36:04Z","session_id":"s1","prompt":"hi","is_bash":false})"
        "\n");
    return b.sessions.at(0).cwd;
  };
  BOOST_TEST(cwd_of("%2Fhome%2Fdev%2Fmy%20proj%2Fcaf%C3%A9") == "/home/dev/my proj/café");
  BOOST_TEST(cwd_of("C%3A%5CUsers%5Cdev") == "C:\\Users\\dev");
  BOOST_TEST(cwd_of("very-long-directory-name-segment-07-8a969ab5d6c2a2cf").empty());
  BOOST_TEST(cwd_of("%2ftmp%2fx").empty());  // not Grok's upper-case encoding
  BOOST_TEST(cwd_of("%2Ftmp%2").empty());

  const RecordBatch dot_cwd =
      parse_text("/g/sessions/very-long-directory-name-segment-07-8a969ab5d6c2a2cf/.cwd",
                 "/very/long/directory-name-segment-07", HELIX_LAYOUT_DOCUMENT);
  BOOST_TEST(dot_cwd.sessions.empty());
  BOOST_TEST(warning_categories(dot_cwd) == std::vector<std::string>{"cwd_unattributed"},
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(unknown_runtime_events_are_kept_and_reported) {
  const RecordBatch b = parse_text(
      "/g/sessions/%2Ftmp/s1/events.jsonl",
      "{\"ts\":\"2026-11-22T09:36:04.014Z\",\"type\":\"teleported\"}\n"
      "{\"ts\":\"2026-11-22T09:36:05.000Z\",\"type\":\"turn_ended\",\"outcome\":\"cancelled\"}\n");
  BOOST_TEST(kinds(b) == (std::vector<std::string>{"other", "human_intervention"}),
             boost::test_tools::per_element());
  BOOST_TEST(warning_categories(b) == std::vector<std::string>{"unknown_type"},
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(probe)

BOOST_AUTO_TEST_CASE(grok_files_score_high) {
  for (const char* name :
       {"updates.jsonl", "chat_history.jsonl", "events.jsonl", "summary.json", "usage.json"})
    BOOST_TEST(harness().probe(fixture(kSessionDir + name)) == 100, name);
  BOOST_TEST(harness().probe(fixture(kGroupDir + "prompt_history.jsonl")) == 100);
  BOOST_TEST(harness().probe(fixture(kLegacyDir + "chat_history.jsonl")) == 100);
  BOOST_TEST(harness().probe(fixture(kCurrentDir + "summary.json")) == 100);
}

BOOST_AUTO_TEST_CASE(other_files_and_agents_score_zero) {
  for (const char* name : {"signals.json", "prompt_context.json", "rewind_points.jsonl",
                           "updates.jsonl.lock", "tool_definitions.json"})
    BOOST_TEST(harness().probe(fixture(kSessionDir + name)) == 0, name);
  const std::string claude =
      R"({"type":"user","message":{"role":"user","content":"hi"},"uuid":"u1","sessionId":"c1","cwd":"/tmp"})"
      "\n";
  const std::string codex =
      R"({"timestamp":"2025-10-01T00:00:00Z","type":"session_meta","payload":{"id":"x","cwd":"/tmp"}})"
      "\n";
  const auto& adapter = harness().adapter();
  BOOST_TEST(adapter.probe("/h/.claude/projects/-tmp/c1.jsonl", claude, claude.size()) == 0);
  BOOST_TEST(adapter.probe("/h/.codex/sessions/2025/10/01/rollout-x.jsonl", codex, codex.size()) ==
             0);
  // A Grok file name is not enough: the content must be Grok's.
  BOOST_TEST(adapter.probe("/h/.grok/sessions/%2Ftmp/s/updates.jsonl", claude, claude.size()) == 0);
  BOOST_TEST(adapter.probe("/h/.grok/sessions/%2Ftmp/s/events.jsonl", codex, codex.size()) == 0);
}

BOOST_AUTO_TEST_SUITE_END()

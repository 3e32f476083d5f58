// The codex and codex-legacy adapters over the Codex fixtures (tests/fixtures/codex, see
// SOURCES.md): which plugin claims which era, the events of every fixture, tool pairing and
// failures, session fields, and token totals checked against the totals the files contain.
#define BOOST_TEST_MODULE codex_adapter
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "adapter_harness.hpp"
#include "config/config.hpp"
#include "ingest/sweep.hpp"
#include "store/store.hpp"

namespace {

using helix::EventRecord;
using helix::RecordBatch;
using helix::test::AdapterHarness;

// The fixtures, by era (codex.md §2).
const std::string kLegacyL0 =
    "codex/rollout-2025-08-06T18-02-11-05997ac9-0e06-4251-8576-cc16266d3022.jsonl";
const std::string kTypeScript =
    "codex/rollout-2025-04-20-3f8a1c2e-7b4d-4e9a-9c1f-2a6b8d0e4f51.json";
const std::string kExec077 =
    "codex/rollout-2026-01-02T18-39-45-019b7f94-51b4-7593-922e-ba12b5b73b52.jsonl";
const std::string kFork077 =
    "codex/rollout-2026-01-02T19-00-00-019b7fa0-0000-7000-8000-00000000f0c1.jsonl";
const std::string kDesktop104 =
    "codex/rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl";
const std::string kIncomplete104 =
    "codex/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl";
const std::string kSmall104 =
    "codex/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl";
const std::string kTui125 =
    "codex/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl";
const std::string kComposite = "codex/jazzyalex-stage0-small-0.146-composite.jsonl";
const std::string kExec169 =
    "codex/rollout-2026-11-22T09-34-50-01a2029b-bd0f-7b52-b27b-ba8d4ea361c8.jsonl";
const std::string kTui169 =
    "codex/rollout-2026-11-22T09-37-20-01a2029e-059d-7da1-9afe-8f127feb8172.jsonl";

const std::vector<std::string> kWrapperFixtures = {kExec077,       kFork077,  kDesktop104,
                                                   kIncomplete104, kSmall104, kTui125,
                                                   kComposite,     kExec169,  kTui169};

const AdapterHarness& codex() {
  static const AdapterHarness harness("codex");
  return harness;
}
const AdapterHarness& legacy() {
  static const AdapterHarness harness("codex-legacy");
  return harness;
}

RecordBatch parse(const std::string& fixture) {
  const bool is_document = fixture.ends_with(".json");
  const auto& adapter = fixture == kLegacyL0 || is_document ? legacy() : codex();
  return adapter.parse_file(helix::test::fixture(fixture),
                            is_document ? HELIX_LAYOUT_DOCUMENT : HELIX_LAYOUT_LINES);
}

// "kind=count ..." in kind order: one readable line to compare.
std::string kind_counts(const RecordBatch& batch) {
  std::map<std::string, int> counts;
  for (const auto& e : batch.events) ++counts[e.kind];
  std::ostringstream out;
  for (const auto& [kind, n] : counts) out << kind << '=' << n << ' ';
  return out.str();
}

std::vector<const EventRecord*> with_call_id(const RecordBatch& batch, const std::string& id) {
  std::vector<const EventRecord*> out;
  for (const auto& e : batch.events)
    if (e.call_id == id) out.push_back(&e);
  return out;
}

int count_kind(const RecordBatch& batch, const std::string& kind) {
  return static_cast<int>(std::count_if(batch.events.begin(), batch.events.end(),
                                        [&](const EventRecord& e) { return e.kind == kind; }));
}

// Summed usage in the Helix convention: input (without cache), cache read, output, reasoning.
std::vector<int64_t> usage_totals(const RecordBatch& batch) {
  std::vector<int64_t> sum(5, 0);
  for (const auto& u : batch.usage) {
    sum[0] += u.input_tokens;
    sum[1] += u.cache_read_tokens;
    sum[2] += u.output_tokens;
    sum[3] += u.reasoning_tokens;
    sum[4] += u.cache_creation_tokens;
  }
  return sum;
}

// The last session record that names each field, as the host's merge rule would see it.
helix::SessionRecord merged_session(const RecordBatch& batch) {
  helix::SessionRecord s;
  for (const auto& r : batch.sessions) {
    if (s.native_id.empty()) s.native_id = r.native_id;
    BOOST_TEST(r.native_id == s.native_id);  // every record names the same session
    if (s.cwd.empty()) s.cwd = r.cwd;
    if (s.parent_native_id.empty()) s.parent_native_id = r.parent_native_id;
    if (s.forked_from_native_id.empty()) s.forked_from_native_id = r.forked_from_native_id;
    if (!r.git_branch.empty()) s.git_branch = r.git_branch;
    if (!r.model.empty()) s.model = r.model;
    if (!r.agent_version.empty()) s.agent_version = r.agent_version;
    if (!r.title.empty()) s.title = r.title;
    if (r.started_at_ms)
      s.started_at_ms =
          s.started_at_ms ? std::min(s.started_at_ms, r.started_at_ms) : r.started_at_ms;
    s.ended_at_ms = std::max(s.ended_at_ms, r.ended_at_ms);
  }
  return s;
}

int warnings(const RecordBatch& batch, const std::string& category) {
  return static_cast<int>(std::count_if(batch.warnings.begin(), batch.warnings.end(),
                                        [&](const auto& w) { return w.category == category; }));
}

}  // namespace

// ---- which plugin owns which era ------------------------------------------------------------

BOOST_AUTO_TEST_CASE(each_era_is_claimed_by_exactly_one_plugin) {
  for (const auto& f : kWrapperFixtures) {
    BOOST_TEST_CONTEXT(f) {
      BOOST_TEST(codex().probe(helix::test::fixture(f)) == 100);
      BOOST_TEST(legacy().probe(helix::test::fixture(f)) == 0);
    }
  }
  for (const auto& f : {kLegacyL0, kTypeScript}) {
    BOOST_TEST_CONTEXT(f) {
      BOOST_TEST(legacy().probe(helix::test::fixture(f)) == 100);
      BOOST_TEST(codex().probe(helix::test::fixture(f)) == 0);
    }
  }
  // The global prompt history is never a session source.
  BOOST_TEST(codex().probe(helix::test::fixture("codex/history.jsonl")) == 0);
  BOOST_TEST(legacy().probe(helix::test::fixture("codex/history.jsonl")) == 0);
}

BOOST_AUTO_TEST_CASE(both_plugins_declare_one_flavor_and_the_same_sources) {
  const auto* wrapper = &*codex().adapter().plugin().adapter;
  const auto* old = &*legacy().adapter().plugin().adapter;
  BOOST_TEST(std::string(wrapper->flavor) == "codex");
  BOOST_TEST(std::string(old->flavor) == "codex");
  BOOST_TEST(std::string(wrapper->root_env) == "CODEX_HOME");
  BOOST_TEST(std::string(wrapper->default_roots[0]) == "~/.codex");
  std::vector<std::pair<std::string, uint32_t>> globs;
  for (auto* p = wrapper->patterns; p->glob; ++p) globs.emplace_back(p->glob, p->layout);
  const std::vector<std::pair<std::string, uint32_t>> expected = {
      {"sessions/**/rollout-*.jsonl", HELIX_LAYOUT_LINES},
      {"sessions/**/rollout-*.jsonl.zst", HELIX_LAYOUT_LINES},
      {"archived_sessions/**/rollout-*.jsonl", HELIX_LAYOUT_LINES},
      {"archived_sessions/**/rollout-*.jsonl.zst", HELIX_LAYOUT_LINES},
      {"sessions/**/rollout-*.json", HELIX_LAYOUT_DOCUMENT}};
  BOOST_TEST((globs == expected));
  std::size_t i = 0;
  for (auto* p = old->patterns; p->glob; ++p, ++i) {
    BOOST_TEST_REQUIRE(i < expected.size());
    BOOST_TEST(p->glob == expected[i].first);
  }
  BOOST_TEST(i == expected.size());
}

BOOST_AUTO_TEST_CASE(compressed_names_are_probed_by_their_decompressed_content) {
  // The host hands probe() the decompressed head; the .zst suffix must not change the verdict.
  const std::string head = helix::test::read_file(helix::test::fixture(kExec169)).substr(0, 65536);
  const std::string path =
      "/x/sessions/2026/11/22/rollout-2026-11-22T09-34-50-"
      "01a2029b-bd0f-7b52-b27b-ba8d4ea361c8.jsonl.zst";
  BOOST_TEST(codex().adapter().probe(path, head, 12345) == 100);
  BOOST_TEST(legacy().adapter().probe(path, head, 12345) == 0);
}

BOOST_AUTO_TEST_CASE(probe_reads_first_lines_longer_than_the_head_and_empty_files) {
  // A session_meta line can outgrow the 64 KiB probe head (base instructions, dynamic tools):
  // the opening keys decide. An empty file is nobody's yet (the sweep probes it again later).
  const std::string wrapper = helix::test::read_file(helix::test::fixture(kExec169));
  const std::string old = helix::test::read_file(helix::test::fixture(kLegacyL0));
  BOOST_TEST_REQUIRE(wrapper.find('\n') > 300u);
  BOOST_TEST_REQUIRE(old.find('\n') > 300u);
  const std::string path = "/x/sessions/rollout-2026-11-22T09-34-50-x.jsonl";
  BOOST_TEST(codex().adapter().probe(path, wrapper.substr(0, 300), 1 << 20) == 100);
  BOOST_TEST(legacy().adapter().probe(path, wrapper.substr(0, 300), 1 << 20) == 0);
  BOOST_TEST(legacy().adapter().probe(path, old.substr(0, 300), 1 << 20) == 100);
  BOOST_TEST(codex().adapter().probe(path, old.substr(0, 300), 1 << 20) == 0);
  BOOST_TEST(codex().adapter().probe(path, "", 0) == 0);
  BOOST_TEST(legacy().adapter().probe(path, "", 0) == 0);
}

// ---- events of every fixture ----------------------------------------------------------------

// Expected counts were taken from the files (jq/python over the fixture JSON, see the report):
// prompts from event_msg user_message / item_completed UserMessage in the wrapper eras,
// non-injected role:user items in the legacy eras; one event per call / output item.
BOOST_AUTO_TEST_CASE(every_fixture_maps_to_the_expected_kinds) {
  const std::vector<std::pair<std::string, std::string>> expected = {
      {kLegacyL0,
       "assistant_msg=1 edit=1 error=4 lifecycle=1 test_run=1 thinking=27 tool_call=24 "
       "tool_result=22 user_msg=1 "},
      {kTypeScript,
       "assistant_msg=1 edit=1 error=1 lifecycle=1 test_run=1 thinking=1 tool_call=1 "
       "tool_result=2 user_msg=1 "},
      {kExec077, "lifecycle=1 other=3 thinking=3 tool_call=3 tool_result=3 user_msg=1 "},
      {kFork077,
       "assistant_msg=1 lifecycle=2 other=3 thinking=3 tool_call=3 tool_result=3 user_msg=2 "},
      {kDesktop104,
       "assistant_msg=43 completion=5 edit=22 lifecycle=6 other=10 thinking=69 tool_call=83 "
       "tool_result=104 user_msg=5 "},
      {kIncomplete104, "assistant_msg=1 lifecycle=2 other=4 thinking=1 tool_call=1 user_msg=1 "},
      {kSmall104,
       "assistant_msg=6 completion=1 lifecycle=2 other=4 thinking=6 tool_call=5 tool_result=5 "
       "user_msg=1 "},
      {kTui125,
       "assistant_msg=1 completion=1 lifecycle=2 other=2 thinking=1 tool_call=2 tool_result=2 "
       "user_msg=1 "},
      {kComposite,
       "assistant_msg=1 completion=2 error=2 human_intervention=1 lifecycle=26 other=35 "
       "thinking=2 tool_call=8 tool_result=6 user_msg=4 "},  // context_compacted: other
      {kExec169,
       "assistant_msg=2 completion=2 edit=2 error=2 lifecycle=3 other=5 thinking=1 tool_call=2 "
       "tool_result=2 user_msg=2 "},
      {kTui169, "assistant_msg=2 completion=2 lifecycle=3 other=5 user_msg=2 "},
  };
  for (const auto& [fixture, kinds] : expected) {
    BOOST_TEST_CONTEXT(fixture) {
      RecordBatch batch = parse(fixture);
      BOOST_TEST(kind_counts(batch) == kinds);
      for (const auto& e : batch.events) {
        BOOST_TEST(!e.session_id.empty());
        BOOST_TEST(e.payload_index >= 0);  // every event keeps its native record
      }
      BOOST_TEST(warnings(batch, "invalid_json") == 0);
      BOOST_TEST(warnings(batch, "missing_session_id") == 0);
    }
  }
}

BOOST_AUTO_TEST_CASE(real_prompts_are_not_confused_with_injected_context) {
  // 0.169.0 exec: two typed prompts; AGENTS/environment context and developer text are "other".
  RecordBatch batch = parse(kExec169);
  std::vector<std::string> prompts;
  for (const auto& e : batch.events)
    if (e.kind == "user_msg") prompts.push_back(e.text);
  BOOST_TEST((prompts ==
              std::vector<std::string>{"Create hello.txt saying hello, then show me the directory.",
                                       "Thanks, say bye."}));
  // 0.125.0: the AGENTS.md + environment_context item and the developer item are context.
  RecordBatch tui = parse(kTui125);
  int context = 0;
  BOOST_TEST(count_kind(tui, "user_msg") == 1);
  for (const auto& e : tui.events) {
    if (e.kind == "user_msg") BOOST_TEST(e.text == "show tools");
    if (e.kind == "other" && e.summary.starts_with("context: ")) ++context;
  }
  BOOST_TEST(context == 2);
  // Legacy: the single prompt of the 2025-08-06 run.
  RecordBatch old = parse(kLegacyL0);
  BOOST_TEST(count_kind(old, "user_msg") == 1);
  for (const auto& e : old.events)
    if (e.kind == "user_msg")
      BOOST_TEST(e.text.starts_with("Attempt to solve the reported issue."));
}

// ---- tool calls, outputs and failures -------------------------------------------------------

BOOST_AUTO_TEST_CASE(calls_and_outputs_pair_on_call_id) {
  for (const auto& f : {kLegacyL0, kExec077, kDesktop104, kSmall104, kTui125, kExec169}) {
    BOOST_TEST_CONTEXT(f) {
      RecordBatch batch = parse(f);
      std::set<std::string> calls;
      for (const auto& e : batch.events)
        if (e.role == "assistant" && !e.call_id.empty()) calls.insert(e.call_id);
      int results = 0;
      for (const auto& e : batch.events)
        if (e.role == "tool") {
          ++results;
          BOOST_TEST(calls.count(e.call_id) == 1u, "result without its call: " << e.call_id);
          BOOST_TEST(e.tool.empty());  // the host gives results the tool of their call
        }
      BOOST_TEST(results == static_cast<int>(calls.size()));  // every call answered once
    }
  }
  // The incomplete 0.104 session ends with an unanswered call.
  RecordBatch incomplete = parse(kIncomplete104);
  BOOST_TEST(count_kind(incomplete, "tool_call") == 1);
  BOOST_TEST(count_kind(incomplete, "tool_result") == 0);
}

BOOST_AUTO_TEST_CASE(exit_codes_and_errors_are_read_from_every_output_encoding) {
  RecordBatch batch = parse(kExec169);
  // Unified exec text: "Process exited with code 0" / "... code 2".
  auto ok = with_call_id(batch, "call_mock_exec_ok");
  BOOST_TEST_REQUIRE(ok.size() == 2u);
  BOOST_TEST(ok[0]->kind == "tool_call");
  BOOST_TEST(ok[0]->tool == "exec_command");
  BOOST_TEST(ok[0]->text == "echo hello-from-mock && ls -la");
  BOOST_TEST(ok[1]->kind == "tool_result");
  BOOST_TEST(ok[1]->summary == "exit code 0");
  auto failed = with_call_id(batch, "call_mock_exec_fail");
  BOOST_TEST_REQUIRE(failed.size() == 2u);  // item_completed(failed) adds no second error
  BOOST_TEST(failed[1]->kind == "error");
  BOOST_TEST(failed[1]->summary == "failed: exit code 2");
  // Freeform "Exit code: 0" (apply_patch) and the plain "apply_patch verification failed".
  auto patch_ok = with_call_id(batch, "call_mock_patch_ok");
  BOOST_TEST_REQUIRE(patch_ok.size() == 2u);
  BOOST_TEST(patch_ok[0]->kind == "edit");
  BOOST_TEST(patch_ok[0]->tool == "apply_patch");
  BOOST_TEST(patch_ok[0]->summary == "apply_patch A hello.txt");
  BOOST_TEST(patch_ok[1]->kind == "tool_result");
  auto patch_fail = with_call_id(batch, "call_mock_patch_fail");
  BOOST_TEST_REQUIRE(patch_fail.size() == 2u);
  BOOST_TEST(patch_fail[0]->summary == "apply_patch M does-not-exist.txt");
  BOOST_TEST(patch_fail[1]->kind == "error");
  BOOST_TEST(patch_fail[1]->summary.starts_with("failed: apply_patch verification failed"));

  // Structured JSON {"output","metadata":{"exit_code"}} and "failed in sandbox ... error".
  RecordBatch old = parse(kLegacyL0);
  std::map<std::string, std::string> result_summary;
  for (const auto& e : old.events)
    if (e.role == "tool") result_summary[e.call_id] = e.kind + ": " + e.summary;
  BOOST_TEST(result_summary.size() == 26u);
  int exit_127 = 0, sandbox = 0;
  for (const auto& [id, summary] : result_summary) {
    exit_127 += summary == "error: failed: exit code 127";
    sandbox += summary.starts_with("error: failed: failed in sandbox");
  }
  BOOST_TEST(exit_127 == 1);  // update_plan run as a shell command
  BOOST_TEST(sandbox == 3);   // cargo test (sandbox denied), two cargo check timeouts

  // Unified exec still running: the exit code arrives with exec_command_end (0 here: no error).
  RecordBatch tui = parse(kTui125);
  auto running = with_call_id(tui, "call_Y2p6KmqwoTtpi6atpDPuxC5M");
  BOOST_TEST_REQUIRE(running.size() == 2u);
  BOOST_TEST(running[1]->kind == "tool_result");
  BOOST_TEST(running[1]->summary == "Process running with session ID 48230");
  auto poll = with_call_id(tui, "call_QazIeAavKevvIILVQkrDdKKT");
  BOOST_TEST_REQUIRE(poll.size() == 2u);
  BOOST_TEST(poll[0]->tool == "write_stdin");
  BOOST_TEST(poll[1]->summary == "exit code 0");
}

BOOST_AUTO_TEST_CASE(a_running_command_that_fails_later_becomes_an_error) {
  // The 0.125.0 fixture's first command, with exec_command_end rewritten to exit code 1: the
  // output said "still running", so only the status record can tell the failure.
  std::string data = helix::test::read_file(helix::test::fixture(kTui125));
  const std::string ok = "\"exit_code\":0,";
  const std::size_t at = data.find(ok);
  BOOST_TEST_REQUIRE(at != std::string::npos);
  data.replace(at, ok.size(), "\"exit_code\":1,");
  RecordBatch batch;
  codex().adapter().parse("/x/sessions/" + std::string(kTui125).substr(6), HELIX_LAYOUT_LINES, 0,
                          data, "", batch);
  auto events = with_call_id(batch, "call_Y2p6KmqwoTtpi6atpDPuxC5M");
  BOOST_TEST_REQUIRE(events.size() == 3u);
  BOOST_TEST(events[2]->kind == "error");
  BOOST_TEST(events[2]->summary == "failed: exit code 1");
}

BOOST_AUTO_TEST_CASE(apply_patch_in_all_three_forms_is_an_edit) {
  // Freeform custom tool (0.104 Desktop: 22 calls), shell-wrapped heredoc (2025-08-06 L0),
  // shell argv ["apply_patch", ...] (TypeScript fixture).
  RecordBatch desktop = parse(kDesktop104);
  int custom = 0;
  for (const auto& e : desktop.events) custom += e.kind == "edit" && e.tool == "apply_patch";
  BOOST_TEST(custom == 22);
  RecordBatch old = parse(kLegacyL0);
  int wrapped = 0;
  for (const auto& e : old.events)
    wrapped += e.kind == "edit" && e.tool == "shell" &&
               e.summary == "apply_patch M codex-rs/core/src/model_provider_info.rs";
  BOOST_TEST(wrapped == count_kind(old, "edit"));
  BOOST_TEST(wrapped >= 1);  // the shell-wrapped heredoc is recognised at all
  RecordBatch ts = parse(kTypeScript);
  int argv = 0;
  for (const auto& e : ts.events)
    argv += e.kind == "edit" && e.summary == "apply_patch M src/main.py";
  BOOST_TEST(argv == count_kind(ts, "edit"));
  BOOST_TEST(argv >= 1);  // the argv form is recognised at all
}

BOOST_AUTO_TEST_CASE(test_commands_are_test_runs) {
  RecordBatch old = parse(kLegacyL0);
  for (const auto& e : old.events)
    if (e.kind == "test_run")
      BOOST_TEST(e.text == "cd codex-rs && cargo test --workspace --all-features --quiet");
  RecordBatch ts = parse(kTypeScript);
  auto run = with_call_id(ts, "call_0003");
  BOOST_TEST_REQUIRE(run.size() == 2u);
  BOOST_TEST(run[0]->kind == "test_run");
  BOOST_TEST(run[1]->kind == "error");
  BOOST_TEST(run[1]->summary == "failed: exit code 1");
}

BOOST_AUTO_TEST_CASE(turn_events_errors_and_interrupts) {
  RecordBatch batch = parse(kComposite);
  int aborted = 0, event_errors = 0, mcp_errors = 0;
  for (const auto& e : batch.events) {
    if (e.kind == "human_intervention") aborted += e.summary == "turn aborted: interrupted";
    if (e.kind == "error" && e.role == "system") ++event_errors;  // event_msg error
    if (e.kind == "error" && e.role == "tool")
      mcp_errors += e.summary.starts_with("failed: error:");
  }
  BOOST_TEST(aborted == 1);
  BOOST_TEST(event_errors == 1);
  BOOST_TEST(mcp_errors == 1);  // mcp_tool_call_end result {"Err": ...}
  // A task_complete carrying an error says so.
  int failed_turns = 0;
  for (const auto& e : batch.events)
    failed_turns += e.kind == "completion" && e.summary.starts_with("turn failed");
  BOOST_TEST(failed_turns == 1);
}

BOOST_AUTO_TEST_CASE(unknown_types_are_kept_as_other_and_reported) {
  const std::string data =
      "{\"timestamp\":\"2027-01-01T00:00:00.000Z\",\"type\":\"brand_new_line\",\"payload\":{}}\n"
      "{\"timestamp\":\"2027-01-01T00:00:00.001Z\",\"type\":\"event_msg\",\"payload\":{\"type\":"
      "\"brand_new_event\"}}\n"
      "{\"timestamp\":\"2027-01-01T00:00:00.002Z\",\"type\":\"response_item\",\"payload\":{"
      "\"type\":\"brand_new_item\"}}\n"
      "{\"timestamp\":\"2027-01-01T00:00:00.003Z\",\"type\":\"event_msg\",\"payload\":{\"type\":"
      "\"item_completed\",\"item\":{\"type\":\"BrandNewItem\"}}}\n"
      "{not json\n";
  RecordBatch batch;
  codex().adapter().parse(
      "/x/sessions/rollout-2027-01-01T00-00-00-01a30000-0000-7000-8000-000000000001.jsonl",
      HELIX_LAYOUT_LINES, 0, data, "", batch);
  BOOST_TEST(batch.events.size() == 4u);
  for (const auto& e : batch.events) {
    BOOST_TEST(e.kind == "other");
    BOOST_TEST(e.session_id == "01a30000-0000-7000-8000-000000000001");  // from the file name
    BOOST_TEST(e.payload_index >= 0);
  }
  BOOST_TEST(warnings(batch, "unknown_type") == 4);
  BOOST_TEST(warnings(batch, "invalid_json") == 1);
}

// Shapes quoted in codex.md §4 that no real fixture here contains, one line each.
BOOST_AUTO_TEST_CASE(reference_shapes_of_calls_outputs_and_interrupts) {
  const std::string w = R"({"timestamp":"2026-11-22T10:00:00.000Z","type":)";
  const std::string data =
      w +
      R"("response_item","payload":{"type":"function_call","name":"apply_patch",)"
      R"("arguments":"{\"input\":\"*** Begin Patch\\n*** Add File: a.txt\\n+x\\n)"
      R"(*** End Patch\"}","call_id":"c1"}})"
      "\n" +
      w +
      R"("response_item","payload":{"type":"function_call_output","call_id":"c1",)"
      R"("output":"exec command rejected by user"}})"
      "\n" +
      w +
      R"("response_item","payload":{"type":"local_shell_call","call_id":"c2",)"
      R"("status":"completed","action":{"type":"exec","command":["bash","-lc","pytest -q"]}}})"
      "\n" +
      w +
      R"("response_item","payload":{"type":"function_call_output","call_id":"c2",)"
      R"("output":"Wall time: 4.7 seconds\naborted by user"}})"
      "\n" +
      w +
      R"("response_item","payload":{"type":"function_call","name":"shell_command",)"
      R"("arguments":"{\"command\":\"ls\"}","call_id":"c3"}})"
      "\n" +
      w +
      R"("response_item","payload":{"type":"function_call_output","call_id":"c3",)"
      R"("output":[{"type":"input_text","text":"Exit code: 1\nWall time: 0 seconds\nOutput:\n"}]}})"
      "\n" +
      w +
      R"("response_item","payload":{"type":"message","role":"user","content":[{"type":)"
      R"("input_text","text":"<turn_aborted>\nThe user interrupted the previous turn on )"
      R"(purpose.\n</turn_aborted>"}]}})"
      "\n" +
      w +
      R"("event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}})"
      "\n";
  RecordBatch batch;
  codex().adapter().parse(
      "/x/sessions/rollout-2026-11-22T10-00-00-01a30000-0000-7000-8000-000000000002.jsonl",
      HELIX_LAYOUT_LINES, 0, data, "", batch);
  std::vector<std::string> got;
  for (const auto& e : batch.events) got.push_back(e.kind + " " + e.call_id + " " + e.summary);
  const std::vector<std::string> expected = {
      "edit c1 apply_patch A a.txt",  // the JSON apply_patch tool (gpt-oss)
      "error c1 failed: exec command rejected by user",
      "test_run c2 $ pytest -q",
      "error c2 failed: aborted by user",
      "tool_call c3 $ ls",
      "error c3 failed: exit code 1",  // freeform text inside a content-item array
      "other  context: turn_aborted",  // the synthetic role:user marker is not a prompt
      "human_intervention  turn aborted: interrupted"};
  BOOST_TEST(got == expected, boost::test_tools::per_element());
  BOOST_TEST(batch.warnings.empty());
}

// ---- sessions -------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(session_fields_come_from_session_meta_and_turn_context) {
  struct Expected {
    std::string fixture, id, cwd, branch, version, model;
    int64_t started_at_ms;
  };
  const std::vector<Expected> expected = {
      {kLegacyL0, "05997ac9-0e06-4251-8576-cc16266d3022", "", "main", "", "", 1754503331653},
      {kTypeScript, "3f8a1c2e-7b4d-4e9a-9c1f-2a6b8d0e4f51", "", "", "", "", 1745157791482},
      {kExec077, "019b7f94-51b4-7593-922e-ba12b5b73b52",
       "/Users/Nikita_Levyankov/repos/EPMCDME/codemie-ai/codemie-code", "codex", "0.77.0",
       "gpt-5-1-codex-2025-11-13", 1767371985332},
      {kTui125, "019e1625-789d-76c0-80ab-3724b5ddb799",
       "/Users/Sample_User/repos/codemie-ai/codemie-code", "feat/codex-agent-plugin", "0.125.0",
       "gpt-5.5", 1778488015042},
      {kExec169, "01a2029b-bd0f-7b52-b27b-ba8d4ea361c8", "/tmp/mockworkA", "", "0.169.0", "gpt-5.5",
       1795340090644},
      {kTui169, "01a2029e-059d-7da1-9afe-8f127feb8172", "/tmp/mockworkD", "master", "0.169.0",
       "gpt-5.5", 1795340240301},
      // Later session_meta lines (other threads in this composite) change nothing.
      {kComposite, "019fc8be-3658-7ca3-9e29-000000000000", "/tmp/repo", "main", "0.146.0",
       "gpt-5.6-sol", 1785754136000},
  };
  for (const auto& x : expected) {
    BOOST_TEST_CONTEXT(x.fixture) {
      helix::SessionRecord s = merged_session(parse(x.fixture));
      BOOST_TEST(s.native_id == x.id);
      BOOST_TEST(s.cwd == x.cwd);
      BOOST_TEST(s.git_branch == x.branch);
      BOOST_TEST(s.agent_version == x.version);
      BOOST_TEST(s.model == x.model);
      BOOST_TEST(s.started_at_ms == x.started_at_ms);
    }
  }
}

// A fork is not a child: it names its origin (forked_from), never a parent.
BOOST_AUTO_TEST_CASE(a_fork_keeps_its_own_session_meta_and_names_its_origin) {
  RecordBatch batch = parse(kFork077);
  helix::SessionRecord s = merged_session(batch);
  BOOST_TEST(s.native_id == "019b7fa0-0000-7000-8000-00000000f0c1");
  BOOST_TEST(s.forked_from_native_id == "019b7f94-51b4-7593-922e-ba12b5b73b52");
  BOOST_TEST(s.parent_native_id.empty());
  BOOST_TEST(s.started_at_ms == 1767373200095);  // the fork's own start, not the parent's
  BOOST_TEST(s.git_branch == "");  // the replayed parent session_meta (branch "codex") is ignored
  for (const auto& e : batch.events) BOOST_TEST(e.session_id == s.native_id);
}

// ---- the canary's runs of Codex CLI 0.169.0 (code mode) ---------------------------------------

std::string canary_file(const std::string& scenario, const std::string& name) {
  return "codex/canary-0.169.0/" + scenario + "/.codex/sessions/2026/11/25/" + name;
}

// One auto-compaction mid-turn: one compaction event, carrying the summary and the context's
// size before it (the summarization call's own usage is not that size).
BOOST_AUTO_TEST_CASE(a_compaction_is_one_event_with_its_summary) {
  RecordBatch batch = parse(canary_file(
      "compaction", "rollout-2026-11-25T09-03-44-01a211f2-57d5-73a1-a5c9-93516eafd6db.jsonl"));
  std::vector<const EventRecord*> compactions;
  for (const auto& e : batch.events)
    if (e.kind == "lifecycle" && e.summary.find("compact") != std::string::npos)
      compactions.push_back(&e);
  BOOST_TEST_REQUIRE(compactions.size() == 1u);
  BOOST_TEST(compactions[0]->summary.starts_with("context compacted ("));
  BOOST_TEST(compactions[0]->summary.find("900 tokens") == std::string::npos);
  BOOST_TEST(compactions[0]->text.find("Checkpoint summary") != std::string::npos);
}

// A cell whose script threw is an error; a command the cell ran that exited 1 is an error of
// that cell (its own id is not a call's).
BOOST_AUTO_TEST_CASE(code_mode_failures_are_errors_of_their_cell) {
  RecordBatch batch = parse(canary_file(
      "errors", "rollout-2026-11-25T09-03-47-01a211f2-639c-7550-99cc-f29201a566eb.jsonl"));
  auto errors_of = [&](const std::string& call) {
    std::vector<std::string> texts;
    for (const auto* e : with_call_id(batch, call))
      if (e->kind == "error") texts.push_back(e->text);
    return texts;
  };
  const auto missing = errors_of("call_mkDPWJdVaZLaX85TwB2mszG5");  // cat missing.txt
  BOOST_TEST_REQUIRE(missing.size() == 1u);
  BOOST_TEST(missing[0].find("No such file or directory") != std::string::npos);
  const auto thrown = errors_of("call_SOA9zpDddG5dIJ2Yv7tgp2jF");  // throw new Error(...)
  BOOST_TEST_REQUIRE(thrown.size() == 1u);
  BOOST_TEST(thrown[0].find("deliberate script failure") != std::string::npos);
  BOOST_TEST(errors_of("call_mm6vX33acG45dJnTv1BJ4KJU").size() == 1u);  // the bad patch
}

// A keyed usage record sits at the last item the model wrote: that event shows its tokens.
BOOST_AUTO_TEST_CASE(usage_sits_at_the_response_it_counts) {
  RecordBatch batch = parse(canary_file(
      "tools", "rollout-2026-11-25T09-04-00-01a211f2-97a4-7643-9a31-2c216d702dde.jsonl"));
  BOOST_TEST_REQUIRE(!batch.usage.empty());
  for (const auto& u : batch.usage) {
    BOOST_TEST_CONTEXT("usage at " << u.source_offset) {
      const auto at = std::find_if(batch.events.begin(), batch.events.end(), [&](const auto& e) {
        return e.source_offset == u.source_offset && e.ordinal == 0;
      });
      BOOST_TEST_REQUIRE((at != batch.events.end()));
      BOOST_TEST((at->kind == "assistant_msg" || at->kind == "tool_call" || at->kind == "edit" ||
                  at->kind == "thinking"));
    }
  }
}

BOOST_AUTO_TEST_CASE(a_canary_fork_names_its_origin_and_sub_agent_activity_is_known) {
  RecordBatch fork = parse(canary_file(
      "fork", "rollout-2026-11-25T09-03-49-01a211f2-6ce2-74f0-9ebf-7870d2d73c34.jsonl"));
  const helix::SessionRecord s = merged_session(fork);
  BOOST_TEST(s.forked_from_native_id == "01a211f2-6ab1-7931-adfd-462b07fd4a54");
  BOOST_TEST(s.parent_native_id.empty());
  for (const char* name :
       {"rollout-2026-11-25T09-03-59-01a211f2-9059-7a11-8c9b-e67c5ebe6ee7.jsonl",
        "rollout-2026-11-25T09-03-59-01a211f2-9129-7660-98cd-1275269f67a6.jsonl"})
    BOOST_TEST(parse(canary_file("subagents", name)).warnings.empty(), name);
}

// ---- tokens ---------------------------------------------------------------------------------

// Totals by codex.md §3.3, computed independently (python over the fixture, see the report) and
// equal to the last total_token_usage / thread_token_usage each file contains, normalized:
// input = input - cached, cache_read = cached, output (includes reasoning), reasoning.
BOOST_AUTO_TEST_CASE(token_totals_match_the_totals_in_each_file) {
  const std::vector<std::pair<std::string, std::vector<int64_t>>> expected = {
      // final total_token_usage {22474 in, 14848 cached, 300 out, 128 reasoning}; 2 of 5
      // non-null token_counts repeat the previous total.
      {kExec077, {7626, 14848, 300, 128, 0}},
      // final {7204025, 6836352, 36075, 17896} = 7,240,100 tokens; 80 of 162 lines repeat.
      {kDesktop104, {367673, 6836352, 36075, 17896, 0}},
      {kIncomplete104, {31013, 3456, 431, 264, 0}},  // final {34469, 3456, 431, 264}
      {kSmall104, {59525, 238848, 1123, 483, 0}},    // final {298373, 238848, 1123, 483}
      {kTui125, {20786, 37120, 374, 62, 0}},         // final {57906, 37120, 374, 62}
      // token_usage_record per response_id: thread_token_usage {58990, 47872, 625, 220}.
      {kExec169, {11118, 47872, 625, 220, 0}},
      {kTui169, {7100, 0, 45, 0, 0}},  // thread {7100, 0, 45, 0}
      // The parent's replayed totals are a baseline only: the fork's own delta is
      // {30474 - 22474 in, 21848 - 14848 cached, 350 - 300 out, 138 - 128 reasoning}.
      {kFork077, {1000, 7000, 50, 10, 0}},
      // Composite (not one session): only its first token_count counts; the later ones follow
      // replayed session_meta lines of other threads.
      {kComposite, {12757, 3584, 81, 63, 0}},
      {kLegacyL0, {0, 0, 0, 0, 0}},
  };
  for (const auto& [fixture, totals] : expected) {
    BOOST_TEST_CONTEXT(fixture) {
      BOOST_TEST(usage_totals(parse(fixture)) == totals, boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_CASE(usage_records_dedupe_on_response_id_and_carry_the_model) {
  RecordBatch batch = parse(kExec169);
  BOOST_TEST_REQUIRE(batch.usage.size() == 6u);  // resp_0..resp_5, token_count lines ignored
  std::set<std::string> keys;
  for (const auto& u : batch.usage) {
    keys.insert(u.key);
    BOOST_TEST(u.model == "gpt-5.5");
  }
  BOOST_TEST(keys.size() == 6u);
  BOOST_TEST(keys.count("01a2029b-bd0f-7b52-b27b-ba8d4ea361c8/resp_0") == 1u);
  // Token-count deltas are named by the cumulative total they end at, with the turn's model.
  RecordBatch desktop = parse(kDesktop104);
  BOOST_TEST(desktop.usage.size() == 81u);  // 162 lines, 1 null info, 80 repeats
  keys.clear();
  for (const auto& u : desktop.usage) {
    keys.insert(u.key);
    BOOST_TEST(u.key.starts_with("019c8a4c-ed82-79a1-aa28-7738fc5ab61a/total/"));
    BOOST_TEST(!u.model.empty());
  }
  BOOST_TEST(keys.size() == 81u);
  // The last delta ends at the file's final total_token_usage.
  BOOST_TEST(desktop.usage.back().key ==
             "019c8a4c-ed82-79a1-aa28-7738fc5ab61a/total/7204025/6836352/36075/17896/7240100");
}

// Per-event tokens (issue 16): the deltas of token_count lines (0.32 to 0.14x, no
// token_usage_record) sit at the last item the model wrote before them, so that event shows
// the call's tokens instead of every event showing 0.
BOOST_AUTO_TEST_CASE(token_count_deltas_sit_at_the_response_they_count) {
  for (const auto& fixture : {kExec077, kDesktop104, kSmall104, kTui125}) {
    BOOST_TEST_CONTEXT(fixture) {
      RecordBatch batch = parse(fixture);
      BOOST_TEST_REQUIRE(!batch.usage.empty());
      for (const auto& u : batch.usage) {
        const auto at = std::find_if(batch.events.begin(), batch.events.end(), [&](const auto& e) {
          return e.source_offset == u.source_offset && e.ordinal == 0;
        });
        BOOST_TEST_REQUIRE((at != batch.events.end()), "usage at " << u.source_offset);
        BOOST_TEST((at->kind == "assistant_msg" || at->kind == "tool_call" || at->kind == "edit" ||
                    at->kind == "thinking" || at->kind == "test_run"),
                   at->kind);
      }
    }
  }
}

// ---- rate limits ----------------------------------------------------------------------------

// token_count.rate_limits as Codex wrote them from 0.48 on (codex.md §3.1), from the fixtures'
// real lines: 0.104 {limit_id, primary/secondary {used_percent, window_minutes, resets_at}},
// and the composite's 0.146 line with a null secondary (its later token_count lines follow a
// replayed session_meta and count as the replay, like their usage).
BOOST_AUTO_TEST_CASE(rate_limits_are_reported_per_window) {
  RecordBatch desktop = parse(kDesktop104);
  BOOST_TEST_REQUIRE(desktop.rate_limits.size() == 324u);  // 162 token_count lines, 2 windows
  const auto& primary = desktop.rate_limits[322];
  const auto& secondary = desktop.rate_limits[323];
  BOOST_TEST(primary.session_id == "019c8a4c-ed82-79a1-aa28-7738fc5ab61a");
  BOOST_TEST(primary.source_offset == 277424u);
  BOOST_TEST(primary.ts_ms == 1771850733360);  // 2026-02-23T12:45:33.360Z
  BOOST_TEST(primary.limit_id == "codex");
  BOOST_TEST(primary.window == "primary");
  BOOST_TEST(primary.used_percent == 25.0);
  BOOST_TEST(primary.window_minutes == 300);
  BOOST_TEST(primary.resets_at_ms == 1771864834000);
  BOOST_TEST(secondary.window == "secondary");
  BOOST_TEST(secondary.used_percent == 8.0);
  BOOST_TEST(secondary.window_minutes == 10080);
  BOOST_TEST(secondary.resets_at_ms == 1772355702000);

  RecordBatch composite = parse(kComposite);
  BOOST_TEST_REQUIRE(composite.rate_limits.size() == 1u);  // secondary null: not reported
  BOOST_TEST(composite.rate_limits[0].window == "primary");
  BOOST_TEST(composite.rate_limits[0].used_percent == 1.0);
  BOOST_TEST(composite.rate_limits[0].window_minutes == 10080);
  BOOST_TEST(composite.rate_limits[0].resets_at_ms == 1785958530000);

  // 0.169 (W3) writes rate_limits with null windows when the provider sent none.
  BOOST_TEST(parse(kExec169).rate_limits.empty());
}

// The older shapes: 0.40's flat primary_*/secondary_* fields (no reset time) and 0.41-0.47's
// resets_in_seconds, counted from the line's own time. The first two lines are the composite's
// lines 87 and 86 as they are, but for a time in their trimmed timestamp; the third has 86's
// shape with figures of our own (no fixture has such a line with a time and non-zero figures).
BOOST_AUTO_TEST_CASE(older_rate_limit_shapes_are_read) {
  helix::test::TempDir dir;
  const std::string lines =
      R"({"timestamp":"2025-09-20T10:00:00.000Z","type":"event_msg","payload":{"type":)"
      R"("token_count","info":{"total_token_usage":{"input_tokens":0,"cached_input_tokens":0,)"
      R"("output_tokens":0,"reasoning_output_tokens":0,"total_tokens":0},"last_token_usage":)"
      R"({"input_tokens":0,"cached_input_tokens":0,"output_tokens":0,"reasoning_output_tokens":0,)"
      R"("total_tokens":0},"model_context_window":0},"rate_limits":{"primary_used_percent":0,)"
      R"("secondary_used_percent":0,"primary_to_secondary_ratio_percent":0,)"
      R"("primary_window_minutes":0,"secondary_window_minutes":0}}})"
      "\n"
      R"({"timestamp":"2025-09-20T10:00:00.000Z","type":"event_msg","payload":{"type":)"
      R"("token_count","info":null,"rate_limits":{"primary":{"used_percent":0,)"
      R"("window_minutes":0,"resets_in_seconds":0},"secondary":{"used_percent":0,)"
      R"("window_minutes":0,"resets_in_seconds":0}}}})"
      "\n"
      R"({"timestamp":"2025-09-20T10:00:00.000Z","type":"event_msg","payload":{"type":)"
      R"("token_count","info":null,"rate_limits":{"primary":{"used_percent":12.5,)"
      R"("window_minutes":300,"resets_in_seconds":1800},"secondary":{"used_percent":3.0,)"
      R"("window_minutes":10080,"resets_in_seconds":86400}}}})"
      "\n";
  const auto path = dir / "rollout-2025-09-20T10-00-00-0199a000-0000-7000-8000-000000000041.jsonl";
  helix::test::write_file(path, lines);
  RecordBatch batch = codex().parse_file(path);
  BOOST_TEST_REQUIRE(batch.rate_limits.size() == 6u);
  const int64_t at = 1758362400000;  // 2025-09-20T10:00:00Z
  std::vector<std::tuple<std::string, double, int64_t, int64_t>> got;
  for (const auto& r : batch.rate_limits) {
    got.emplace_back(r.window, r.used_percent, r.window_minutes, r.resets_at_ms);
    BOOST_TEST(r.limit_id.empty());
    BOOST_TEST(r.ts_ms == at);
  }
  const std::vector<std::tuple<std::string, double, int64_t, int64_t>> expected = {
      {"primary", 0.0, 0, 0},  // 0.40: no reset time
      {"secondary", 0.0, 0, 0},
      {"primary", 0.0, 0, at},  // 0.41: resets in 0 s
      {"secondary", 0.0, 0, at},
      {"primary", 12.5, 300, at + 1800 * 1000},
      {"secondary", 3.0, 10080, at + 86400 * 1000}};
  BOOST_TEST((got == expected));
}

// ---- chunked parsing ------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(chunked_parsing_gives_the_same_events_and_usage) {
  using EventKey = std::tuple<std::string, uint64_t, uint32_t, std::string, std::string,
                              std::string, std::string, std::string, std::string>;
  auto events = [](const RecordBatch& b) {
    std::vector<EventKey> out;
    for (const auto& e : b.events)
      out.emplace_back(e.session_id, e.source_offset, e.ordinal, e.kind, e.call_id, e.uid,
                       e.summary, e.text, e.model);
    return out;
  };
  auto usage = [](const RecordBatch& b) {
    std::vector<std::tuple<std::string, std::string, int64_t, int64_t, int64_t, int64_t>> out;
    for (const auto& u : b.usage)
      out.emplace_back(u.key, u.model, u.input_tokens, u.cache_read_tokens, u.output_tokens,
                       u.reasoning_tokens);
    return out;
  };
  std::vector<std::string> fixtures = kWrapperFixtures;
  fixtures.push_back(kLegacyL0);
  for (const auto& f : fixtures) {
    const auto& adapter = f == kLegacyL0 ? legacy() : codex();
    RecordBatch whole = parse(f);
    for (std::size_t chunk : {1u, 3000u}) {  // 1 byte: one line per call
      BOOST_TEST_CONTEXT(f << " in chunks of " << chunk) {
        RecordBatch pieces = adapter.parse_file_in_chunks(helix::test::fixture(f), chunk);
        BOOST_TEST((events(pieces) == events(whole)));
        BOOST_TEST((usage(pieces) == usage(whole)));
        BOOST_TEST(pieces.rate_limits.size() == whole.rate_limits.size());
        BOOST_TEST(merged_session(pieces).native_id == merged_session(whole).native_id);
        BOOST_TEST(merged_session(pieces).model == merged_session(whole).model);
      }
    }
  }
}

// ---- the sweep: claims by probe score -------------------------------------------------------

// Without codex-legacy the old files are left unclaimed with a message naming them (nothing is
// misread by the wrapper plugin); once it is installed, the next sweep claims them.
BOOST_AUTO_TEST_CASE(without_the_legacy_plugin_old_files_stay_unclaimed_until_it_is_back) {
  namespace fs = std::filesystem;
  helix::test::TempDir dir;
  const fs::path home = dir / "codex";
  auto place = [&](const std::string& fixture, const std::string& relative) {
    helix::test::write_file(home / relative, helix::test::read_file(helix::test::fixture(fixture)));
    return fs::weakly_canonical(home / relative).string();
  };
  const std::string wrapper = place(kExec169, "sessions/2026/11/22/" + kExec169.substr(6));
  const std::string lines = place(kLegacyL0, "sessions/2025/08/06/" + kLegacyL0.substr(6));
  const std::string document = place(kTypeScript, "sessions/" + kTypeScript.substr(6));
  ::setenv("CODEX_HOME", home.c_str(), 1);
  ::setenv("CLAUDE_CONFIG_DIR", (dir / "no-claude").c_str(), 1);
  ::setenv("GROK_HOME", (dir / "no-grok").c_str(), 1);
  ::setenv("GEMINI_CLI_HOME", (dir / "no-gemini").c_str(), 1);

  fs::create_directories(dir / "codex-only");
  fs::copy_file(fs::path(HELIX_TEST_PLUGIN_DIR) / "libhelix_codex.so",
                dir / "codex-only" / "libhelix_codex.so");
  helix::PluginRegistry codex_only;
  codex_only.load_directory(dir / "codex-only");
  BOOST_TEST_REQUIRE(codex_only.find("codex") != nullptr);
  helix::Config config;
  helix::Store store(dir / "store" / "helix.db");

  helix::SweepReport first = helix::Sweep(store, codex_only, config).run();
  BOOST_TEST(first.sources_unclaimed == 2);
  for (const auto& path : {lines, document}) {
    BOOST_TEST(store.find_source(path)->state == helix::SourceState::unclaimed);
    BOOST_TEST(std::count_if(first.problems.begin(), first.problems.end(), [&](const auto& p) {
                 return p.starts_with(path + ": no loaded plugin recognises this file");
               }) == 1);
  }
  BOOST_TEST(store.find_source(wrapper)->adapter == "codex");

  helix::PluginRegistry all;
  all.load_directory(HELIX_TEST_PLUGIN_DIR);
  helix::SweepReport second = helix::Sweep(store, all, config).run();
  BOOST_TEST(second.sources_unclaimed == 0);
  BOOST_TEST(second.problems.empty());
  BOOST_TEST(store.find_source(lines)->adapter == "codex-legacy");
  BOOST_TEST(store.find_source(document)->adapter == "codex-legacy");
  BOOST_TEST(store.find_source(document)->layout == uint32_t{HELIX_LAYOUT_DOCUMENT});
  BOOST_TEST(store.find_source(wrapper)->adapter == "codex");
  BOOST_TEST(store.session("codex:05997ac9-0e06-4251-8576-cc16266d3022").has_value());
  BOOST_TEST(store.session("codex:3f8a1c2e-7b4d-4e9a-9c1f-2a6b8d0e4f51").has_value());
}

// The TypeScript CLI rewrote its document in place: one read half written fails the call (so
// the host keeps what it stored from the last whole document) instead of parsing as empty.
BOOST_AUTO_TEST_CASE(a_torn_typescript_document_fails_the_call) {
  const std::string whole = helix::test::read_file(helix::test::fixture(kTypeScript));
  RecordBatch batch;
  BOOST_CHECK_EXCEPTION(
      legacy().adapter().parse(
          "/x/sessions/rollout-2025-04-20-3f8a1c2e-7b4d-4e9a-9c1f-2a6b8d0e4f51.json",
          HELIX_LAYOUT_DOCUMENT, 0, whole.substr(0, whole.size() / 2), "", batch),
      std::runtime_error, [](const std::runtime_error& e) {
        return std::string(e.what()).find("not one complete JSON object") != std::string::npos;
      });
  BOOST_TEST(batch.events.empty());
}

// ABI regression: the golden layout of every struct of helix_plugin.h (ABI 1.0 and what each
// minor up to 1.4 appended or added, x86_64), so any change other than appending a member fails;
// the named first-version sizes the host checks against; and a real adapter.hpp plugin run through
// AdapterInstance, so every record member and the exception paths cross the ABI.
#define BOOST_TEST_MODULE abi_layout
#include <boost/test/unit_test.hpp>

#include "plugins/adapter_instance.hpp"
#include "plugins/plugin_registry.hpp"

#include <helix/adapter.hpp>
#include <helix/document.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

const std::filesystem::path kRoot = HELIX_TEST_PLUGINS_ROOT;

// Checks offsetof(type, member) against the golden value and names the member when it differs.
#define HELIX_GOLDEN_OFFSET(type, member, expected) \
  BOOST_TEST(offsetof(type, member) == std::size_t{expected}, #type "::" #member " moved")

}  // namespace

BOOST_AUTO_TEST_SUITE(layout)

// Version and constants of the contract (1.0, plus what 1.1 appended).
BOOST_AUTO_TEST_CASE(abi_version_and_constants) {
  BOOST_TEST(HELIX_ABI_MAJOR == 1);
  // 1.3 froze the structs: new capabilities are extensions (helix.<name>/<rev>), not members.
  // 1.4 added the first host extension, helix.rate_limits/1.
  BOOST_TEST(HELIX_ABI_MINOR == 4);
  BOOST_TEST(HELIX_OK == 0);
  BOOST_TEST(HELIX_ERROR == 1);
  BOOST_TEST(HELIX_KIND_ADAPTER == 1);
  BOOST_TEST(HELIX_KIND_DIGESTER == 2);
  BOOST_TEST(HELIX_LAYOUT_LINES == 1);
  BOOST_TEST(HELIX_LAYOUT_DOCUMENT == 2);
  BOOST_TEST(HELIX_EVENT_SIDECHAIN == 1u);
  BOOST_TEST(HELIX_USAGE_AGENT_TOTAL == 2u);  // 1.3
  BOOST_TEST(std::string(HELIX_ENTRY_SYMBOL) == "helix_plugin_query");
  BOOST_TEST(sizeof(helix_status) == 4u);
}

#if defined(__x86_64__) && defined(__LP64__)

// The sizes of ABI 1.0, which the host names (HELIX_*_SIZE_1_0) and refuses anything below.
BOOST_AUTO_TEST_CASE(struct_sizes_abi_1_0) {
  BOOST_TEST(sizeof(helix_str) == 16u);
  BOOST_TEST(HELIX_HOST_API_SIZE_1_0 == 24u);
  BOOST_TEST(HELIX_SESSION_SIZE_1_0 == 136u);
  BOOST_TEST(HELIX_EVENT_SIZE_1_0 == 208u);
  BOOST_TEST(HELIX_USAGE_SIZE_1_0 == 128u);
  BOOST_TEST(HELIX_EMIT_API_SIZE_1_0 == 48u);
  BOOST_TEST(sizeof(helix_source_pattern) == 16u);
  BOOST_TEST(HELIX_PROBE_INPUT_SIZE_1_0 == 48u);
  BOOST_TEST(HELIX_PARSE_INPUT_SIZE_1_0 == 72u);
  BOOST_TEST(HELIX_ADAPTER_VTABLE_SIZE_1_0 == 72u);
  BOOST_TEST(HELIX_DESCRIPTOR_SIZE_1_0 == 48u);
  // Records and inputs did not grow after 1.0, but for the usage and session records in 1.3.
  BOOST_TEST(sizeof(helix_session) == HELIX_SESSION_SIZE_1_0 + sizeof(helix_str));  // 1.3: forks
  BOOST_TEST(sizeof(helix_event) == HELIX_EVENT_SIZE_1_0);
  BOOST_TEST(sizeof(helix_usage) == HELIX_USAGE_SIZE_1_0 + sizeof(int64_t));  // 1.3: 1-hour writes
  BOOST_TEST(sizeof(helix_emit_api) == HELIX_EMIT_API_SIZE_1_0);
  BOOST_TEST(sizeof(helix_probe_input) == HELIX_PROBE_INPUT_SIZE_1_0);
  BOOST_TEST(sizeof(helix_parse_input) == HELIX_PARSE_INPUT_SIZE_1_0);
  BOOST_TEST(sizeof(helix_plugin_descriptor) == HELIX_DESCRIPTOR_SIZE_1_0);
}

BOOST_AUTO_TEST_CASE(member_offsets_abi_1_0) {
  HELIX_GOLDEN_OFFSET(helix_str, ptr, 0);
  HELIX_GOLDEN_OFFSET(helix_str, len, 8);

  HELIX_GOLDEN_OFFSET(helix_host_api, struct_size, 0);
  HELIX_GOLDEN_OFFSET(helix_host_api, abi_major, 4);
  HELIX_GOLDEN_OFFSET(helix_host_api, abi_minor, 8);
  HELIX_GOLDEN_OFFSET(helix_host_api, set_error, 16);

  HELIX_GOLDEN_OFFSET(helix_session, struct_size, 0);
  HELIX_GOLDEN_OFFSET(helix_session, native_id, 8);
  HELIX_GOLDEN_OFFSET(helix_session, parent_native_id, 24);
  HELIX_GOLDEN_OFFSET(helix_session, cwd, 40);
  HELIX_GOLDEN_OFFSET(helix_session, git_branch, 56);
  HELIX_GOLDEN_OFFSET(helix_session, model, 72);
  HELIX_GOLDEN_OFFSET(helix_session, title, 88);
  HELIX_GOLDEN_OFFSET(helix_session, agent_version, 104);
  HELIX_GOLDEN_OFFSET(helix_session, started_at_ms, 120);
  HELIX_GOLDEN_OFFSET(helix_session, ended_at_ms, 128);

  HELIX_GOLDEN_OFFSET(helix_event, struct_size, 0);
  HELIX_GOLDEN_OFFSET(helix_event, session_id, 8);
  HELIX_GOLDEN_OFFSET(helix_event, source_offset, 24);
  HELIX_GOLDEN_OFFSET(helix_event, ordinal, 32);
  HELIX_GOLDEN_OFFSET(helix_event, flags, 36);
  HELIX_GOLDEN_OFFSET(helix_event, ts_ms, 40);
  HELIX_GOLDEN_OFFSET(helix_event, kind, 48);
  HELIX_GOLDEN_OFFSET(helix_event, role, 64);
  HELIX_GOLDEN_OFFSET(helix_event, tool, 80);
  HELIX_GOLDEN_OFFSET(helix_event, uid, 96);
  HELIX_GOLDEN_OFFSET(helix_event, parent_uid, 112);
  HELIX_GOLDEN_OFFSET(helix_event, call_id, 128);
  HELIX_GOLDEN_OFFSET(helix_event, summary, 144);
  HELIX_GOLDEN_OFFSET(helix_event, text, 160);
  HELIX_GOLDEN_OFFSET(helix_event, payload, 176);
  HELIX_GOLDEN_OFFSET(helix_event, model, 192);

  HELIX_GOLDEN_OFFSET(helix_usage, struct_size, 0);
  HELIX_GOLDEN_OFFSET(helix_usage, session_id, 8);
  HELIX_GOLDEN_OFFSET(helix_usage, key, 24);
  HELIX_GOLDEN_OFFSET(helix_usage, source_offset, 40);
  HELIX_GOLDEN_OFFSET(helix_usage, flags, 48);
  HELIX_GOLDEN_OFFSET(helix_usage, ts_ms, 56);
  HELIX_GOLDEN_OFFSET(helix_usage, model, 64);
  HELIX_GOLDEN_OFFSET(helix_usage, input_tokens, 80);
  HELIX_GOLDEN_OFFSET(helix_usage, output_tokens, 88);
  HELIX_GOLDEN_OFFSET(helix_usage, cache_read_tokens, 96);
  HELIX_GOLDEN_OFFSET(helix_usage, cache_creation_tokens, 104);
  HELIX_GOLDEN_OFFSET(helix_usage, reasoning_tokens, 112);
  HELIX_GOLDEN_OFFSET(helix_usage, cost_usd, 120);

  HELIX_GOLDEN_OFFSET(helix_emit_api, struct_size, 0);
  HELIX_GOLDEN_OFFSET(helix_emit_api, session, 8);
  HELIX_GOLDEN_OFFSET(helix_emit_api, event, 16);
  HELIX_GOLDEN_OFFSET(helix_emit_api, usage, 24);
  HELIX_GOLDEN_OFFSET(helix_emit_api, warn, 32);
  HELIX_GOLDEN_OFFSET(helix_emit_api, save_state, 40);

  HELIX_GOLDEN_OFFSET(helix_source_pattern, glob, 0);
  HELIX_GOLDEN_OFFSET(helix_source_pattern, layout, 8);

  HELIX_GOLDEN_OFFSET(helix_probe_input, struct_size, 0);
  HELIX_GOLDEN_OFFSET(helix_probe_input, path, 8);
  HELIX_GOLDEN_OFFSET(helix_probe_input, head, 24);
  HELIX_GOLDEN_OFFSET(helix_probe_input, size, 40);

  HELIX_GOLDEN_OFFSET(helix_parse_input, struct_size, 0);
  HELIX_GOLDEN_OFFSET(helix_parse_input, path, 8);
  HELIX_GOLDEN_OFFSET(helix_parse_input, layout, 24);
  HELIX_GOLDEN_OFFSET(helix_parse_input, base_offset, 32);
  HELIX_GOLDEN_OFFSET(helix_parse_input, data, 40);
  HELIX_GOLDEN_OFFSET(helix_parse_input, state, 56);

  HELIX_GOLDEN_OFFSET(helix_adapter_vtable, struct_size, 0);
  HELIX_GOLDEN_OFFSET(helix_adapter_vtable, flavor, 8);
  HELIX_GOLDEN_OFFSET(helix_adapter_vtable, root_env, 16);
  HELIX_GOLDEN_OFFSET(helix_adapter_vtable, default_roots, 24);
  HELIX_GOLDEN_OFFSET(helix_adapter_vtable, patterns, 32);
  HELIX_GOLDEN_OFFSET(helix_adapter_vtable, create, 40);
  HELIX_GOLDEN_OFFSET(helix_adapter_vtable, destroy, 48);
  HELIX_GOLDEN_OFFSET(helix_adapter_vtable, probe, 56);
  HELIX_GOLDEN_OFFSET(helix_adapter_vtable, parse, 64);

  HELIX_GOLDEN_OFFSET(helix_plugin_descriptor, abi_major, 0);
  HELIX_GOLDEN_OFFSET(helix_plugin_descriptor, abi_minor, 4);
  HELIX_GOLDEN_OFFSET(helix_plugin_descriptor, struct_size, 8);
  HELIX_GOLDEN_OFFSET(helix_plugin_descriptor, kind, 12);
  HELIX_GOLDEN_OFFSET(helix_plugin_descriptor, name, 16);
  HELIX_GOLDEN_OFFSET(helix_plugin_descriptor, version, 24);
  HELIX_GOLDEN_OFFSET(helix_plugin_descriptor, description, 32);
  HELIX_GOLDEN_OFFSET(helix_plugin_descriptor, vtable, 40);
}

// ABI 1.1 appended the digester contract; the 1.0 structs above did not move.
BOOST_AUTO_TEST_CASE(struct_layout_abi_1_1) {
  BOOST_TEST(sizeof(helix_digest_session) == 200u);
  BOOST_TEST(HELIX_DIGEST_SESSION_SIZE_1_1 == 200u);
  BOOST_TEST(HELIX_DIGEST_API_SIZE_1_1 == 16u);
  BOOST_TEST(HELIX_DIGESTER_VTABLE_SIZE_1_1 == 56u);

  HELIX_GOLDEN_OFFSET(helix_digest_session, struct_size, 0);
  HELIX_GOLDEN_OFFSET(helix_digest_session, session_uid, 8);
  HELIX_GOLDEN_OFFSET(helix_digest_session, flavor, 24);
  HELIX_GOLDEN_OFFSET(helix_digest_session, native_id, 40);
  HELIX_GOLDEN_OFFSET(helix_digest_session, parent_uid, 56);
  HELIX_GOLDEN_OFFSET(helix_digest_session, repo, 72);
  HELIX_GOLDEN_OFFSET(helix_digest_session, domain, 88);
  HELIX_GOLDEN_OFFSET(helix_digest_session, cwd, 104);
  HELIX_GOLDEN_OFFSET(helix_digest_session, git_branch, 120);
  HELIX_GOLDEN_OFFSET(helix_digest_session, model, 136);
  HELIX_GOLDEN_OFFSET(helix_digest_session, title, 152);
  HELIX_GOLDEN_OFFSET(helix_digest_session, agent_version, 168);
  HELIX_GOLDEN_OFFSET(helix_digest_session, started_at_ms, 184);
  HELIX_GOLDEN_OFFSET(helix_digest_session, ended_at_ms, 192);

  HELIX_GOLDEN_OFFSET(helix_digest_api, struct_size, 0);
  HELIX_GOLDEN_OFFSET(helix_digest_api, result, 8);

  HELIX_GOLDEN_OFFSET(helix_digester_vtable, struct_size, 0);
  HELIX_GOLDEN_OFFSET(helix_digester_vtable, create, 8);
  HELIX_GOLDEN_OFFSET(helix_digester_vtable, destroy, 16);
  HELIX_GOLDEN_OFFSET(helix_digester_vtable, begin_session, 24);
  HELIX_GOLDEN_OFFSET(helix_digester_vtable, event, 32);
  HELIX_GOLDEN_OFFSET(helix_digester_vtable, usage, 40);
  HELIX_GOLDEN_OFFSET(helix_digester_vtable, end_session, 48);
}

// ABI 1.2 appended resumable digesters: a 1.1 table is exactly the prefix before them.
BOOST_AUTO_TEST_CASE(struct_layout_abi_1_2) {
  BOOST_TEST(sizeof(helix_digest_api) == 24u);
  HELIX_GOLDEN_OFFSET(helix_digest_api, state, 16);
  HELIX_GOLDEN_OFFSET(helix_digester_vtable, resume_session, 56);
}

// ABI 1.3 appended the 1-hour cache writes to a usage record, the fork's origin to a session
// record and the extension seam to the host API and both plugin tables, and added the first
// extensions (each a struct of its own, versioned by its id).
BOOST_AUTO_TEST_CASE(struct_layout_abi_1_3) {
  // The 1-hour part of a usage record's cache writes, the last member appended before the freeze.
  BOOST_TEST(sizeof(helix_usage) == 136u);
  HELIX_GOLDEN_OFFSET(helix_usage, cache_creation_1h_tokens, 128);
  // The session a fork copied its conversation from.
  BOOST_TEST(sizeof(helix_session) == 152u);
  HELIX_GOLDEN_OFFSET(helix_session, forked_from_native_id, 136);
  BOOST_TEST(sizeof(helix_host_api) == 32u);
  HELIX_GOLDEN_OFFSET(helix_host_api, get_extension, 24);
  BOOST_TEST(sizeof(helix_adapter_vtable) == 80u);
  HELIX_GOLDEN_OFFSET(helix_adapter_vtable, get_extension, 72);
  BOOST_TEST(sizeof(helix_digester_vtable) == 72u);
  HELIX_GOLDEN_OFFSET(helix_digester_vtable, get_extension, 64);
  BOOST_TEST(HELIX_PROBE_FAILED == -1);

  BOOST_TEST(std::string(HELIX_EXT_RESUME) == "helix.resume/1");
  BOOST_TEST(sizeof(helix_resume_ext) == 32u);
  HELIX_GOLDEN_OFFSET(helix_resume_ext, flags, 4);
  HELIX_GOLDEN_OFFSET(helix_resume_ext, agent, 8);
  HELIX_GOLDEN_OFFSET(helix_resume_ext, argv, 16);
  HELIX_GOLDEN_OFFSET(helix_resume_ext, refusal, 24);
  BOOST_TEST(HELIX_RESUME_IN_CWD == 1u);
  BOOST_TEST(HELIX_RESUME_NOT_SUBAGENTS == 2u);

  BOOST_TEST(std::string(HELIX_EXT_HOOK) == "helix.hook/1");
  BOOST_TEST(sizeof(helix_hook_ext) == 56u);
  HELIX_GOLDEN_OFFSET(helix_hook_ext, session_id_keys, 8);
  HELIX_GOLDEN_OFFSET(helix_hook_ext, transcript_keys, 16);
  HELIX_GOLDEN_OFFSET(helix_hook_ext, event_name_keys, 24);
  HELIX_GOLDEN_OFFSET(helix_hook_ext, flavor_env, 32);
  HELIX_GOLDEN_OFFSET(helix_hook_ext, companion_files, 40);
  HELIX_GOLDEN_OFFSET(helix_hook_ext, id_chars_in_file_names, 48);

  BOOST_TEST(std::string(HELIX_EXT_REPARSE) == "helix.reparse/1");
  BOOST_TEST(sizeof(helix_reparse_ext) == 16u);
  HELIX_GOLDEN_OFFSET(helix_reparse_ext, reparse_below, 8);
}

// ABI 1.4 added the first host extension: where an adapter reports a provider's rate limits.
BOOST_AUTO_TEST_CASE(struct_layout_abi_1_4) {
  BOOST_TEST(std::string(HELIX_EXT_RATE_LIMITS) == "helix.rate_limits/1");
  BOOST_TEST(sizeof(helix_rate_limits_ext) == 16u);
  BOOST_TEST(HELIX_RATE_LIMITS_EXT_SIZE_1_4 == 16u);
  HELIX_GOLDEN_OFFSET(helix_rate_limits_ext, rate_limit, 8);
  BOOST_TEST(sizeof(helix_rate_limit) == 96u);
  BOOST_TEST(HELIX_RATE_LIMIT_SIZE_1_4 == 96u);
  HELIX_GOLDEN_OFFSET(helix_rate_limit, session_id, 8);
  HELIX_GOLDEN_OFFSET(helix_rate_limit, source_offset, 24);
  HELIX_GOLDEN_OFFSET(helix_rate_limit, ts_ms, 32);
  HELIX_GOLDEN_OFFSET(helix_rate_limit, limit_id, 40);
  HELIX_GOLDEN_OFFSET(helix_rate_limit, window, 56);
  HELIX_GOLDEN_OFFSET(helix_rate_limit, used_percent, 72);
  HELIX_GOLDEN_OFFSET(helix_rate_limit, window_minutes, 80);
  HELIX_GOLDEN_OFFSET(helix_rate_limit, resets_at_ms, 88);
}

// The event kinds host and plugins share, in the order of the schema.
BOOST_AUTO_TEST_CASE(event_kind_constants) {
#define HELIX_KIND_NAME(k) std::string(k),
  const std::vector<std::string> kinds = {HELIX_EVENT_KINDS(HELIX_KIND_NAME)};
#undef HELIX_KIND_NAME
  const std::vector<std::string> expected = {
      "user_msg", "assistant_msg", "thinking",   "tool_call", "tool_result",
      "error",    "test_run",      "edit",       "retry",     "human_intervention",
      "decision", "lifecycle",     "completion", "other"};
  BOOST_TEST(kinds == expected, boost::test_tools::per_element());
  for (const auto& k : kinds) BOOST_TEST(helix::is_known_event_kind(k));
  BOOST_TEST(!helix::is_known_event_kind("tool_use"));
}

#else
#error "the ABI goldens are for x86_64 (LP64); add this platform's goldens"
#endif

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(wrapper_round_trip)

namespace {

// The registry of one test case's plugin directory and that plugin.
struct LoadedPlugin {
  helix::PluginRegistry registry;
  const helix::PluginInfo* info = nullptr;
  explicit LoadedPlugin(const std::string& test_case) {
    registry.load_directory(kRoot / test_case);
    BOOST_TEST_REQUIRE(registry.loaded().size() == 1u);
    info = &registry.loaded()[0];
  }
};

bool message_has(const std::exception& e, const std::string& part) {
  BOOST_TEST_MESSAGE(e.what());
  return std::string(e.what()).find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_CASE(probe_scores_cross_the_abi) {
  LoadedPlugin good("good");
  helix::AdapterInstance adapter(*good.info);
  BOOST_TEST(adapter.probe("/tmp/session.test", "{}", 2) == 70);
  BOOST_TEST(adapter.probe("/tmp/session.jsonl", "{}", 2) == 0);
}

// Every member of every record the plugin fills arrives in the host's copy unchanged.
BOOST_AUTO_TEST_CASE(every_record_member_arrives_intact) {
  LoadedPlugin good("good");
  helix::AdapterInstance adapter(*good.info);
  helix::RecordBatch batch;
  adapter.parse("/tmp/a.test", HELIX_LAYOUT_LINES, 1000, "user_msg hello world\nthinking hmm\n", "",
                batch);

  BOOST_TEST_REQUIRE(batch.sessions.size() == 1u);
  const auto& s = batch.sessions[0];
  BOOST_TEST(s.native_id == "s-1");
  BOOST_TEST(s.parent_native_id == "s-0");
  BOOST_TEST(s.cwd == "/work/test");
  BOOST_TEST(s.git_branch == "main");
  BOOST_TEST(s.model == "m-session");
  BOOST_TEST(s.title == "Test session");
  BOOST_TEST(s.agent_version == "1.2.3");
  BOOST_TEST(s.started_at_ms == 1000);
  BOOST_TEST(s.ended_at_ms == 2000);

  BOOST_TEST_REQUIRE(batch.events.size() == 2u);
  const auto& e = batch.events[0];
  BOOST_TEST(e.session_id == "s-1");
  BOOST_TEST(e.source_offset == 1000u);
  BOOST_TEST(e.ordinal == 3u);
  BOOST_TEST(e.flags == HELIX_EVENT_SIDECHAIN);
  BOOST_TEST(e.ts_ms == 1'700'000'000'000);
  BOOST_TEST(e.kind == "user_msg");
  BOOST_TEST(e.role == "user");
  BOOST_TEST(e.tool == "Bash");
  BOOST_TEST(e.uid == "uid-1000");
  BOOST_TEST(e.parent_uid == "uid-parent");
  BOOST_TEST(e.call_id == "call-1");
  BOOST_TEST(e.summary == "summary line");
  BOOST_TEST(e.text == "hello world");
  BOOST_TEST(e.model == "m-event");
  BOOST_TEST_REQUIRE(e.payload_index == 0);
  BOOST_TEST(batch.payloads[0] == "user_msg hello world");
  // The second line starts 21 bytes later ("user_msg hello world\n").
  BOOST_TEST(batch.events[1].source_offset == 1021u);
  BOOST_TEST(batch.events[1].kind == "thinking");
  BOOST_TEST(batch.events[1].text == "hmm");

  BOOST_TEST_REQUIRE(batch.usage.size() == 2u);
  const auto& u = batch.usage[1];
  BOOST_TEST(u.session_id == "s-1");
  BOOST_TEST(u.key == "uid-1021");
  BOOST_TEST(u.source_offset == 1021u);
  BOOST_TEST(u.flags == 0u);
  BOOST_TEST(u.ts_ms == 1'700'000'000'001);
  BOOST_TEST(u.model == "m-usage");
  BOOST_TEST(u.input_tokens == 11);
  BOOST_TEST(u.output_tokens == 22);
  BOOST_TEST(u.cache_read_tokens == 33);
  BOOST_TEST(u.cache_creation_tokens == 44);
  BOOST_TEST(u.reasoning_tokens == 5);
  BOOST_TEST(u.cost_usd == 0.25);
  BOOST_TEST(u.cache_creation_1h_tokens == 40);  // 1.3

  BOOST_TEST_REQUIRE(batch.warnings.size() == 1u);
  BOOST_TEST(batch.warnings[0].source_offset == 1000u);
  BOOST_TEST(batch.warnings[0].category == "test_category");
  BOOST_TEST(batch.warnings[0].message == "state was: ");
  BOOST_TEST(batch.saved_state.value_or("<none>") == "next=1034");
}

BOOST_AUTO_TEST_CASE(saved_state_is_handed_back) {
  LoadedPlugin good("good");
  helix::AdapterInstance adapter(*good.info);
  helix::RecordBatch batch;
  adapter.parse("/tmp/a.test", HELIX_LAYOUT_LINES, 1034, "assistant_msg ok\n", "next=1034", batch);
  BOOST_TEST_REQUIRE(batch.warnings.size() == 1u);
  BOOST_TEST(batch.warnings[0].message == "state was: next=1034");
  BOOST_TEST(batch.saved_state.value_or("<none>") == "next=1051");
}

// The glue isolates records: an exception from one line is a warning at its offset, and the
// lines after it are still parsed.
BOOST_AUTO_TEST_CASE(exception_in_one_line_is_a_warning_and_the_rest_goes_on) {
  LoadedPlugin throwing("throw_parse");
  helix::AdapterInstance adapter(*throwing.info);
  helix::RecordBatch batch;
  adapter.parse("/tmp/b.test", HELIX_LAYOUT_LINES, 7, "user_msg hi\nboom now\nthinking on\n", "",
                batch);
  BOOST_TEST_REQUIRE(batch.events.size() == 2u);
  BOOST_TEST(batch.events[0].text == "hi");
  BOOST_TEST(batch.events[1].text == "on");
  bool warned = false;
  for (const auto& w : batch.warnings)
    if (w.category == "adapter_exception") {
      warned = true;
      BOOST_TEST(w.source_offset == 19u);  // 7 + "user_msg hi\n"
      BOOST_TEST(w.message == "test plugin cannot parse line at offset 19");
    }
  BOOST_TEST(warned);
}

// The same in a DOCUMENT: helix::for_each_record makes one record that throws a warning at its
// offset, and the records after it are parsed.
BOOST_AUTO_TEST_CASE(exception_in_one_document_record_is_a_warning_and_the_rest_goes_on) {
  LoadedPlugin throwing("throw_parse");
  helix::AdapterInstance adapter(*throwing.info);
  helix::RecordBatch batch;
  const std::string doc = R"({"records": ["user_msg hi", "boom now", "thinking on"]})";
  adapter.parse("/tmp/b.json", HELIX_LAYOUT_DOCUMENT, 0, doc, "", batch);
  BOOST_TEST_REQUIRE(batch.events.size() == 2u);
  BOOST_TEST(batch.events[0].text == "hi");
  BOOST_TEST(batch.events[1].text == "on");
  BOOST_TEST(batch.events[1].source_offset == doc.find("\"thinking"));
  bool warned = false;
  for (const auto& w : batch.warnings)
    if (w.category == "adapter_exception") {
      warned = true;
      BOOST_TEST(w.source_offset == doc.find("\"boom"));
    }
  BOOST_TEST(warned);
  // A torn document is no record's fault: the call fails, so what was stored stays.
  BOOST_CHECK_THROW(adapter.parse("/tmp/b.json", HELIX_LAYOUT_DOCUMENT, 0,
                                  doc.substr(0, doc.size() / 2), "", batch),
                    std::runtime_error);
}

// helix/document.hpp: each record's span, whatever its strings hold; every torn copy of the
// document is refused (so the adapter fails the call); a missing key is no records.
BOOST_AUTO_TEST_CASE(document_spans_are_exact_and_every_torn_copy_is_refused) {
  const std::string doc =
      R"({"id": "x", "messages": [{"t": "a ]}, \"quoted\" [{"}, [1, -2.5e3],  "s" , null],)"
      R"( "after": {"messages": [9]}})";
  const auto spans = helix::document::array_elements(doc, "messages");
  BOOST_TEST_REQUIRE(spans.has_value());
  std::vector<std::string> texts;
  for (const auto& span : *spans) texts.emplace_back(span.text(doc));
  BOOST_TEST(texts == (std::vector<std::string>{R"({"t": "a ]}, \"quoted\" [{"})", "[1, -2.5e3]",
                                                R"("s")", "null"}),
             boost::test_tools::per_element());
  BOOST_TEST(spans->front().begin == doc.find("{\"t\""));
  for (std::size_t cut = 0; cut < doc.size(); ++cut)
    BOOST_TEST(!helix::document::array_elements(doc.substr(0, cut), "messages").has_value(),
               "cut at " << cut);
  BOOST_TEST(helix::document::array_elements(doc, "absent").value().empty());
  BOOST_TEST(helix::document::array_elements(R"([{"a": 1}, 2])").value().size() == 2u);
  BOOST_TEST(!helix::document::array_elements(R"({"messages": [tru]})", "messages"));
  BOOST_TEST(!helix::document::array_elements(R"({"messages": []} x)", "messages"));
}

// A record's strings are views the host copies when the emit call returns: helix::Text (what
// Event, Session and Usage hold) refuses a temporary std::string at compile time, so
// `e.summary = make_summary(line);` cannot dangle. Named strings and ctx.keep() are accepted.
static_assert(!std::is_constructible_v<helix::Text, std::string>);
static_assert(!std::is_constructible_v<helix::Text, const std::string>);
static_assert(!std::is_assignable_v<helix::Text&, std::string>);
static_assert(!std::is_assignable_v<helix::Text&, const std::string>);
static_assert(std::is_constructible_v<helix::Text, std::string&>);
static_assert(std::is_constructible_v<helix::Text, const std::string&>);
static_assert(std::is_constructible_v<helix::Text, std::string_view>);

// helix::ParseFailure is how a line says the whole source cannot be parsed: HELIX_ERROR with
// its message.
BOOST_AUTO_TEST_CASE(parse_failure_becomes_a_host_error_with_its_message) {
  LoadedPlugin throwing("throw_parse");
  helix::AdapterInstance adapter(*throwing.info);
  helix::RecordBatch batch;
  BOOST_CHECK_EXCEPTION(
      adapter.parse("/tmp/b.test", HELIX_LAYOUT_LINES, 7, "user_msg hi\nfail now\n", "", batch),
      std::runtime_error, [](const std::runtime_error& e) {
        return message_has(e, "adapter 'throw_parse' could not parse /tmp/b.test") &&
               message_has(e, "test plugin gives up at offset 19");
      });
}

// A throwing probe is reported as failed, not as "not mine".
BOOST_AUTO_TEST_CASE(exception_in_probe_is_reported_as_a_failed_probe) {
  LoadedPlugin throwing("throw_parse");
  helix::AdapterInstance adapter(*throwing.info);
  BOOST_TEST(adapter.probe("/tmp/x.boom", "{}", 2) == helix::AdapterInstance::kProbeFailed);
  BOOST_TEST(adapter.probe("/tmp/x.test", "{}", 2) == 70);
}

BOOST_AUTO_TEST_CASE(exception_in_constructor_becomes_a_start_failure_with_its_message) {
  LoadedPlugin throwing("throw_constructor");
  BOOST_CHECK_EXCEPTION(
      helix::AdapterInstance(*throwing.info), std::runtime_error, [&](const std::runtime_error& e) {
        return message_has(e, "adapter plugin 'throw_constructor' (" +
                                  throwing.info->path.string() + ") failed to start") &&
               message_has(e, "test plugin constructor refuses to start");
      });
}

BOOST_AUTO_TEST_SUITE_END()

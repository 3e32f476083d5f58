// Crash isolation, quarantine, orphans and adapter versions, through the real helix-host over a
// home with Claude Code, Codex, Grok and Gemini sessions: a third-party adapter that segfaults,
// one that hangs and one that grows without bound, installed next to the first-party plugins,
// never stop the capture of the other sources nor lose their data; each failure names the
// plugin and the source, which is quarantined (status, plugins, the sweep), not retried until
// the plugin or the file changes or the sweep is asked to, and the sweep exits 5.
#define BOOST_TEST_MODULE plugin_isolation
#include <boost/test/unit_test.hpp>

#include <boost/json.hpp>
#include <filesystem>
#include <map>
#include <string>
#include <tuple>

#include "plugins/adapter_instance.hpp"
#include "plugins/adapter_worker.hpp"
#include "plugins/plugin_registry.hpp"
#include "recall_home.hpp"

namespace fs = std::filesystem;
using helix::test::RecallHome;
using helix::test::Run;

namespace {

const fs::path kTestPlugins = HELIX_TEST_PLUGINS_ROOT;
const fs::path kFirstParty = HELIX_TEST_PLUGIN_DIR;

bool has(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return true;
  BOOST_TEST_MESSAGE("'" << part << "' not in:\n" << text);
  return false;
}

// The agent home of the recall suites (Claude Code, Codex, Grok), plus a Gemini CLI session and
// the files of the faulty plugins.
struct FaultyHome {
  RecallHome home;
  fs::path faulty = home.dir() / "home/faulty";
  fs::path config = home.dir() / "config.toml";

  FaultyHome() {
    const fs::path fx = HELIX_TEST_FIXTURE_DIR;
    fs::create_directories(home.dir() / "home/gemini/.gemini/tmp/plain/chats");
    fs::copy_file(fx / "gemini/cli-0.38.2/home/.gemini/tmp/plain/chats/"
                       "session-2026-11-25T09-00-e6b5ecb6.json",
                  home.dir() /
                      "home/gemini/.gemini/tmp/plain/chats/"
                      "session-2026-11-25T09-00-e6b5ecb6.json");
    helix::test::write_file(faulty / "boom.segfault", "user_msg hello\ncrash now\n");
    helix::test::write_file(faulty / "stuck.hang", "user_msg hello\nhang here\n");
    helix::test::write_file(faulty / "greedy.grow", "user_msg hello\ngrow please\n");
    helix::test::write_file(config,
                            "[plugins]\ncall_timeout_seconds = 2\n"
                            "worker_memory = \"256MiB\"\n");
  }

  // helix-host with the first-party plugins, the faulty ones (third party: isolated by
  // default) and this home.
  Run helix(const std::string& args, const std::vector<fs::path>& extra_plugins,
            const std::string& store = "store") const {
    std::string plugins = "--plugins " + kFirstParty.string();
    for (const auto& dir : extra_plugins) plugins += " --plugins " + dir.string();
    return helix::test::run_command(
        fmt::format("CLAUDE_CONFIG_DIR={0}/home/claude CODEX_HOME={0}/home/codex "
                    "GROK_HOME={0}/home/grok GEMINI_CLI_HOME={0}/home/gemini "
                    "HELIX_FAULTY_HOME={1} XDG_CONFIG_HOME={0}/xdg {2} --config {3} {4} "
                    "--store {0}/{6} {5} 2>{0}/err",
                    home.dir().path().string(), faulty.string(), HELIX_TEST_HOST_BINARY,
                    config.string(), plugins, args, store),
        home.dir() / "err");
  }
  Run faulty_sweep(const std::string& args = "sweep") const {
    return helix(args, {kTestPlugins / "faulty_segfault", kTestPlugins / "faulty_hang",
                        kTestPlugins / "faulty_grow"});
  }
};

// uid -> (events, input tokens) of every session of a store, from `sessions --json`.
std::map<std::string, std::pair<int64_t, int64_t>> sessions(const Run& r) {
  std::map<std::string, std::pair<int64_t, int64_t>> out;
  const boost::json::value doc = boost::json::parse(r.out);
  for (const auto& v : doc.as_array()) {
    const auto& s = v.as_object();
    out[std::string(s.at("session_uid").as_string())] = {
        s.at("event_count").as_int64(), s.at("cost").at("input_tokens").as_int64()};
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(plugins_outside_the_hosts_own_directory_are_third_party) {
  helix::PluginRegistry registry;
  registry.load_directory(kFirstParty);
  registry.load_directory(kTestPlugins / "faulty_segfault");
  BOOST_TEST_REQUIRE(registry.find("claude"));
  BOOST_TEST(registry.find("claude")->first_party);
  BOOST_TEST_REQUIRE(registry.find("segfault"));
  BOOST_TEST(!registry.find("segfault")->first_party);
  helix::IsolationPolicy policy;
  BOOST_TEST(!policy.isolates(*registry.find("claude")));
  BOOST_TEST(policy.isolates(*registry.find("segfault")));
}

// The worker dies with the plugin; the next call gets a fresh one.
BOOST_AUTO_TEST_CASE(a_crashed_worker_is_replaced_for_the_next_call) {
  helix::PluginRegistry registry;
  registry.load_directory(kTestPlugins / "faulty_segfault");
  helix::AdapterWorker worker(*registry.find("segfault"), "{}", nullptr, helix::IsolationPolicy{});
  helix::RecordBatch batch;
  BOOST_CHECK_EXCEPTION(
      worker.parse("/h/a.segfault", HELIX_LAYOUT_LINES, 0, "crash now\n", "", batch),
      helix::PluginFault, [](const helix::PluginFault& f) {
        return has(f.what(), "plugin 'segfault' crashed with signal 11 (Segmentation fault)");
      });
  worker.parse("/h/a.segfault", HELIX_LAYOUT_LINES, 0, "user_msg fine\n", "", batch);
  BOOST_TEST_REQUIRE(batch.events.size() == 1u);
  BOOST_TEST(batch.events[0].text == "fine");
  BOOST_TEST(worker.probe("/h/a.segfault", "x", 1) == 80);
}

// What crosses a worker's socket is what the adapter emits in process: a Codex fork's origin
// (the wire once dropped it) and the rate limits of every token_count line included.
BOOST_AUTO_TEST_CASE(a_workers_batch_is_the_in_process_batch) {
  helix::PluginRegistry registry;
  registry.load_directory(kFirstParty);
  const helix::PluginInfo* codex = registry.find("codex");
  BOOST_TEST_REQUIRE(codex);
  helix::AdapterWorker worker(*codex, "{}", nullptr, helix::IsolationPolicy{});
  const helix::AdapterInstance local(*codex);
  const fs::path fx = HELIX_TEST_FIXTURE_DIR;
  for (const char* name :
       {"codex/rollout-2026-01-02T19-00-00-019b7fa0-0000-7000-8000-00000000f0c1.jsonl",
        "codex/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl"}) {
    BOOST_TEST_CONTEXT(name) {
      const std::string bytes = helix::test::read_file(fx / name);
      helix::RecordBatch remote, here;
      worker.parse((fx / name).string(), HELIX_LAYOUT_LINES, 0, bytes, "", remote);
      local.parse((fx / name).string(), HELIX_LAYOUT_LINES, 0, bytes, "", here);
      BOOST_TEST_REQUIRE(remote.sessions.size() == here.sessions.size());
      for (std::size_t i = 0; i < here.sessions.size(); ++i)
        BOOST_TEST(remote.sessions[i].forked_from_native_id ==
                   here.sessions[i].forked_from_native_id);
      BOOST_TEST(remote.events.size() == here.events.size());
      BOOST_TEST(remote.usage.size() == here.usage.size());
      BOOST_TEST_REQUIRE(remote.rate_limits.size() == here.rate_limits.size());
      for (std::size_t i = 0; i < here.rate_limits.size(); ++i) {
        const auto &a = remote.rate_limits[i], &b = here.rate_limits[i];
        BOOST_TEST((std::tie(a.session_id, a.limit_id, a.window, a.source_offset, a.ts_ms,
                             a.used_percent, a.window_minutes, a.resets_at_ms) ==
                    std::tie(b.session_id, b.limit_id, b.window, b.source_offset, b.ts_ms,
                             b.used_percent, b.window_minutes, b.resets_at_ms)));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(faulty_plugins_lose_no_other_data_and_are_quarantined_by_name) {
  FaultyHome f;
  // What the healthy plugins store alone: the baseline every faulty sweep must reach.
  Run alone = f.helix("sweep", {}, "alone");
  BOOST_TEST_REQUIRE(alone.exit_code == 0, alone.err);
  const auto expected = sessions(f.helix("sessions --json", {}, "alone"));
  for (const char* flavor : {"claude:", "codex:", "grok:", "gemini:"})
    BOOST_TEST(std::any_of(expected.begin(), expected.end(),
                           [&](const auto& s) { return s.first.starts_with(flavor); }),
               flavor);

  Run first = f.faulty_sweep();
  BOOST_TEST(first.exit_code == 5, first.out << first.err);
  BOOST_TEST(has(first.err, (f.faulty / "boom.segfault").string() +
                                ": plugin 'segfault' crashed with signal 11 (Segmentation fault) "
                                "while reading it; the source is quarantined"));
  BOOST_TEST(has(first.err, (f.faulty / "stuck.hang").string() +
                                ": plugin 'hang' hung: no answer within 2 s"));
#if !defined(__SANITIZE_ADDRESS__)
  BOOST_TEST(has(first.err, (f.faulty / "greedy.grow").string() +
                                ": plugin 'grow' ran out of its 256 MiB memory limit"));
#else
  // AddressSanitizer's allocator aborts the worker when RLIMIT_AS refuses it memory (its shadow
  // mappings make an address-space limit meaningless), so the same quarantine is reached by a
  // crash instead of the out-of-memory answer.
  BOOST_TEST(has(first.err, (f.faulty / "greedy.grow").string() + ": plugin 'grow' "));
#endif
  BOOST_TEST(has(first.out, "quarantined 3 (3 new)"));
  // Every session of the healthy plugins, with the figures they give alone.
  auto got = sessions(f.helix("sessions --json", {}));
  for (const auto& [uid, figures] : expected) {
    BOOST_TEST_CONTEXT(uid) {
      BOOST_TEST_REQUIRE(got.count(uid) == 1u);
      BOOST_TEST(got[uid].first == figures.first);
      BOOST_TEST(got[uid].second == figures.second);
    }
  }

  Run status = f.helix("status", {});
  BOOST_TEST(has(status.out, "quarantined " + (f.faulty / "boom.segfault").string() +
                                 " (plugin 'segfault'): plugin 'segfault' crashed"));
  Run plugins = f.faulty_sweep("plugins");
  BOOST_TEST(has(plugins.out, "quarantined: " + (f.faulty / "stuck.hang").string() +
                                  " by plugin 'hang': plugin 'hang' hung"));

  // The next sweep does not crash, and does not call the hung plugin again: a call would time
  // out and quarantine its source anew ("1 new"). (No clock here: CI machines are shared.)
  Run second = f.faulty_sweep();
  BOOST_TEST(second.exit_code == 5, second.err);
  BOOST_TEST(has(second.err, (f.faulty / "boom.segfault").string() + ": quarantined: plugin "
                                                                     "'segfault' crashed"));
  BOOST_TEST(has(second.err, "--retry-quarantined"));
  BOOST_TEST(has(second.out, "quarantined 3 (0 new)"));

  // Asked to, it tries again (and quarantines again).
  Run retried = f.faulty_sweep("sweep --retry-quarantined");
  BOOST_TEST(retried.exit_code == 5);
  BOOST_TEST(has(retried.out, "quarantined 3 (3 new)"));

  // A fixed file is read again on its own, and what it holds is stored.
  helix::test::write_file(f.faulty / "boom.segfault", "user_msg hello\nuser_msg fixed\n");
  helix::test::write_file(f.faulty / "stuck.hang", "user_msg hello\n");
  helix::test::write_file(f.faulty / "greedy.grow", "user_msg hello\n");
  Run fixed = f.faulty_sweep();
  BOOST_TEST(fixed.exit_code == 0, fixed.err);
  got = sessions(f.helix("sessions --json", {}));
  BOOST_TEST(got["segfault:boom"].first == 2);
  BOOST_TEST(got["hang:stuck"].first == 1);
  BOOST_TEST(got["grow:greedy"].first == 1);
}

// Sources whose plugin is gone are marked orphaned and named, never skipped in silence; when
// the plugin is back they are active again without being read again.
BOOST_AUTO_TEST_CASE(sources_of_a_missing_plugin_are_orphaned_and_come_back) {
  FaultyHome f;
  const fs::path versioned = kTestPlugins / "versioned_v1";
  helix::test::write_file(f.faulty / "notes.versioned", "user_msg one\nuser_msg two\n");
  Run with = f.helix("sweep", {versioned});
  BOOST_TEST_REQUIRE(with.exit_code == 0, with.err);
  Run without = f.helix("sweep", {});
  BOOST_TEST(without.exit_code == 0, without.err);
  BOOST_TEST(has(without.err, (f.faulty / "notes.versioned").string() +
                                  ": claimed by plugin 'versioned', which is not loaded; "
                                  "orphaned"));
  BOOST_TEST(has(without.out, "orphaned 1"));
  Run status = f.helix("status --json", {});
  const auto unread = boost::json::parse(status.out).at("unread_sources").as_array();
  BOOST_TEST_REQUIRE(unread.size() == 1u);
  BOOST_TEST(unread[0].at("state").as_string() == "orphaned");
  BOOST_TEST(unread[0].at("plugin").as_string() == "versioned");
  Run back = f.helix("sweep", {versioned});
  BOOST_TEST(back.exit_code == 0, back.err);
  BOOST_TEST(has(back.out, "events added 0"));
  BOOST_TEST(
      boost::json::parse(f.helix("status --json", {}).out).at("unread_sources").as_array().empty());
  BOOST_TEST(sessions(f.helix("sessions --json", {}))["versioned:notes"].first == 2);
}

// A new adapter version that declares the old output stale re-reads its sources on the next
// sweep, replacing what they gave (nothing doubled); sweep --reparse does it on demand.
BOOST_AUTO_TEST_CASE(a_reparse_worthy_version_reads_its_sources_again) {
  FaultyHome f;
  helix::test::write_file(f.faulty / "notes.versioned", "user_msg one\nuser_msg two\n");
  BOOST_TEST_REQUIRE(f.helix("sweep", {kTestPlugins / "versioned_v1"}).exit_code == 0);
  Run v1 = f.helix("show versioned:notes --json --bodies", {kTestPlugins / "versioned_v1"});
  BOOST_TEST(has(v1.out, "\"one\""));
  BOOST_TEST(v1.out.find("v2: one") == std::string::npos);
  Run upgraded = f.helix("sweep", {kTestPlugins / "versioned_v2"});
  BOOST_TEST(upgraded.exit_code == 0, upgraded.err);
  BOOST_TEST(has(upgraded.out, "re-parsed for a new adapter version 1"));
  Run v2 = f.helix("show versioned:notes --json --bodies", {kTestPlugins / "versioned_v2"});
  BOOST_TEST(has(v2.out, "v2: one"));
  BOOST_TEST(sessions(f.helix("sessions --json", {}))["versioned:notes"].first == 2);
  // Once read by 2.0.0, the next sweep leaves it alone; --reparse reads it again anyway.
  Run again = f.helix("sweep", {kTestPlugins / "versioned_v2"});
  BOOST_TEST(!has(again.out, "re-parsed"));
  Run forced = f.helix("sweep --reparse versioned", {kTestPlugins / "versioned_v2"});
  BOOST_TEST(has(forced.out, "re-parsed for a new adapter version 1"));
  BOOST_TEST(sessions(f.helix("sessions --json", {}))["versioned:notes"].first == 2);
  Run unknown = f.helix("sweep --reparse nosuch", {});
  BOOST_TEST(unknown.exit_code == 2);
  BOOST_TEST(has(unknown.err, "--reparse nosuch: no adapter plugin of that name is loaded"));
}

// `config` lists the plugin directories in effect, --plugins included.
BOOST_AUTO_TEST_CASE(config_lists_the_plugin_directories_in_effect) {
  FaultyHome f;
  Run r = f.helix("config", {kTestPlugins / "faulty_hang"});
  BOOST_TEST(has(r.out, kFirstParty.string()));
  BOOST_TEST(has(r.out, (kTestPlugins / "faulty_hang").string()));
  BOOST_TEST(has(r.out, "isolation = 'third-party'"));
  BOOST_TEST(has(r.out, "call_timeout_seconds = 2"));
}

// A third-party flavor's own declarations serve `hook` (its event keys, the id's first 8
// characters in file names) and `resume` (its command).
BOOST_AUTO_TEST_CASE(hook_and_resume_serve_a_third_party_flavor) {
  FaultyHome f;
  helix::test::write_file(f.faulty / "abcdefgh.versioned", "user_msg from a hook\n");
  helix::test::write_file(f.faulty / "zzzzzzzz.versioned", "user_msg not this one\n");
  Run hook =
      f.helix("hook versioned --foreground '{\"conversationId\":\"abcdefgh-1234-5678-9abc\"}'",
              {kTestPlugins / "versioned_v1"});
  BOOST_TEST(hook.exit_code == 0);
  const auto got = sessions(f.helix("sessions --json", {}));
  BOOST_TEST(got.count("versioned:abcdefgh") == 1u);
  BOOST_TEST(got.count("versioned:zzzzzzzz") == 0u);
  Run resume = f.helix("resume versioned:abcdefgh --json", {kTestPlugins / "versioned_v1"});
  BOOST_TEST(resume.exit_code == 0, resume.err);
  BOOST_TEST(has(resume.out, "\"command\":\"versioned --continue abcdefgh\""));  // no cwd asked
}

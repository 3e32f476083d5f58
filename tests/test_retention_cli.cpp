// Retention through the real binary: evict --dry-run changes nothing, a sweep over a small soft
// cap evicts analyzed sessions, and digest, usage and show answer from Tier 2 afterwards.
#define BOOST_TEST_MODULE retention_cli
#include <boost/test/unit_test.hpp>

#include "host_process.hpp"
#include "temp_dir.hpp"

#include <boost/json.hpp>
#include <cstdlib>

namespace json = boost::json;
using namespace helix::test;

namespace {

struct SampleStore {
  TempDir dir;
  SampleStore() {
    const std::string make =
        std::string(HELIX_TEST_FIXTURE_DIR "/../../scripts/make-sample-home ") +
        HELIX_TEST_FIXTURE_DIR + " " + (dir / "home").string();
    BOOST_REQUIRE(std::system(make.c_str()) == 0);
    // Written long ago: no session counts as still being written.
    const auto old = std::filesystem::file_time_type::clock::now() - std::chrono::hours(3);
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir / "home"))
      if (e.is_regular_file()) std::filesystem::last_write_time(e.path(), old);
    ::setenv("CLAUDE_CONFIG_DIR", (dir / "home/claude").c_str(), 1);
    ::setenv("CODEX_HOME", (dir / "home/codex").c_str(), 1);
    ::setenv("GROK_HOME", (dir / "home/grok").c_str(), 1);
    ::setenv("GEMINI_CLI_HOME", (dir / "home/gemini").c_str(), 1);
    ::setenv("XDG_CONFIG_HOME", (dir / "xdg").c_str(), 1);
    write_file(dir / "small.toml", "[session_memory.retention]\nraw_soft_cap_bytes = \"1KiB\"\n");
  }

  HostResult helix(std::vector<std::string> args, bool small_caps = false) {
    std::vector<std::string> all{"--plugins", HELIX_TEST_PLUGIN_DIR, "--store",
                                 (dir / "store").string()};
    if (small_caps) all.insert(all.end(), {"--config", (dir / "small.toml").string()});
    all.insert(all.end(), args.begin(), args.end());
    HostProcess p(all, dir.path());
    return p.wait();
  }

  json::value helix_json(std::vector<std::string> args, bool small_caps = false) {
    HostResult r = helix(std::move(args), small_caps);
    BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    return json::parse(r.out);
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(eviction_keeps_digests_usage_and_search_answers) {
  SampleStore s;
  BOOST_REQUIRE(s.helix({"sweep"}).exit_code == 0);
  const json::value usage_before = s.helix_json({"usage", "--json"});
  const json::value status_before = s.helix_json({"status", "--json"});
  for (const char* key : {"raw_soft_cap_bytes", "raw_hard_cap_bytes", "analyzed_sessions",
                          "evicted_sessions", "evictable_bytes", "data_loss_events"})
    BOOST_TEST(status_before.as_object().contains(key), key);
  BOOST_TEST(status_before.at("evicted_sessions").as_int64() == 0);
  BOOST_TEST(status_before.at("evictable_bytes").as_int64() > 0);
  const std::string uid = "claude:cf564e14-9b07-42ad-8d9a-4faa1b79a0ed";
  const std::string digest_before = s.helix({"digest", uid, "--json"}).out;

  // A dry run plans and changes nothing.
  const json::value plan = s.helix_json({"evict", "--dry-run", "--json"}, true);
  BOOST_TEST(plan.at("steps").as_array().size() ==
             static_cast<std::size_t>(status_before.at("analyzed_sessions").as_int64()));
  for (const auto& step : plan.at("steps").as_array()) BOOST_TEST(step.at("analyzed").as_bool());
  BOOST_TEST(s.helix_json({"status", "--json"}).at("evicted_sessions").as_int64() == 0);
  // It explains itself per session: every one that holds raw data, dropped or kept, and why.
  std::size_t dropped = 0;
  for (const auto& v : plan.at("sessions").as_array()) {
    const std::string reason(v.at("reason").as_string());
    if (v.at("evicted").as_bool()) {
      ++dropped;
      BOOST_TEST(reason.find("above raw_soft_cap_bytes") != std::string::npos, reason);
    } else {
      BOOST_TEST(reason.find("not analyzed yet") != std::string::npos, reason);
    }
  }
  BOOST_TEST(dropped == plan.at("steps").as_array().size());
  const HostResult text = s.helix({"evict", "--dry-run"}, true);
  BOOST_TEST(text.out.find("drop") != std::string::npos);
  BOOST_TEST(text.out.find(uid) != std::string::npos);
  BOOST_TEST(text.out.find("being written now") == std::string::npos);

  // A sweep under the small cap evicts every analyzed session; nothing is lost.
  HostResult sweep = s.helix({"sweep"}, true);
  BOOST_TEST(sweep.exit_code == 0);
  BOOST_TEST(sweep.out.find("retention: evicted") != std::string::npos);
  const json::value status_after = s.helix_json({"status", "--json"}, true);
  BOOST_TEST(status_after.at("evicted_sessions").as_int64() ==
             status_before.at("analyzed_sessions").as_int64());
  BOOST_TEST(status_after.at("data_loss_events").as_int64() == 0);
  BOOST_TEST(status_after.at("events").as_int64() == 0);
  BOOST_TEST(status_after.at("tier1_bytes").as_int64() <
             status_before.at("tier1_bytes").as_int64());

  BOOST_TEST(json::serialize(s.helix_json({"usage", "--json"})) == json::serialize(usage_before));
  BOOST_TEST(s.helix({"digest", uid, "--json"}).out == digest_before);
  const HostResult readable = s.helix({"show", uid});
  BOOST_TEST(readable.out.find("was evicted by retention on") != std::string::npos);
  BOOST_TEST(readable.out.find("Still here: the digest by session_digest") != std::string::npos);
  BOOST_TEST(readable.out.find("outcome ") != std::string::npos);
  BOOST_TEST(readable.out.find("{\"") == std::string::npos);  // no JSON line
  const json::value shown = s.helix_json({"show", uid, "--json"});
  BOOST_TEST(shown.at("evicted").as_bool());
  BOOST_TEST(shown.at("events").as_array().empty());
  BOOST_TEST(shown.at("digest").at("session_uid").as_string() == uid);
}

// Tier 2 above its cap is flagged by every sweep that writes and by `status`; a sweep that
// changed nothing does not measure it again.
BOOST_AUTO_TEST_CASE(the_tier2_guard_speaks_when_a_sweep_writes_and_in_status) {
  SampleStore s;
  write_file(s.dir / "tiny-tier2.toml",
             "[session_memory.retention]\ndistilled_cap_bytes = \"1KiB\"\n");
  auto sweep = [&] {
    HostProcess p({"--plugins", HELIX_TEST_PLUGIN_DIR, "--store", (s.dir / "store").string(),
                   "--config", (s.dir / "tiny-tier2.toml").string(), "sweep"},
                  s.dir.path());
    return p.wait();
  };
  const HostResult first = sweep(), again = sweep();
  BOOST_TEST(first.out.find("tier 2 is above distilled_cap_bytes") != std::string::npos, first.out);
  BOOST_TEST(again.out.find("read 0 B") != std::string::npos, again.out);
  BOOST_TEST(again.out.find("tier 2 is above") == std::string::npos, again.out);
  HostProcess status({"--plugins", HELIX_TEST_PLUGIN_DIR, "--store", (s.dir / "store").string(),
                      "--config", (s.dir / "tiny-tier2.toml").string(), "status", "--json"},
                     s.dir.path());
  const HostResult st = status.wait();
  BOOST_TEST(json::parse(st.out).at("tier2_over_cap").as_bool(), st.out);
}

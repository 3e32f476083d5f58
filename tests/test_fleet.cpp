// The team memory against a real PostgreSQL server (a throwaway cluster this suite starts):
// the schema's versions and who may migrate it, configurations push refuses, two hosts pushing
// at once whose fleet totals are the sum of their local ones, a push killed with SIGKILL and a
// server stopped mid-push, each resumed without a row doubled or lost.
#define BOOST_TEST_MODULE fleet
#include <boost/test/unit_test.hpp>

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <thread>

#include "fleet_world.hpp"

namespace json = boost::json;
using helix::test::FleetHost;
using helix::test::FleetServer;
using helix::test::Run;
using helix::test::SkipWithoutPostgres;
using helix::test::usage_totals;

namespace {

BOOST_TEST_GLOBAL_FIXTURE(SkipWithoutPostgres);

constexpr const char* kTokenFields[] = {"input_tokens", "output_tokens", "cache_creation_tokens",
                                        "cache_read_tokens", "reasoning_tokens"};

int64_t field(const json::object& o, const char* name) { return o.at(name).to_number<int64_t>(); }

// `fleet` holds exactly the tokens of `hosts` together, and their cost up to rounding: the sums
// are added in another order, and --json prints each cost rounded to 1e-6 (half of it off at
// most, for the fleet's figure and for each host's).
void require_sum(const json::object& fleet, const std::vector<json::object>& hosts) {
  for (const char* f : kTokenFields) {
    int64_t sum = 0;
    for (const auto& h : hosts) sum += field(h, f);
    BOOST_TEST(field(fleet, f) == sum, f << ": fleet " << field(fleet, f) << ", hosts " << sum);
  }
  double cost = 0;
  for (const auto& h : hosts) cost += h.at("cost_usd").to_number<double>();
  const double printed = 0.5e-6 * static_cast<double>(hosts.size() + 1);
  BOOST_TEST(std::abs(fleet.at("cost_usd").to_number<double>() - cost) <=
             printed + 1e-9 * (1 + cost));
}

// Rows of `usage --json` by their key.
std::map<std::string, json::object> rows_by(const Run& r, const char* key) {
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::map<std::string, json::object> out;
  const json::value doc = json::parse(r.out);
  for (const auto& row : doc.at("rows").as_array())
    out[std::string(row.at(key).as_string())] = row.as_object();
  return out;
}

int64_t sessions_listed(const Run& r) {
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return static_cast<int64_t>(json::parse(r.out).as_array().size());
}

void sweep(const FleetHost& host) {
  Run r = host.helix("sweep --quiet");
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.err);
}

// Waits until the fleet holds the first committed batch of `team` (its host row), while the
// push runs.
void wait_for_first_batch(helix::test::HostProcess& push, const std::string& team) {
  auto& server = FleetServer::get();
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < end && push.running() &&
         server.count(
             fmt::format("SELECT count(*) FROM helix_fleet.hosts WHERE team = '{}'", team)) == 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  if (push.running()) return;
  const auto& ended = push.wait();
  BOOST_FAIL("the push ended (exit "
             << ended.exit_code << ") before its first batch was seen: " << ended.out << ended.err);
}

int64_t team_sessions(const std::string& team) {
  return FleetServer::get().count(
      fmt::format("SELECT count(*) FROM helix_fleet.sessions WHERE team = '{}'", team));
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_schema_is_versioned_and_only_an_administrator_migrates_it) {
  auto& server = FleetServer::get();
  server.cluster().superuser().exec("CREATE DATABASE helix_empty");
  server.add_member("gamma", "gina", "gina-pw");
  FleetHost host("gina", "gina-pw", {"claude"});
  const std::string member_conninfo = server.cluster().conninfo("gina", "helix_empty");
  helix::test::write_file(host.config_file(),
                          fmt::format("[fleet]\nconnection = \"{}\"\npassword_file = \"{}\"\n"
                                      "team = \"gamma\"\nhost_id_file = \"{}\"\n",
                                      member_conninfo, (host.dir() / "password").string(),
                                      (host.dir() / "host-id").string()));
  sweep(host);

  Run before = host.helix("push");
  BOOST_TEST(before.exit_code == 3);
  BOOST_TEST(before.err.find("schema version 0") != std::string::npos, before.err);
  BOOST_TEST(before.err.find("helix-host fleet migrate") != std::string::npos, before.err);

  Run by_member = host.helix("fleet migrate");
  BOOST_TEST(by_member.exit_code == 3);
  BOOST_TEST(by_member.err.find("runs as a PostgreSQL superuser or a role with CREATEROLE") !=
                 std::string::npos,
             by_member.err);

  const std::string admin =
      "fleet migrate --connection '" + server.cluster().conninfo("postgres", "helix_empty") + "'";
  Run first = server.admin(admin);
  BOOST_TEST(first.exit_code == 0, first.err);
  BOOST_TEST(first.out == "fleet schema: migrated from version 0 to 1\n");
  BOOST_TEST(first.err.find("cannot use its indexes") == std::string::npos, first.err);
  Run again = server.admin(admin);
  BOOST_TEST(again.out == "fleet schema: version 1, up to date\n", again.err);
  Run as_json = server.admin(admin + " --json");
  BOOST_TEST(as_json.out == "{\"from\":1,\"to\":1,\"search_indexed\":true}\n", as_json.err);

  Run pushed = host.helix("push");
  BOOST_TEST(pushed.exit_code == 0, pushed.err);

  // A database migrated by a newer helix-host is neither written nor migrated back.
  helix::pg::Connection db(server.cluster().conninfo("postgres", "helix_empty"),
                           helix::test::PgCluster::kSuperuserPassword);
  db.exec("INSERT INTO helix_fleet.schema_version (version) VALUES (2)");
  Run newer = host.helix("push");
  BOOST_TEST(newer.exit_code == 3);
  BOOST_TEST(newer.err.find("upgrade helix-host") != std::string::npos, newer.err);
  Run newer_migrate = server.admin(admin);
  BOOST_TEST(newer_migrate.exit_code == 3);
  BOOST_TEST(newer_migrate.err.find("newer than this helix-host") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_configuration_push_cannot_use_is_refused_with_what_to_change) {
  auto& server = FleetServer::get();
  server.add_member("delta", "dora", "dora-pw");
  FleetHost host("dora", "dora-pw", {"codex"});
  sweep(host);
  auto refused = [&](const std::string& fleet_section, int code, const std::string& why) {
    helix::test::write_file(host.config_file(), fleet_section);
    Run r = host.helix("push");
    if (code > 0) BOOST_TEST(r.exit_code == code, fleet_section << " -> " << r.exit_code);
    BOOST_TEST(r.exit_code != 0);
    BOOST_TEST(r.err.find(why) != std::string::npos, fleet_section << " -> " << r.err);
  };
  const std::string conninfo = server.cluster().conninfo("dora");
  refused("", 2, "no fleet database is configured");
  refused(
      fmt::format("[fleet]\nconnection = \"{} password=dora-pw\"\nteam = \"delta\"\n", conninfo), 2,
      "holds a password");
  refused(fmt::format("[fleet]\nconnection = \"postgresql://dora:dora-pw@127.0.0.1:{}/helix\"\n"
                      "team = \"delta\"\n",
                      server.cluster().port()),
          2, "holds a password");
  refused(fmt::format("[fleet]\nconnection = \"{}\"\nteam = \"Delta-Team\"\n", conninfo), 2,
          "is not a team name");
  // (Exit code: as for any other mistake in the configuration file.)
  refused(fmt::format("[fleet]\nconnection = \"{}\"\nteam = \"delta\"\nbatch = 3\n", conninfo), -1,
          "config.toml:4: unknown setting 'fleet.batch'");

  // A password file others can read is refused as libpq refuses such a ~/.pgpass.
  host.configure("delta");
  ::chmod((host.dir() / "password").c_str(), 0644);
  refused(helix::test::read_file(host.config_file()), 3, "chmod 600");
  ::chmod((host.dir() / "password").c_str(), 0600);

  // TLS is libpq's: sslmode=require against this server (no TLS configured) is refused by libpq
  // before a password is sent.
  refused(
      fmt::format("[fleet]\nconnection = \"{} sslmode=require\"\npassword_file = \"{}\"\n"
                  "team = \"delta\"\nhost_id_file = \"{}\"\n",
                  conninfo, (host.dir() / "password").string(), (host.dir() / "host-id").string()),
      3, "server does not support SSL");
  host.configure("delta");

  helix::test::write_file(host.dir() / "password", "not-dora-pw\n");
  refused(helix::test::read_file(host.config_file()), 3, "password authentication failed");
  helix::test::write_file(host.dir() / "password", "dora-pw\n");
  Run ok = host.helix("push");
  BOOST_TEST(ok.exit_code == 0, ok.err);

  Run bad_grant = server.admin("fleet grant --team 'x;DROP' --member dora");
  BOOST_TEST(bad_grant.exit_code == 2);
  BOOST_TEST(bad_grant.err.find("is not a team name") != std::string::npos, bad_grant.err);
}

BOOST_AUTO_TEST_CASE(two_hosts_push_at_once_and_the_fleet_totals_are_the_sum_of_theirs) {
  auto& server = FleetServer::get();
  server.add_member("alpha", "alice", "alice-pw");
  server.add_member("alpha", "bob", "bob-pw");
  FleetHost a("alice", "alice-pw", {"claude"});
  FleetHost b("bob", "bob-pw", {"codex", "grok"});
  a.configure("alpha", "events = true");
  b.configure("alpha");
  sweep(a);
  sweep(b);

  auto push_a = a.start({"push", "--json"});
  auto push_b = b.start({"push", "--json"});
  const auto result_a = push_a->wait();
  const auto result_b = push_b->wait();
  BOOST_REQUIRE_MESSAGE(result_a.exit_code == 0, result_a.err);
  BOOST_REQUIRE_MESSAGE(result_b.exit_code == 0, result_b.err);

  const int64_t local_a = sessions_listed(a.helix("sessions --json"));
  const int64_t local_b = sessions_listed(b.helix("sessions --json"));
  BOOST_TEST(json::parse(result_a.out).at("sessions").to_number<int64_t>() == local_a);
  BOOST_TEST(json::parse(result_b.out).at("sessions").to_number<int64_t>() == local_b);
  BOOST_TEST(sessions_listed(b.helix("sessions --fleet --json")) == local_a + local_b);
  // Listed as locally: newest first, --limit keeps the newest, --reverse turns them over,
  // --until keeps those started by then; the table names each session's member.
  const auto all = json::parse(b.helix("sessions --fleet --json").out).as_array();
  std::vector<std::string> starts;
  for (const auto& row : all)
    starts.push_back(
        row.at("started_at").is_null() ? "" : json::value_to<std::string>(row.at("started_at")));
  BOOST_TEST(std::is_sorted(starts.rbegin(), starts.rend()));
  const auto newest = json::parse(b.helix("sessions --fleet --json --limit 2").out).as_array();
  BOOST_REQUIRE(newest.size() == 2u);
  BOOST_TEST(newest[0] == all[0]);
  BOOST_TEST(newest[1] == all[1]);
  const auto oldest_first =
      json::parse(b.helix("sessions --fleet --json --reverse").out).as_array();
  BOOST_REQUIRE(oldest_first.size() == all.size());
  BOOST_TEST(oldest_first.front() == all.back());
  BOOST_TEST(sessions_listed(b.helix("sessions --fleet --json --until 2000-01-01")) == 0);
  BOOST_TEST(sessions_listed(b.helix("sessions --fleet --json --until 2099-01-01")) ==
             std::count_if(starts.begin(), starts.end(), [](const auto& t) { return !t.empty(); }));
  Run table = b.helix("sessions --fleet");
  BOOST_REQUIRE_MESSAGE(table.exit_code == 0, table.err);
  BOOST_TEST(table.out.find("alice") != std::string::npos, table.out);
  BOOST_TEST(table.out.find("bob") != std::string::npos, table.out);
  BOOST_TEST(table.out.find(fmt::format("{} sessions in team alpha", local_a + local_b)) !=
                 std::string::npos,
             table.out);

  const auto totals_a = usage_totals(a.helix("usage --json"));
  const auto totals_b = usage_totals(b.helix("usage --json"));
  require_sum(usage_totals(a.helix("usage --fleet --json")), {totals_a, totals_b});

  // Day by day too, and per host and per member: each host's share is its own local total.
  auto days_a = rows_by(a.helix("usage --json"), "day");
  auto days_b = rows_by(b.helix("usage --json"), "day");
  auto fleet_days = rows_by(b.helix("usage --fleet --json"), "day");
  std::set<std::string> all_days;
  for (const auto& [day, row] : days_a) all_days.insert(day);
  for (const auto& [day, row] : days_b) all_days.insert(day);
  BOOST_TEST(fleet_days.size() == all_days.size());
  for (const auto& day : all_days) {
    std::vector<json::object> local;
    if (days_a.count(day)) local.push_back(days_a[day]);
    if (days_b.count(day)) local.push_back(days_b[day]);
    BOOST_REQUIRE_MESSAGE(fleet_days.count(day), day);
    require_sum(fleet_days[day], local);
  }
  auto by_host = rows_by(a.helix("usage --fleet --by host --json"), "host");
  BOOST_REQUIRE(by_host.size() == 2u);
  require_sum(by_host.at(a.host_id()), {totals_a});
  require_sum(by_host.at(b.host_id()), {totals_b});
  BOOST_TEST(by_host.at(a.host_id()).at("host_name").as_string().size() > 0u);
  Run hosts_table = a.helix("usage --fleet --by host");
  BOOST_REQUIRE_MESSAGE(hosts_table.exit_code == 0, hosts_table.err);
  for (const auto* host : {&a, &b})
    BOOST_TEST(hosts_table.out.find(fmt::format(
                   "{} ({})", by_host.at(host->host_id()).at("host_name").as_string().c_str(),
                   host->host_id())) != std::string::npos,
               hosts_table.out);
  // By model, repository and flavor: each key's fleet row is the sum of the hosts' rows.
  for (const char* by : {"model", "repo", "flavor"}) {
    const std::string flag = std::string(" --by ") + by + " --json";
    auto keyed_a = rows_by(a.helix("usage" + flag), by);
    auto keyed_b = rows_by(b.helix("usage" + flag), by);
    auto fleet = rows_by(a.helix("usage --fleet" + flag), by);
    std::set<std::string> keys;
    for (const auto& [key, row] : keyed_a) keys.insert(key);
    for (const auto& [key, row] : keyed_b) keys.insert(key);
    BOOST_TEST(fleet.size() == keys.size(), by);
    for (const auto& key : keys) {
      std::vector<json::object> local;
      if (keyed_a.count(key)) local.push_back(keyed_a[key]);
      if (keyed_b.count(key)) local.push_back(keyed_b[key]);
      BOOST_REQUIRE_MESSAGE(fleet.count(key), by << " " << key);
      require_sum(fleet[key], local);
    }
  }
  auto by_member = rows_by(a.helix("usage --fleet --by member --json"), "member");
  BOOST_REQUIRE(by_member.size() == 2u);
  require_sum(by_member.at("alice"), {totals_a});
  require_sum(by_member.at("bob"), {totals_b});

  // Pushing again sends nothing and changes nothing: no row doubles.
  Run again = a.helix("push --json");
  BOOST_REQUIRE_MESSAGE(again.exit_code == 0, again.err);
  BOOST_TEST(json::parse(again.out).at("sessions").to_number<int64_t>() == 0);
  Run full = b.helix("push --full --json");
  BOOST_REQUIRE_MESSAGE(full.exit_code == 0, full.err);
  BOOST_TEST(json::parse(full.out).at("sessions").to_number<int64_t>() == local_b);
  require_sum(usage_totals(a.helix("usage --fleet --json")), {totals_a, totals_b});
  BOOST_TEST(server.count("SELECT count(*) FROM helix_fleet.sessions WHERE team = 'alpha'") ==
             local_a + local_b);

  // Sessions, search and show read the same pushed rows; events only from the host that
  // pushes them.
  Run found = b.helix("search --fleet --json license");
  BOOST_REQUIRE_MESSAGE(found.exit_code == 0, found.err);
  const auto hits = json::parse(found.out).as_array();
  BOOST_REQUIRE(!hits.empty());
  BOOST_TEST(hits[0].at("member").as_string() == "alice");
  const std::string uid(hits[0].at("session_uid").as_string());
  Run shown = b.helix("show --fleet --json " + uid);
  BOOST_REQUIRE_MESSAGE(shown.exit_code == 0, shown.err);
  const auto copies = json::parse(shown.out).as_array();
  BOOST_REQUIRE(copies.size() == 1u);
  Run local = a.helix("show --json " + uid);
  const auto local_doc = json::parse(local.out).as_object();
  BOOST_TEST(copies[0].at("events").as_array().size() == local_doc.at("events").as_array().size());
  // Bob's host pushes no events: his sessions are found by their digests (only theirs: Alice's
  // sessions answer from their events).
  Run digest_hits = a.helix("search --fleet --json --kind digest verification");
  BOOST_REQUIRE_MESSAGE(digest_hits.exit_code == 0, digest_hits.err);
  const auto by_digest = json::parse(digest_hits.out).as_array();
  BOOST_REQUIRE(!by_digest.empty());
  for (const auto& hit : by_digest) BOOST_TEST(hit.at("member").as_string() == "bob");
  auto hit_count = [&](const std::string& args) {
    Run r = a.helix("search --fleet --json " + args);
    BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    return json::parse(r.out).as_array().size();
  };
  const auto codex_hits = hit_count("--flavor codex verification");
  BOOST_TEST(codex_hits >= 1u);
  BOOST_TEST(codex_hits <= by_digest.size());
  BOOST_TEST(hit_count("--flavor codex --kind user_msg verification") == 0u);
  BOOST_TEST(hit_count("--repo no-such-repo verification") == 0u);
  BOOST_TEST(hit_count("--since 2099-01-01 license") == 0u);
  BOOST_TEST(hit_count("--since 2000-01-01 license") == hits.size());
  Run missing = b.helix("show --fleet claude:no-such-session");
  BOOST_TEST(missing.exit_code == 1);
}

BOOST_AUTO_TEST_CASE(a_push_killed_midway_resumes_and_neither_doubles_nor_loses_a_row) {
  auto& server = FleetServer::get();
  server.add_member("killed", "kim", "kim-pw");
  FleetHost host("kim", "kim-pw", 1500);
  host.configure("killed", "batch_sessions = 20");
  sweep(host);
  const int64_t local = sessions_listed(host.helix("sessions --json"));
  BOOST_REQUIRE(local == 1500);

  auto push = host.start({"push"});
  wait_for_first_batch(*push, "killed");
  BOOST_REQUIRE_MESSAGE(push->kill(), "the push had finished before the kill");
  const int64_t partial = team_sessions("killed");
  BOOST_TEST_MESSAGE("killed after " << partial << " of " << local << " sessions");
  BOOST_TEST(partial > 0);
  BOOST_TEST(partial < local);

  Run resumed = host.helix("push --json");
  BOOST_REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.err);
  const auto report = json::parse(resumed.out).as_object();
  // It resumed from the mark: what the killed push committed is not sent again (beyond the
  // sessions of the mark's millisecond, which the fleet recognises).
  BOOST_TEST(report.at("sessions").to_number<int64_t>() == local - partial);
  BOOST_TEST(team_sessions("killed") == local);
  BOOST_TEST(server.count("SELECT count(DISTINCT session_uid) FROM helix_fleet.sessions WHERE "
                          "team = 'killed'") == local);
  require_sum(usage_totals(host.helix("usage --fleet --json")),
              {usage_totals(host.helix("usage --json"))});
}

BOOST_AUTO_TEST_CASE(a_server_stopped_mid_push_fails_the_push_clearly_and_the_next_resumes) {
  auto& server = FleetServer::get();
  server.add_member("restarted", "rita", "rita-pw");
  FleetHost host("rita", "rita-pw", 1500);
  host.configure("restarted", "batch_sessions = 20");
  sweep(host);

  auto push = host.start({"push"});
  wait_for_first_batch(*push, "restarted");
  server.cluster().stop();
  const auto stopped = push->wait();
  server.cluster().start();
  BOOST_TEST(stopped.exit_code == 3, stopped.err);
  BOOST_TEST(stopped.err.find("push stopped") != std::string::npos, stopped.err);
  BOOST_TEST(stopped.err.find("the next push resumes") != std::string::npos, stopped.err);
  const int64_t partial = team_sessions("restarted");
  BOOST_TEST_MESSAGE("server stopped after " << partial << " sessions");
  BOOST_TEST(partial > 0);
  BOOST_TEST(partial < 1500);

  Run resumed = host.helix("push --json");
  BOOST_REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.err);
  BOOST_TEST(json::parse(resumed.out).at("sessions").to_number<int64_t>() == 1500 - partial);
  BOOST_TEST(team_sessions("restarted") == 1500);
  require_sum(usage_totals(host.helix("usage --fleet --json")),
              {usage_totals(host.helix("usage --json"))});
}

BOOST_AUTO_TEST_CASE(a_hook_and_a_sweep_push_after_they_wrote_when_the_cadence_says_so) {
  auto& server = FleetServer::get();
  server.add_member("cadence", "cora", "cora-pw");
  FleetHost host("cora", "cora-pw", {"claude"});
  host.configure("cadence", "cadence = \"after-sweep\"");
  // An agent's Stop hook ingests its session, digests it and pushes it.
  const std::string uid = "cf564e14-9b07-42ad-8d9a-4faa1b79a0ed";
  helix::test::write_file(
      host.dir() / "event.json",
      fmt::format(
          R"({{"session_id":"{}","transcript_path":"{}","cwd":"/x","hook_event_name":"Stop"}})",
          uid,
          (host.dir() / "home/claude/projects/-samples-entire-2.0.76-tool-errors/"
                        "entire-2.0.76-tool-errors.jsonl")
              .string()));
  Run hook = host.helix("hook claude --foreground <" + (host.dir() / "event.json").string());
  BOOST_REQUIRE_MESSAGE(hook.exit_code == 0, hook.err);
  const std::string log = helix::test::read_file(host.dir() / "store/hook.log");
  BOOST_TEST(log.find("push: 1 sessions") != std::string::npos, log);
  BOOST_TEST(team_sessions("cadence") == 1);

  Run swept = host.helix("sweep");
  BOOST_REQUIRE_MESSAGE(swept.exit_code == 0, swept.err);
  BOOST_TEST(swept.out.find("push: ") != std::string::npos, swept.out);
  BOOST_TEST(team_sessions("cadence") == sessions_listed(host.helix("sessions --json")));
  Run nothing_new = host.helix("sweep");
  BOOST_TEST(nothing_new.out.find("push: ") == std::string::npos, nothing_new.out);
}

// TLS is libpq's, as configured in the connection string: with sslmode=verify-full a push
// reaches only a server whose certificate the given root signed. (Last in this suite: it turns
// TLS on in the suite's server.)
BOOST_AUTO_TEST_CASE(a_push_with_verify_full_trusts_only_the_configured_root_certificate) {
  auto& server = FleetServer::get();
  server.add_member("tls", "tess", "tess-pw");
  FleetHost host("tess", "tess-pw", {"claude"});
  sweep(host);
  // The server's certificate for 127.0.0.1 and a stranger's, in the directory the server owns.
  const std::filesystem::path certs = server.cluster().dir();
  struct stat owner {};
  BOOST_REQUIRE(::stat(certs.c_str(), &owner) == 0);
  for (const char* name : {"server", "stranger"}) {
    const std::string make = fmt::format(
        "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 -addext "
        "subjectAltName=IP:127.0.0.1 -keyout {0}/{1}.key -out {0}/{1}.crt >/dev/null 2>&1",
        certs.string(), name);
    BOOST_REQUIRE_MESSAGE(std::system(make.c_str()) == 0, make);
    for (const char* ext : {".key", ".crt"})
      BOOST_REQUIRE(
          ::chown((certs / (std::string(name) + ext)).c_str(), owner.st_uid, owner.st_gid) == 0);
    ::chmod((certs / (std::string(name) + ".key")).c_str(), 0600);
  }
  {
    auto db = server.cluster().superuser();
    db.exec(fmt::format("ALTER SYSTEM SET ssl_cert_file = '{}'", (certs / "server.crt").string()));
    db.exec(fmt::format("ALTER SYSTEM SET ssl_key_file = '{}'", (certs / "server.key").string()));
    db.exec("ALTER SYSTEM SET ssl = on");
    db.exec("SELECT pg_reload_conf()");
  }
  auto push_trusting = [&](const char* root) {
    helix::test::write_file(
        host.config_file(),
        fmt::format("[fleet]\nconnection = \"{} sslmode=verify-full sslrootcert={}\"\n"
                    "password_file = \"{}\"\nteam = \"tls\"\nhost_id_file = \"{}\"\n",
                    server.cluster().conninfo("tess"), (certs / root).string(),
                    (host.dir() / "password").string(), (host.dir() / "host-id").string()));
    return host.helix("push");
  };
  // The reload is asynchronous: wait until the server speaks TLS.
  Run trusted = push_trusting("server.crt");
  for (int i = 0; i < 50 && trusted.exit_code != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    trusted = push_trusting("server.crt");
  }
  BOOST_TEST(trusted.exit_code == 0, trusted.err);
  BOOST_TEST(team_sessions("tls") == sessions_listed(host.helix("sessions --json")));

  Run stranger = push_trusting("stranger.crt");
  BOOST_TEST(stranger.exit_code == 3);
  BOOST_TEST(stranger.err.find("certificate verify failed") != std::string::npos, stranger.err);

  auto db = server.cluster().superuser();
  db.exec("ALTER SYSTEM RESET ssl");
  db.exec("SELECT pg_reload_conf()");
}

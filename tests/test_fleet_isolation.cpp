// Isolation per team, enforced by PostgreSQL (roles and row-level security), not by helix-host:
// a member of one team can neither read nor write another team's rows, through any command or
// through raw SQL with the same credentials; within a team a member writes only their own
// rows; an administrator sees every team; the MCP server's team tools answer within the same
// team and repository scope.
#define BOOST_TEST_MODULE fleet_isolation
#include <boost/test/unit_test.hpp>

#include <fmt/format.h>

#include <boost/json.hpp>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "fleet_world.hpp"

namespace json = boost::json;
using helix::test::FleetHost;
using helix::test::FleetServer;
using helix::test::Run;
using helix::test::SkipWithoutPostgres;
using helix::test::usage_totals;

namespace {

BOOST_TEST_GLOBAL_FIXTURE(SkipWithoutPostgres);

constexpr const char* kTables[] = {"hosts", "sessions", "digests", "usage_days", "events"};

// Two teams, each with a host that pushed its sessions and events; team A has a second member.
struct Teams {
  FleetHost a{"ann", "ann-pw", {"claude"}};
  FleetHost b{"ben", "ben-pw", {"codex", "grok"}};
  Teams() {
    auto& server = FleetServer::get();
    server.add_member("team_a", "ann", "ann-pw");
    server.add_member("team_a", "art", "art-pw");
    server.add_member("team_b", "ben", "ben-pw");
    server.add_admin("ada", "ada-pw");
    for (auto* host : {&a, &b}) {
      host->configure(host == &a ? "team_a" : "team_b", "events = true");
      Run swept = host->helix("sweep --quiet");
      BOOST_REQUIRE_MESSAGE(swept.exit_code == 0, swept.err);
      Run pushed = host->helix("push");
      BOOST_REQUIRE_MESSAGE(pushed.exit_code == 0, pushed.err);
    }
  }
};

Teams& teams() {
  static Teams t;
  return t;
}

int64_t count_as(helix::pg::Connection& db, const std::string& sql) {
  return db.query(sql).integer(0, 0);
}

// `sql` run by `db` fails with SQLSTATE `state` (42501: insufficient privilege, which row-level
// security raises for a row its policy refuses).
void refused(helix::pg::Connection& db, const std::string& sql, const std::string& state) {
  try {
    db.exec(sql);
  } catch (const helix::pg::Error& e) {
    BOOST_TEST(e.sqlstate() == state, sql << " -> " << e.what());
    return;
  }
  BOOST_ERROR("not refused: " << sql);
}

}  // namespace

BOOST_AUTO_TEST_CASE(no_command_shows_a_member_another_teams_rows) {
  auto& t = teams();
  Run sessions = t.a.helix("sessions --fleet --json");
  BOOST_REQUIRE_MESSAGE(sessions.exit_code == 0, sessions.err);
  const auto listed = json::parse(sessions.out).as_array();
  Run local = t.a.helix("sessions --json");
  BOOST_TEST(listed.size() == json::parse(local.out).as_array().size());
  for (const auto& s : listed) BOOST_TEST(s.at("team").as_string() == "team_a");

  const auto mine = usage_totals(t.a.helix("usage --fleet --json"));
  const auto local_totals = usage_totals(t.a.helix("usage --json"));
  BOOST_TEST(json::serialize(mine) == json::serialize(local_totals));

  // "zebrawomble"-like words: the Codex fixture's mock reply is only in team B's events.
  Run theirs = t.b.helix("search --fleet --json hello-from-mock");
  BOOST_REQUIRE_MESSAGE(theirs.exit_code == 0, theirs.err);
  const auto found = json::parse(theirs.out).as_array();
  BOOST_REQUIRE(!found.empty());
  Run hidden = t.a.helix("search --fleet --json hello-from-mock");
  BOOST_TEST(json::parse(hidden.out).as_array().empty(), hidden.out);
  const std::string uid(found[0].at("session_uid").as_string());
  BOOST_TEST(t.b.helix("show --fleet " + uid).exit_code == 0);
  BOOST_TEST(t.a.helix("show --fleet " + uid).exit_code == 1);

  // Naming the other team in the configuration changes nothing: the database decides.
  const std::string config = helix::test::read_file(t.a.config_file());
  t.a.configure("team_b", "events = true");
  Run push = t.a.helix("push");
  BOOST_TEST(push.exit_code == 3);
  BOOST_TEST(push.err.find("row-level security") != std::string::npos, push.err);
  Run none = t.a.helix("sessions --fleet --json");
  BOOST_TEST(json::parse(none.out).as_array().empty(), none.out);
  const auto nothing = usage_totals(t.a.helix("usage --fleet --json"));
  BOOST_TEST(nothing.at("input_tokens").to_number<int64_t>() == 0);
  BOOST_TEST(t.a.helix("show --fleet " + uid).exit_code == 1);
  helix::test::write_file(t.a.config_file(), config);
}

BOOST_AUTO_TEST_CASE(raw_sql_with_a_members_credentials_cannot_reach_another_team) {
  auto& t = teams();
  auto& server = FleetServer::get();
  auto ann = server.cluster().as("ann", "ann-pw");
  for (const char* table : kTables) {
    const int64_t theirs = server.count(
        fmt::format("SELECT count(*) FROM helix_fleet.{} WHERE team = 'team_b'", table));
    BOOST_TEST(theirs > 0, table);
    BOOST_TEST(count_as(ann, fmt::format("SELECT count(*) FROM helix_fleet.{} WHERE team = "
                                         "'team_b'",
                                         table)) == 0,
               table);
    BOOST_TEST(count_as(ann, fmt::format("SELECT count(*) FROM helix_fleet.{}", table)) ==
                   server.count(fmt::format(
                       "SELECT count(*) FROM helix_fleet.{} WHERE team = 'team_a'", table)),
               table);
    // Updates and deletes of their rows find nothing to change.
    BOOST_TEST(ann.query(fmt::format("UPDATE helix_fleet.{} SET member = 'ann' WHERE team = "
                                     "'team_b'",
                                     table))
                       .affected() == 0,
               table);
    BOOST_TEST(ann.query(fmt::format("DELETE FROM helix_fleet.{} WHERE team = 'team_b'", table))
                       .affected() == 0,
               table);
    BOOST_TEST(server.count(fmt::format("SELECT count(*) FROM helix_fleet.{} WHERE team = 'team_b'",
                                        table)) == theirs,
               table);
  }
  const std::string month(server.cluster()
                              .superuser()
                              .query("SELECT min(month) FROM helix_fleet.usage_days")
                              .text(0, 0));
  // Writing into the other team, or as another member, is refused by the policies.
  auto usage_row = [&](const std::string& team, const std::string& member) {
    return fmt::format(
        "INSERT INTO helix_fleet.usage_days (team, member, host_id, session_uid, month, day, "
        "model, flavor, calls, input_tokens, output_tokens, cache_read_tokens, "
        "cache_creation_tokens, reasoning_tokens) VALUES ('{}', '{}', 'h', 'forged', '{}', '{}', "
        "'m', 'claude', 1, 1, 1, 1, 1, 1)",
        team, member, month, month);
  };
  refused(ann, usage_row("team_b", "ann"), "42501");
  refused(ann, usage_row("team_a", "art"), "42501");
  BOOST_TEST(ann.query(usage_row("team_a", "ann")).affected() == 1);  // the control: allowed
  ann.exec("DELETE FROM helix_fleet.usage_days WHERE session_uid = 'forged'");
  refused(ann,
          "INSERT INTO helix_fleet.hosts (team, host_id, host_name) VALUES ('team_b', 'x', 'x')",
          "42501");
  // Around the policies: partitions directly, the other team's role, the policies themselves.
  const std::string partition(server.cluster()
                                  .superuser()
                                  .query("SELECT 'helix_fleet.usage_days' || to_char(min(month), "
                                         "'_YYYY_MM') FROM helix_fleet.usage_days")
                                  .text(0, 0));
  refused(ann, "SELECT count(*) FROM " + partition, "42501");
  refused(ann, "SET ROLE helix_team_team_b", "42501");
  refused(ann, "ALTER TABLE helix_fleet.sessions DISABLE ROW LEVEL SECURITY", "42501");
  refused(ann, "DROP POLICY team_reads ON helix_fleet.sessions", "42501");
  refused(ann, "GRANT helix_team_team_b TO ann", "42501");
  refused(ann, "ALTER ROLE ann BYPASSRLS", "42501");
  (void)t;
}

BOOST_AUTO_TEST_CASE(within_a_team_members_read_everything_and_change_only_their_own_rows) {
  auto& t = teams();
  auto& server = FleetServer::get();
  auto art = server.cluster().as("art", "art-pw");
  const int64_t anns = server.count(
      "SELECT count(*) FROM helix_fleet.sessions WHERE team = 'team_a' AND member = 'ann'");
  BOOST_REQUIRE(anns > 0);
  BOOST_TEST(count_as(art, "SELECT count(*) FROM helix_fleet.sessions WHERE member = 'ann'") ==
             anns);
  BOOST_TEST(art.query("UPDATE helix_fleet.sessions SET title = 'mine now' WHERE member = 'ann'")
                 .affected() == 0);
  BOOST_TEST(art.query("DELETE FROM helix_fleet.events WHERE member = 'ann'").affected() == 0);

  // Art pushing from Ann's machine (her host id) is told whose host it is.
  helix::test::write_file(t.a.dir() / "password", "art-pw\n");
  const std::string config = helix::test::read_file(t.a.config_file());
  helix::test::write_file(t.a.config_file(), fmt::format("{}", [&] {
                            std::string c = config;
                            c.replace(c.find("user=ann"), 8, "user=art");
                            return c;
                          }()));
  Run push = t.a.helix("push --full");
  BOOST_TEST(push.exit_code == 3);
  BOOST_TEST(push.err.find("was pushed by the login ann, not art") != std::string::npos, push.err);
  helix::test::write_file(t.a.config_file(), config);
  helix::test::write_file(t.a.dir() / "password", "ann-pw\n");
}

BOOST_AUTO_TEST_CASE(search_under_row_level_security_still_uses_its_indexes) {
  auto& t = teams();
  auto ann = FleetServer::get().cluster().as("ann", "ann-pw");
  ann.exec("SET enable_seqscan = off");  // tiny tables: make the index the planner's only choice
  for (const char* table : {"digests", "events"}) {
    auto plan =
        ann.query(fmt::format("EXPLAIN SELECT session_uid FROM helix_fleet.{} WHERE search @@ "
                              "websearch_to_tsquery('simple', 'license')",
                              table));
    std::string text;
    for (int i = 0; i < plan.rows(); ++i) text += std::string(plan.text(i, 0)) + "\n";
    BOOST_TEST(text.find("Index Cond: (search @@") != std::string::npos, text);
  }
  (void)t;
}

BOOST_AUTO_TEST_CASE(an_administrator_sees_and_counts_every_team) {
  auto& t = teams();
  auto& server = FleetServer::get();
  auto ada = server.cluster().as("ada", "ada-pw");
  for (const char* table : kTables)
    BOOST_TEST(count_as(ada, fmt::format("SELECT count(*) FROM helix_fleet.{}", table)) ==
                   server.count(fmt::format("SELECT count(*) FROM helix_fleet.{}", table)),
               table);
  BOOST_TEST(count_as(ada, "SELECT count(DISTINCT team) FROM helix_fleet.sessions") == 2);
  (void)t;
}

namespace {

// The answers (by request id) of `helix-host mcp <flags>` on `host` to `calls`: tools/call
// requests numbered from 2, after initialize (1) and a tools/list (100).
std::map<int64_t, json::object> mcp_answers(const FleetHost& host, const std::string& flags,
                                            const std::vector<json::object>& calls) {
  std::string input =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
      R"("capabilities":{},"clientInfo":{"name":"test_fleet_isolation","version":"1"}}})"
      "\n"
      R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
      "\n"
      R"({"jsonrpc":"2.0","id":100,"method":"tools/list"})"
      "\n";
  int64_t id = 2;
  for (const auto& call : calls)
    input += json::serialize(json::object{
                 {"jsonrpc", "2.0"}, {"id", id++}, {"method", "tools/call"}, {"params", call}}) +
             "\n";
  helix::test::write_file(host.dir() / "mcp-input.ndjson", input);
  Run served = host.helix("mcp " + flags + " <" + (host.dir() / "mcp-input.ndjson").string());
  BOOST_REQUIRE_MESSAGE(served.exit_code == 0, served.err);
  std::map<int64_t, json::object> answers;
  std::istringstream lines(served.out);
  for (std::string line; std::getline(lines, line);) {
    const auto message = json::parse(line).as_object();
    if (message.contains("id")) answers[message.at("id").to_number<int64_t>()] = message;
  }
  return answers;
}

json::object tool_call(const char* name, json::object arguments) {
  return {{"name", name}, {"arguments", std::move(arguments)}};
}

const json::object& structured(const std::map<int64_t, json::object>& answers, int64_t id) {
  const auto& result = answers.at(id).at("result").as_object();
  BOOST_REQUIRE_MESSAGE(!result.at("isError").as_bool(), json::serialize(result));
  return result.at("structuredContent").as_object();
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_mcp_server_answers_from_the_fleet_within_the_team_and_the_scope) {
  auto& t = teams();
  const std::vector<json::object> calls = {tool_call("team_usage", {{"by", "member"}}),
                                           tool_call("team_search", {{"query", "hello-from-mock"}}),
                                           tool_call("team_search", {{"query", "license"}})};
  const auto ann = mcp_answers(t.a, "--fleet --all-repos", calls);
  const auto ben = mcp_answers(t.b, "--fleet --all-repos", calls);

  std::set<std::string> listed;
  for (const auto& tool : ann.at(100).at("result").at("tools").as_array())
    listed.insert(std::string(tool.at("name").as_string()));
  BOOST_TEST(listed.count("team_usage") == 1u);
  BOOST_TEST(listed.count("team_search") == 1u);

  // Usage: the team's totals as `usage --fleet` has them, every row the team's own member's.
  for (const auto* side : {&ann, &ben}) {
    const FleetHost& host = side == &ann ? t.a : t.b;
    const auto& usage = structured(*side, 2);
    const auto cli = usage_totals(host.helix("usage --fleet --json"));
    for (const char* f : {"input_tokens", "output_tokens", "cache_read_tokens"})
      BOOST_TEST(usage.at("totals").at(f).to_number<int64_t>() == cli.at(f).to_number<int64_t>(),
                 f);
    BOOST_TEST(std::abs(usage.at("totals").at("cost_usd").to_number<double>() -
                        cli.at("cost_usd").to_number<double>()) < 1e-5);
    const auto& rows = usage.at("rows").as_array();
    BOOST_REQUIRE(rows.size() == 1u);
    BOOST_TEST(rows[0].at("key").as_string() == host.login());
  }
  // Search: team B's words are found by B's member only; team A's by A's only.
  BOOST_TEST(structured(ann, 3).at("hits").as_array().empty());
  BOOST_TEST(!structured(ben, 3).at("hits").as_array().empty());
  const auto& license = structured(ann, 4).at("hits").as_array();
  BOOST_REQUIRE(!license.empty());
  for (const auto& hit : license) BOOST_TEST(hit.at("member").as_string() == "ann");
  for (const auto& hit : structured(ben, 4).at("hits").as_array())
    BOOST_TEST(hit.at("member").as_string() == "ben");

  // The repository scope holds too: without --all-repos, another repository is refused.
  const auto scoped =
      mcp_answers(t.a, "--fleet", {tool_call("team_usage", {{"repo", "some-other-repository"}})});
  const auto& refused_repo = scoped.at(2).at("result").as_object();
  BOOST_TEST(refused_repo.at("isError").as_bool());
  // Without --fleet the server has no team tools.
  const auto local_only = mcp_answers(t.a, "--all-repos", {});
  for (const auto& tool : local_only.at(100).at("result").at("tools").as_array())
    BOOST_TEST(tool.at("name").as_string().subview().substr(0, 5) != "team_");
}

BOOST_AUTO_TEST_CASE(mcp_with_fleet_and_no_fleet_configured_says_what_to_configure) {
  auto& t = teams();
  const std::string config = helix::test::read_file(t.a.config_file());
  helix::test::write_file(t.a.config_file(), "");
  Run r = t.a.helix("mcp --fleet --all-repos </dev/null");
  helix::test::write_file(t.a.config_file(), config);
  BOOST_TEST(r.exit_code == 2, r.err);
  BOOST_TEST(r.err.find("no fleet database is configured") != std::string::npos, r.err);
}

// Configuration: defaults, the §5.1 knob names, sizes with units, and strict error messages.
#define BOOST_TEST_MODULE config
#include <boost/test/unit_test.hpp>

#include "config/config.hpp"
#include "store/store.hpp"
#include "temp_dir.hpp"

#include <cstdlib>

using namespace helix;

namespace {
bool mentions(const std::exception& e, const std::string& text) {
  return std::string(e.what()).find(text) != std::string::npos;
}
}  // namespace

BOOST_AUTO_TEST_CASE(sizes_accept_binary_and_decimal_units) {
  BOOST_TEST(parse_size("4GiB") == int64_t{4} << 30);
  BOOST_TEST(parse_size("500MB") == 500000000);
  BOOST_TEST(parse_size("64 KiB") == 65536);
  BOOST_TEST(parse_size("1.5GiB") == int64_t{3} << 29);
  BOOST_TEST(parse_size("1024") == 1024);
  BOOST_CHECK_THROW(parse_size("lots"), std::invalid_argument);
  BOOST_CHECK_THROW(parse_size("4 parsecs"), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(defaults_follow_the_design_document) {
  Config c = load_config("");
  BOOST_TEST(c.retention.raw_soft_cap_bytes == int64_t{4} << 30);
  BOOST_TEST(c.retention.raw_hard_cap_bytes == int64_t{6} << 30);
  BOOST_TEST(c.retention.raw_max_age_days == 45);
  BOOST_TEST(c.retention.distilled_cap_bytes == int64_t{1} << 30);
  BOOST_TEST(c.retention.cadence == "daily");
}

BOOST_AUTO_TEST_CASE(a_file_sets_every_section) {
  test::TempDir dir;
  test::write_file(dir / "helix.toml", R"(
[store]
dir = "~/helix-store"
[plugins]
dirs = ["/opt/helix/plugins"]
[sources.claude]
roots = ["/data/claude"]
[domains]
agentic-resources = "helix_forge"
[adapters.claude]
extra = true
[session_memory.retention]
raw_soft_cap_bytes = "500MB"
raw_hard_cap_bytes = "1GiB"
raw_max_age_days = 10
distilled_cap_bytes = "64MiB"
cadence = "weekly"
)");
  ::setenv("HOME", dir.path().c_str(), 1);
  Config c = load_config((dir / "helix.toml").string());
  BOOST_TEST(c.store_dir == (dir / "helix-store").string());
  BOOST_TEST(c.plugin_dirs.size() == 1u);
  BOOST_TEST(c.source_roots["claude"].front() == "/data/claude");
  BOOST_TEST(c.repo_domains["agentic-resources"] == "helix_forge");
  BOOST_TEST(c.adapter_settings["claude"] == R"({"extra":true})");
  BOOST_TEST(c.retention.raw_soft_cap_bytes == 500000000);
  BOOST_TEST(c.retention.raw_hard_cap_bytes == int64_t{1} << 30);
  BOOST_TEST(c.retention.raw_max_age_days == 10);
  BOOST_TEST(c.retention.cadence == "weekly");
  const std::string printed = to_toml(c);
  BOOST_TEST(printed.find("raw_soft_cap_bytes = 500000000") != std::string::npos);
  BOOST_TEST(printed.find("[session_memory.retention]") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(mcp_repos_widen_the_servers_scope_and_print_back) {
  test::TempDir dir;
  test::write_file(dir / "helix.toml", "[mcp]\nrepos = [\"docs\", \"infra\"]\n");
  Config c = load_config((dir / "helix.toml").string());
  BOOST_TEST((c.mcp_repos == std::vector<std::string>{"docs", "infra"}));
  test::write_file(dir / "printed.toml", to_toml(c));
  BOOST_TEST((load_config((dir / "printed.toml").string()).mcp_repos == c.mcp_repos));
  test::write_file(dir / "bad.toml", "[mcp]\nrepo = [\"docs\"]\n");
  BOOST_CHECK_EXCEPTION(load_config((dir / "bad.toml").string()), std::runtime_error,
                        [&](const std::exception& e) {
                          return mentions(e, "bad.toml:2") && mentions(e, "'mcp.repo'");
                        });
}

BOOST_AUTO_TEST_CASE(mistakes_name_the_file_line_and_setting) {
  test::TempDir dir;
  test::write_file(dir / "a.toml", "[session_memory.retention]\nraw_soft_cap = 5\n");
  BOOST_CHECK_EXCEPTION(
      load_config((dir / "a.toml").string()), std::runtime_error, [&](const std::exception& e) {
        return mentions(e, "a.toml:2") &&
               mentions(e, "unknown setting 'session_memory.retention.raw_soft_cap'");
      });
  test::write_file(dir / "b.toml", "[session_memory.retention]\ncadence = \"hourly\"\n");
  BOOST_CHECK_EXCEPTION(
      load_config((dir / "b.toml").string()), std::runtime_error,
      [](const std::exception& e) { return mentions(e, "daily, weekly or on-hook"); });
  test::write_file(dir / "c.toml", "[session_memory.retention]\nraw_soft_cap_bytes = \"9GiB\"\n");
  BOOST_CHECK_EXCEPTION(load_config((dir / "c.toml").string()), std::runtime_error,
                        [](const std::exception& e) { return mentions(e, "must not exceed"); });
  test::write_file(dir / "d.toml", "[store\n");
  BOOST_CHECK_EXCEPTION(load_config((dir / "d.toml").string()), std::runtime_error,
                        [](const std::exception& e) { return mentions(e, "d.toml:1"); });
}

BOOST_AUTO_TEST_CASE(the_store_file_follows_option_then_environment_then_config) {
  ::setenv("HELIX_STORE_DB", "/env/mem.db", 1);
  BOOST_TEST(resolve_store_file("/opt/store", "/cfg") == "/opt/store/helix.db");
  BOOST_TEST(resolve_store_file("", "/cfg") == "/env/mem.db");
  ::unsetenv("HELIX_STORE_DB");
  BOOST_TEST(resolve_store_file("", "/cfg") == "/cfg/helix.db");
}

BOOST_AUTO_TEST_CASE(redaction_rules_allow_lists_and_disabled_rules_are_read_and_printed) {
  test::TempDir dir;
  test::write_file(dir / "helix.toml", R"(
[redaction]
disable = ["jwt"]
allow = ["^ghp_0000"]

[[redaction.rules]]
id = "acme-token"
regex = '\b(acme_[0-9a-f]{32})\b'

[[redaction.rules]]
id = "acme-url"
regex = 'acme://[^ ]+'
group = 0
)");
  Config c = load_config((dir / "helix.toml").string());
  BOOST_TEST(c.redaction.disable == std::vector<std::string>{"jwt"});
  BOOST_TEST(c.redaction.allow == std::vector<std::string>{"^ghp_0000"});
  BOOST_TEST_REQUIRE(c.redaction.rules.size() == 2u);
  BOOST_TEST(c.redaction.rules[0].id == "acme-token");
  BOOST_TEST(c.redaction.rules[0].group == -1);
  BOOST_TEST(c.redaction.rules[1].group == 0);
  const std::string toml = to_toml(c);
  BOOST_TEST(toml.find("[[redaction.rules]]") != std::string::npos);
  BOOST_TEST(toml.find("acme_[0-9a-f]{32}") != std::string::npos);
  // What `config` prints reads back as the same configuration.
  test::write_file(dir / "printed.toml", toml);
  Config again = load_config((dir / "printed.toml").string());
  BOOST_TEST(again.redaction.rules.size() == 2u);
  BOOST_TEST(again.redaction.disable == c.redaction.disable);
}

BOOST_AUTO_TEST_CASE(redaction_mistakes_name_the_file_line_and_rule) {
  test::TempDir dir;
  auto error_for = [&](const std::string& body) {
    test::write_file(dir / "bad.toml", body);
    try {
      load_config((dir / "bad.toml").string());
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto has = [](const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  };
  std::string e = error_for("[redaction]\nallow = ['(?<=x)y']\n");
  BOOST_TEST(has(e, "bad.toml:2"), e);
  BOOST_TEST(has(e, "not valid RE2"), e);
  e = error_for("[redaction]\ndisable = ['no-such-rule']\n");
  BOOST_TEST(has(e, "no built-in rule 'no-such-rule'"), e);
  e = error_for("[redaction]\nredact = true\n");
  BOOST_TEST(has(e, "unknown setting 'redaction.redact'"), e);
  e = error_for("[[redaction.rules]]\nid = 'x'\nregex = '(a'\n");
  BOOST_TEST(has(e, "bad.toml:1"), e);
  BOOST_TEST(has(e, "rule 'x' is not valid RE2"), e);
  e = error_for("[[redaction.rules]]\nid = 'x'\nregex = 'a'\ngroup = 1\n");
  BOOST_TEST(has(e, "0 capturing group"), e);
  e = error_for(
      "[[redaction.rules]]\nid = 'x'\nregex = 'a'\n[[redaction.rules]]\nid = 'x'\n"
      "regex = 'b'\n");
  BOOST_TEST(has(e, "'x' is used twice"), e);
  e = error_for("[[redaction.rules]]\nregex = 'a'\n");
  BOOST_TEST(has(e, "needs both id and regex"), e);
}

BOOST_AUTO_TEST_CASE(the_fleet_section_is_read_printed_and_checked) {
  test::TempDir dir;
  test::write_file(dir / "helix.toml", R"([fleet]
connection = "host=db.example.com dbname=helix user=alice sslmode=verify-full"
password_file = "~/fleet-password"
team = "payments"
events = true
cadence = "after-sweep"
batch_sessions = 50
)");
  const char* home = std::getenv("HOME");
  const std::string saved_home = home ? home : "";
  ::setenv("HOME", "/home/alice", 1);
  Config c = load_config((dir / "helix.toml").string());
  ::setenv("HOME", saved_home.c_str(), 1);
  BOOST_TEST(c.fleet.connection ==
             "host=db.example.com dbname=helix user=alice sslmode=verify-full");
  BOOST_TEST(c.fleet.password_file == "/home/alice/fleet-password");
  BOOST_TEST(c.fleet.team == "payments");
  BOOST_TEST(c.fleet.events);
  BOOST_TEST(c.fleet.cadence == "after-sweep");
  BOOST_TEST(c.fleet.batch_sessions == 50);
  BOOST_TEST(to_toml(c).find("team = 'payments'") != std::string::npos, to_toml(c));
  BOOST_TEST(load_config("").fleet.connection.empty());  // no [fleet]: no fleet

  auto rejects = [&](const std::string& body, const std::string& why) {
    test::write_file(dir / "bad.toml", "[fleet]\n" + body + "\n");
    try {
      load_config((dir / "bad.toml").string());
      BOOST_ERROR("accepted: " << body);
    } catch (const std::runtime_error& e) {
      BOOST_TEST(mentions(e, "bad.toml:2"), e.what());
      BOOST_TEST(mentions(e, why), e.what());
    }
  };
  rejects("cadence = \"hourly\"", "must be manual or after-sweep");
  rejects("events = \"yes\"", "must be true or false");
  rejects("batch_sessions = 0", "must be 1 to 100000");
  rejects("password = \"secret\"", "unknown setting 'fleet.password'");
}

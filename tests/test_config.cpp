// Configuration: defaults, the §5.1 knob names, sizes with units, and strict error messages.
#define BOOST_TEST_MODULE config
#include <boost/test/unit_test.hpp>

#include "config.hpp"
#include "store.hpp"
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

BOOST_AUTO_TEST_CASE(mistakes_name_the_file_line_and_setting) {
  test::TempDir dir;
  test::write_file(dir / "a.toml", "[session_memory.retention]\nraw_soft_cap = 5\n");
  BOOST_CHECK_EXCEPTION(load_config((dir / "a.toml").string()), std::runtime_error,
                        [&](const std::exception& e) {
                          return mentions(e, "a.toml:2") &&
                                 mentions(e, "unknown setting 'session_memory.retention.raw_soft_cap'");
                        });
  test::write_file(dir / "b.toml", "[session_memory.retention]\ncadence = \"hourly\"\n");
  BOOST_CHECK_EXCEPTION(load_config((dir / "b.toml").string()), std::runtime_error,
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

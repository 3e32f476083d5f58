// ABI compatibility across minors: plugins built against the frozen SDK headers of ABI 1.0, 1.1
// and 1.2 (tests/abi/) load and work on this host; records shorter than the ABI allows, placed
// before an unmapped page, are dropped without the host reading past them; the host reads an
// older, shorter struct into a grown one with the rest zero; and a plugin built with today's SDK
// that needs nothing new passes an older (1.2) host's load checks.
#define BOOST_TEST_MODULE abi_compat
#include <boost/test/unit_test.hpp>

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <filesystem>
#include <string>

#include "helix_command.hpp"
#include "host_1_2_checks.h"
#include "plugins/abi_struct.hpp"
#include "plugins/adapter_instance.hpp"
#include "plugins/digester_instance.hpp"
#include "plugins/plugin_registry.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using helix::test::Run;

namespace {

const fs::path kRoot = HELIX_TEST_PLUGINS_ROOT;

bool contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return true;
  BOOST_TEST_MESSAGE("'" << part << "' not found in: " << text);
  return false;
}

// `helix-host <args>` with HOME in `home`, the plugins of `plugin_dirs` and the store in `home`.
Run run_host(const helix::test::TempDir& home, const std::string& env,
             const std::vector<fs::path>& plugin_dirs, const std::string& args) {
  std::string plugins;
  for (const auto& dir : plugin_dirs) plugins += " --plugins " + dir.string();
  return helix::test::run_command(
      fmt::format("HOME={0} {1}{2}{3} --store {0}/store {4} 2>{0}/err", home.path().string(), env,
                  HELIX_TEST_HOST_BINARY, plugins, args),
      home.path() / "err");
}

// The descriptor a plugin file returns, loaded on its own (as an older host would load it).
struct RawPlugin {
  void* handle;
  const void* descriptor = nullptr;
  explicit RawPlugin(const fs::path& file) : handle(::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL)) {
    BOOST_TEST_REQUIRE(handle, ::dlerror());
    using Query = const void* (*)(uint32_t, uint32_t);
    auto query = reinterpret_cast<Query>(::dlsym(handle, "helix_plugin_query"));
    BOOST_TEST_REQUIRE(query);
    descriptor = query(1, 2);  // what a 1.2 host passes
  }
  ~RawPlugin() { ::dlclose(handle); }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(older_plugins_on_this_host)

// An adapter built against each earlier SDK loads, says it was built for that minor, offers no
// extensions, and every record member it fills arrives intact.
BOOST_AUTO_TEST_CASE(adapters_built_against_1_0_1_1_and_1_2_load_and_parse) {
  for (const auto& [dir, name, minor] :
       {std::tuple{"abi_1_0", "compat10", 0u}, std::tuple{"abi_1_1", "compat11", 1u},
        std::tuple{"abi_1_2", "compat12", 2u}}) {
    BOOST_TEST_CONTEXT(name) {
      helix::PluginRegistry registry;
      registry.load_directory(kRoot / dir);
      BOOST_TEST(registry.refused().empty());
      const helix::PluginInfo* p = registry.find(name);
      BOOST_TEST_REQUIRE(p);
      BOOST_TEST(p->abi_minor == minor);
      BOOST_TEST(p->adapter->struct_size == HELIX_ADAPTER_VTABLE_SIZE_1_0);
      BOOST_TEST(p->adapter->get_extension == nullptr);  // beyond its table: read as zero
      BOOST_TEST(!p->resume.has_value());

      helix::AdapterInstance adapter(*p);
      BOOST_TEST(adapter.probe("/h/s-7.compat", "x", 1) == 90);
      helix::RecordBatch batch;
      adapter.parse("/h/s-7.compat", HELIX_LAYOUT_LINES, 100, "user_msg hello\nthinking hmm\n", "",
                    batch);
      BOOST_TEST_REQUIRE(batch.sessions.size() == 1u);
      BOOST_TEST(batch.sessions[0].native_id == "s-7");
      BOOST_TEST(batch.sessions[0].cwd == "/work/compat");
      BOOST_TEST(batch.sessions[0].started_at_ms == 1'700'000'000'000);
      BOOST_TEST_REQUIRE(batch.events.size() == 2u);
      BOOST_TEST(batch.events[1].kind == "thinking");
      BOOST_TEST(batch.events[1].text == "hmm");
      BOOST_TEST(batch.events[1].source_offset == 115u);
      BOOST_TEST(batch.events[1].uid == "u115");
      BOOST_TEST(batch.events[1].model == "compat-model");  // the last member of helix_event
      BOOST_TEST_REQUIRE(batch.usage.size() == 2u);
      BOOST_TEST(batch.usage[0].reasoning_tokens == 5);
      BOOST_TEST(batch.usage[0].cost_usd == -1.0);  // the last member of helix_usage
      BOOST_TEST(batch.saved_state.value_or("") == "after=128");
    }
  }
}

// Digesters built against 1.1 (no resume_session) and 1.2 (with it) digest, and only the 1.2
// one resumes.
BOOST_AUTO_TEST_CASE(digesters_built_against_1_1_and_1_2_digest_and_resume) {
  helix::SessionRow session;
  session.uid = "compat:s-1";
  session.native_id = "s-1";
  std::vector<helix::EventRow> events(3);
  for (auto& e : events) e.kind = "user_msg";
  helix::StoredUsage usage;
  usage.input_tokens = 4;
  usage.output_tokens = 6;
  for (const auto& [dir, name, resumes] :
       {std::tuple{"abi_1_1", "digest11", false}, std::tuple{"abi_1_2", "digest12", true}}) {
    BOOST_TEST_CONTEXT(name) {
      helix::PluginRegistry registry;
      registry.load_directory(kRoot / dir);
      const helix::PluginInfo* p = registry.find(name);
      BOOST_TEST_REQUIRE(p);
      BOOST_TEST(p->digester->get_extension == nullptr);
      helix::DigesterInstance digester(*p);
      BOOST_TEST(digester.can_resume() == resumes);
      const auto out = digester.run(session, events, {usage});
      const auto doc = boost::json::parse(out.json).as_object();
      BOOST_TEST(doc.at("events").as_int64() == 3);
      BOOST_TEST(doc.at("tokens").as_int64() == 10);
      BOOST_TEST(out.state == (resumes ? "3" : ""));
      if (resumes) {  // two more events on top of the saved state: five in all
        const auto grown = digester.run(session, {events[0], events[1]}, {usage}, out.state);
        BOOST_TEST(boost::json::parse(grown.json).at("events").as_int64() == 5);
      }
    }
  }
}

// The real binary sweeps and digests with plugins built against 1.0 (adapter) and 1.2
// (digester) and nothing else.
BOOST_AUTO_TEST_CASE(a_sweep_with_old_plugins_stores_and_digests) {
  helix::test::TempDir home;
  helix::test::write_file(home.path() / "compat" / "s-1.compat", "user_msg hi\nthinking on it\n");
  helix::test::write_file(home.path() / "helix.toml", "[digest]\ndigesters = [\"digest12\"]\n");
  const std::string env = fmt::format("HELIX_COMPAT_HOME={}/compat ", home.path().string());
  const std::vector<fs::path> dirs = {kRoot / "abi_1_0", kRoot / "abi_1_2"};
  // abi_1_2 holds compat12 too, which claims the same files: name order makes compat10 win.
  Run sweep =
      run_host(home, env, dirs, fmt::format("--config {}/helix.toml sweep", home.path().string()));
  BOOST_TEST(sweep.exit_code == 0, sweep.err);
  Run sessions = run_host(
      home, env, dirs, fmt::format("--config {}/helix.toml sessions --json", home.path().string()));
  BOOST_TEST(contains(sessions.out, "\"compat10:s-1\""));
  Run digest =
      run_host(home, env, dirs,
               fmt::format("--config {}/helix.toml digest compat10:s-1", home.path().string()));
  BOOST_TEST(digest.exit_code == 0, digest.err);
  BOOST_TEST(contains(digest.out, "digest12"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(records_shorter_than_the_host_reads)

// The probe of the SDK trial: a 1.0 C plugin passes an event whose struct_size ends before
// `model`, its last byte the last readable one. The host drops it with a warning instead of
// reading the missing member (which crashed helix-host with SIGSEGV), and keeps the whole
// 1.0-sized records placed the same way.
BOOST_AUTO_TEST_CASE(the_short_struct_probe_sweeps_without_a_crash) {
  helix::test::TempDir home;
  helix::test::write_file(home.path() / "short" / "a.short", "short one\nexact two\n");
  const std::string env = fmt::format("HELIX_SHORT_HOME={}/short ", home.path().string());
  Run sweep = run_host(home, env, {kRoot / "abi_short"}, "sweep");
  BOOST_TEST(sweep.exit_code == 0, sweep.err);
  BOOST_TEST(contains(sweep.err, "invalid_record"));
  Run sessions = run_host(home, env, {kRoot / "abi_short"}, "sessions --json");
  const auto list = boost::json::parse(sessions.out).as_array();
  BOOST_TEST_REQUIRE(list.size() == 1u);
  const auto& s = list[0].as_object();
  BOOST_TEST(s.at("session_uid").as_string() == "short:short-1");
  BOOST_TEST(s.at("cwd").as_string() == "/work/short");
  BOOST_TEST(s.at("event_count").as_int64() == 1);  // "exact two"; "short one" was dropped
}

// A host whose structs grew reads an older plugin's shorter struct, placed right before an
// unmapped page, through its struct_size: the grown member reads as zero, nothing past the
// struct is touched.
BOOST_AUTO_TEST_CASE(a_grown_host_reads_an_old_record_up_to_its_struct_size) {
  struct GrownEvent {
    helix_event v1_0;
    helix_str added_in_a_later_minor;
  };
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  auto* pages = static_cast<char*>(
      ::mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  BOOST_TEST_REQUIRE(pages != MAP_FAILED);
  BOOST_TEST_REQUIRE(::mprotect(pages + page, page, PROT_NONE) == 0);
  auto* old = reinterpret_cast<helix_event*>(pages + page - sizeof(helix_event));
  *old = helix_event{};
  old->struct_size = sizeof(helix_event);
  old->source_offset = 42;
  const auto grown =
      helix::read_abi_struct<GrownEvent>(old, old->struct_size, HELIX_EVENT_SIZE_1_0);
  BOOST_TEST_REQUIRE(grown.has_value());
  BOOST_TEST(grown->v1_0.source_offset == 42u);
  BOOST_TEST(grown->added_in_a_later_minor.ptr == nullptr);
  BOOST_TEST(grown->added_in_a_later_minor.len == 0u);
  // Smaller than the first version: refused without reading more than struct_size.
  old->struct_size = offsetof(helix_event, model);
  BOOST_TEST(!helix::read_abi_struct<GrownEvent>(old, old->struct_size, HELIX_EVENT_SIZE_1_0));
  ::munmap(pages, 2 * page);
}

// A grown host and an old table: a 1.0 adapter table (72 bytes, no get_extension) before an
// unmapped page is copied without reading the member it lacks.
BOOST_AUTO_TEST_CASE(a_grown_host_reads_an_old_table_up_to_its_struct_size) {
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  auto* pages = static_cast<char*>(
      ::mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  BOOST_TEST_REQUIRE(pages != MAP_FAILED);
  BOOST_TEST_REQUIRE(::mprotect(pages + page, page, PROT_NONE) == 0);
  char* table = pages + page - HELIX_ADAPTER_VTABLE_SIZE_1_0;
  std::memset(table, 0x5a, HELIX_ADAPTER_VTABLE_SIZE_1_0);
  const uint32_t size = HELIX_ADAPTER_VTABLE_SIZE_1_0;
  std::memcpy(table, &size, sizeof size);
  const auto copy = helix::read_abi_struct(reinterpret_cast<const helix_adapter_vtable*>(table),
                                           HELIX_ADAPTER_VTABLE_SIZE_1_0);
  BOOST_TEST_REQUIRE(copy.has_value());
  BOOST_TEST(copy->struct_size == HELIX_ADAPTER_VTABLE_SIZE_1_0);
  BOOST_TEST(copy->get_extension == nullptr);
  ::munmap(pages, 2 * page);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(todays_plugins_on_older_hosts)

// Built with the 1.3 SDK, an adapter that needs nothing new says minor 0, and a 1.2 host's
// own checks accept it; so does this host. The table grew (get_extension), which the older
// host never reads.
BOOST_AUTO_TEST_CASE(a_plugin_that_needs_nothing_new_loads_on_an_older_host) {
  RawPlugin good(kRoot / "good" / "libhelix_good.so");
  const auto* d = static_cast<const helix_plugin_descriptor*>(good.descriptor);
  BOOST_TEST(d->abi_minor == 0u);
  const char* refusal = helix_host_1_2_refusal(good.descriptor);
  BOOST_TEST(refusal == nullptr, (refusal ? refusal : ""));
  helix::PluginRegistry registry;
  registry.load_directory(kRoot / "good");
  BOOST_TEST(registry.refused().empty());
}

// One that needs the next minor is refused by this host with a reason that names both
// versions and what to do, and by a 1.2 host as well.
BOOST_AUTO_TEST_CASE(a_plugin_needing_a_newer_minor_is_refused_with_a_clear_reason) {
  helix::PluginRegistry registry;
  registry.load_directory(kRoot / "abi_next");
  BOOST_TEST_REQUIRE(registry.refused().size() == 1u);
  const std::string& reason = registry.refused()[0].reason;
  BOOST_TEST(contains(
      reason, fmt::format("it needs Helix plugin ABI {}.{}, newer than this "
                          "helix-host's {}.{}",
                          HELIX_ABI_MAJOR, HELIX_ABI_MINOR + 1, HELIX_ABI_MAJOR, HELIX_ABI_MINOR)));
  BOOST_TEST(contains(reason, "upgrade helix-host"));
  RawPlugin next(kRoot / "abi_next" / "libhelix_abi_next.so");
  BOOST_TEST(helix_host_1_2_refusal(next.descriptor) != nullptr);
}

// The first-party plugins need what they use: adapters 0, the resumable default digester 2.
BOOST_AUTO_TEST_CASE(first_party_plugins_state_the_minor_they_need) {
  helix::PluginRegistry registry;
  registry.load_directory(HELIX_TEST_PLUGIN_DIR);
  BOOST_TEST(registry.refused().empty());
  for (const auto& p : registry.loaded()) {
    BOOST_TEST_CONTEXT(p.name) {
      BOOST_TEST(p.abi_minor == (p.digester ? 2u : 0u));
      RawPlugin raw(p.path);
      const char* refusal = helix_host_1_2_refusal(raw.descriptor);
      BOOST_TEST(refusal == nullptr, (refusal ? refusal : ""));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

// The plugin loader against real .so files (tests/plugins): the good plugin loads, every bad
// one is refused with an actionable reason, and loading goes on with the others.
#define BOOST_TEST_MODULE plugin_registry
#include <boost/test/unit_test.hpp>

#include "plugins/plugin_registry.hpp"
#include "temp_dir.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <unistd.h>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path kRoot = HELIX_TEST_PLUGINS_ROOT;

fs::path plugin_file(const std::string& test_case, const std::string& name) {
  return kRoot / test_case / ("libhelix_" + name + ".so");
}

// Loads one test case's directory and expects exactly one refusal; returns its reason.
std::string single_refusal(const std::string& test_case, const std::string& name) {
  helix::PluginRegistry registry;
  registry.load_directory(kRoot / test_case);
  BOOST_TEST(registry.loaded().empty());
  BOOST_TEST_REQUIRE(registry.refused().size() == 1u);
  BOOST_TEST(registry.refused()[0].path == plugin_file(test_case, name));
  return registry.refused()[0].reason;
}

bool contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return true;
  BOOST_TEST_MESSAGE("'" << part << "' not found in: " << text);
  return false;
}

}  // namespace

BOOST_AUTO_TEST_CASE(good_plugin_loads_with_its_descriptor) {
  helix::PluginRegistry registry;
  registry.load_directory(kRoot / "good");
  BOOST_TEST(registry.refused().empty());
  BOOST_TEST_REQUIRE(registry.loaded().size() == 1u);
  const helix::PluginInfo& p = registry.loaded()[0];
  BOOST_TEST(p.name == "good");
  BOOST_TEST(p.kind == "adapter");
  BOOST_TEST(p.version == "0.1.0");
  BOOST_TEST(p.description == "Helix test adapter");
  BOOST_TEST(p.abi_major == uint32_t{HELIX_ABI_MAJOR});
  BOOST_TEST(p.abi_minor == 0u);  // the minor it needs: an adapter needs nothing beyond 1.0
  BOOST_TEST(p.path == plugin_file("good", "good"));
  BOOST_TEST_REQUIRE(p.adapter.has_value());
  BOOST_TEST(std::string(p.adapter->flavor) == "test");
  BOOST_TEST(std::string(p.adapter->patterns[0].glob) == "*.test");
  BOOST_TEST(registry.adapters().size() == 1u);
  BOOST_TEST(registry.find("good") == &p);
}

BOOST_AUTO_TEST_CASE(other_abi_major_is_refused_naming_both_versions_and_the_remedy) {
  const std::string reason = single_refusal("abi_major", "abi_major");
  BOOST_TEST(contains(reason, "built for Helix plugin ABI 2.0"));
  BOOST_TEST(contains(reason, fmt::format("this helix-host supports ABI {0}.0-{0}.{1}",
                                          HELIX_ABI_MAJOR, HELIX_ABI_MINOR)));
  BOOST_TEST(contains(reason, "major versions differ"));
  BOOST_TEST(
      contains(reason, fmt::format("rebuild the plugin with HelixSDK {}.x", HELIX_ABI_MAJOR)));
}

BOOST_AUTO_TEST_CASE(newer_abi_minor_is_refused_naming_both_versions_and_the_remedy) {
  const std::string reason = single_refusal("abi_minor", "abi_minor");
  BOOST_TEST(contains(reason, fmt::format("it needs Helix plugin ABI {}.99", HELIX_ABI_MAJOR)));
  BOOST_TEST(contains(
      reason, fmt::format("newer than this helix-host's {}.{}", HELIX_ABI_MAJOR, HELIX_ABI_MINOR)));
  BOOST_TEST(contains(reason, fmt::format("upgrade helix-host, or rebuild the plugin with "
                                          "HelixSDK {}.{}",
                                          HELIX_ABI_MAJOR, HELIX_ABI_MINOR)));
}

BOOST_AUTO_TEST_CASE(library_without_entry_symbol_is_refused_before_it_runs) {
  const std::string reason = single_refusal("no_entry", "no_entry");
  BOOST_TEST(contains(reason, "does not export helix_plugin_query"));
  BOOST_TEST(contains(reason, "rebuild it with the Helix SDK or remove it"));
}

BOOST_AUTO_TEST_CASE(null_required_callback_is_refused) {
  const std::string reason = single_refusal("null_callback", "null_parse");
  BOOST_TEST(contains(reason, "required callbacks (create, destroy, probe, parse) is NULL"));
}

BOOST_AUTO_TEST_CASE(truncated_adapter_table_is_refused_with_both_sizes) {
  const std::string reason = single_refusal("small_table", "small_table");
  BOOST_TEST(contains(
      reason, fmt::format("its adapter table is {} bytes", offsetof(helix_adapter_vtable, parse))));
  // The minimum is ABI 1.0's table, not this host's: tables that grew later stay loadable.
  BOOST_TEST(contains(reason, fmt::format("smaller than ABI {}.0 requires ({})", HELIX_ABI_MAJOR,
                                          HELIX_ADAPTER_VTABLE_SIZE_1_0)));
}

// ABI 1.2 appended resume_session: a digester built against 1.1 (its table ends before it)
// still loads, and the host never reads the member it does not have.
BOOST_AUTO_TEST_CASE(an_abi_1_1_digester_loads_on_this_host) {
  helix::PluginRegistry registry;
  registry.load_directory(kRoot / "digester_abi_1_1");
  BOOST_TEST(registry.refused().empty());
  BOOST_TEST_REQUIRE(registry.digesters().size() == 1u);
  const helix::PluginInfo& p = *registry.digesters()[0];
  BOOST_TEST(p.abi_minor == 1u);
  BOOST_TEST(p.digester->struct_size == offsetof(helix_digester_vtable, resume_session));
}

BOOST_AUTO_TEST_CASE(duplicate_name_is_refused_naming_both_paths) {
  helix::PluginRegistry registry;
  registry.load_directory(kRoot / "duplicate");
  BOOST_TEST_REQUIRE(registry.loaded().size() == 1u);
  BOOST_TEST(registry.loaded()[0].path == plugin_file("duplicate", "twin_a"));
  BOOST_TEST_REQUIRE(registry.refused().size() == 1u);
  const helix::RefusedPlugin& refused = registry.refused()[0];
  BOOST_TEST(refused.path == plugin_file("duplicate", "twin_b"));
  BOOST_TEST(contains(refused.reason, "its name 'twin' is already taken by " +
                                          plugin_file("duplicate", "twin_a").string()));
  BOOST_TEST(contains(refused.reason, "remove one of the two"));
}

BOOST_AUTO_TEST_CASE(missing_directory_is_reported) {
  helix::PluginRegistry registry;
  const fs::path missing = kRoot / "no-such-directory";
  registry.load_directory(missing);
  BOOST_TEST(registry.loaded().empty());
  BOOST_TEST_REQUIRE(registry.refused().size() == 1u);
  BOOST_TEST(registry.refused()[0].path == missing);
  BOOST_TEST(contains(registry.refused()[0].reason, "plugin directory does not exist"));
}

// One directory holding every case: refusals sort before and after the good plugin, which
// still loads; a shared library not named libhelix_*.so is not loaded, and listed as such.
BOOST_AUTO_TEST_CASE(loading_goes_on_after_refusals) {
  const helix::test::TempDir temp;
  const fs::path& dir = temp.path();
  const std::pair<const char*, const char*> cases[] = {
      {"abi_major", "abi_major"}, {"abi_minor", "abi_minor"},      {"no_entry", "no_entry"},
      {"good", "good"},           {"null_callback", "null_parse"}, {"small_table", "small_table"}};
  for (const auto& [test_case, name] : cases)
    fs::copy_file(plugin_file(test_case, name), dir / plugin_file(test_case, name).filename());
  fs::copy_file(plugin_file("good", "good"), dir / "libother.so");  // wrong name: not a plugin
  helix::test::write_file(dir / "libhelix_garbage.so", "not a shared library\n");

  helix::PluginRegistry registry;
  registry.load_directory(dir);
  BOOST_TEST_REQUIRE(registry.loaded().size() == 1u);
  BOOST_TEST(registry.loaded()[0].name == "good");
  std::vector<std::string> refused;
  for (const auto& r : registry.refused()) refused.push_back(r.path.filename().string());
  const std::vector<std::string> expected = {"libhelix_abi_major.so",
                                             "libhelix_abi_minor.so",
                                             "libhelix_garbage.so",
                                             "libhelix_no_entry.so",
                                             "libhelix_null_parse.so",
                                             "libhelix_small_table.so",
                                             "libother.so"};
  BOOST_TEST(refused == expected, boost::test_tools::per_element());
  BOOST_TEST(
      contains(registry.refused()[2].reason, "it is not a shared library (it has no ELF header)"));
  BOOST_TEST(contains(registry.refused()[6].reason,
                      "its name does not match libhelix_<name>.so, so it is not loaded"));
}

// Plugin safety: only code that nobody but its owner (this user or root) can change is loaded.

namespace {

// A directory holding a copy of the good plugin and of the "twin" plugin.
struct TwoPlugins {
  helix::test::TempDir temp;
  fs::path dir = temp / "plugins";
  fs::path good = dir / "libhelix_good.so", twin = dir / "libhelix_twin_a.so";
  TwoPlugins() {
    fs::create_directory(dir);
    fs::permissions(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                             fs::perms::others_read | fs::perms::others_exec);
    fs::copy_file(plugin_file("good", "good"), good);
    fs::copy_file(plugin_file("duplicate", "twin_a"), twin);
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_group_writable_plugin_is_refused_and_the_others_load) {
  TwoPlugins p;
  fs::permissions(p.twin, fs::perms::group_write, fs::perm_options::add);
  helix::PluginRegistry registry;
  registry.load_directory(p.dir);
  BOOST_TEST_REQUIRE(registry.loaded().size() == 1u);
  BOOST_TEST(registry.loaded()[0].name == "good");
  BOOST_TEST_REQUIRE(registry.refused().size() == 1u);
  const std::string& reason = registry.refused()[0].reason;
  BOOST_TEST(registry.refused()[0].path == p.twin);
  BOOST_TEST(contains(reason, "plugin file " + p.twin.string() + " is writable by its group"));
  BOOST_TEST(contains(reason, "(mode 0775)"));
  BOOST_TEST(contains(reason, "chmod go-w " + p.twin.string()));
  fs::permissions(p.twin, fs::perms::group_write, fs::perm_options::remove);  // the remedy
  helix::PluginRegistry fixed;
  fixed.load_directory(p.dir);
  BOOST_TEST(fixed.loaded().size() == 2u);
  BOOST_TEST(fixed.refused().empty());
}

BOOST_AUTO_TEST_CASE(a_world_writable_plugin_directory_is_refused_whole) {
  TwoPlugins p;
  fs::permissions(p.dir, fs::perms::others_write, fs::perm_options::add);
  helix::PluginRegistry registry;
  registry.load_directory(p.dir);
  registry.load_directory(kRoot / "good");  // other directories still load
  BOOST_TEST_REQUIRE(registry.loaded().size() == 1u);
  BOOST_TEST(registry.loaded()[0].path == plugin_file("good", "good"));
  BOOST_TEST_REQUIRE(registry.refused().size() == 1u);
  BOOST_TEST(registry.refused()[0].path == p.dir);
  BOOST_TEST(contains(registry.refused()[0].reason,
                      "plugin directory " + p.dir.string() + " is writable by all users"));
  BOOST_TEST(contains(registry.refused()[0].reason, "(mode 0757)"));
  BOOST_TEST(contains(registry.refused()[0].reason, "chmod go-w " + p.dir.string()));
}

BOOST_AUTO_TEST_CASE(a_plugin_owned_by_another_user_is_refused) {
  if (::geteuid() != 0) {
    BOOST_TEST_MESSAGE("skipped: only root can give a file to another user");
    return;
  }
  TwoPlugins p;
  BOOST_REQUIRE(::chown(p.twin.c_str(), 65534, 65534) == 0);  // nobody
  helix::PluginRegistry registry;
  registry.load_directory(p.dir);
  BOOST_TEST(registry.loaded().size() == 1u);
  BOOST_TEST_REQUIRE(registry.refused().size() == 1u);
  BOOST_TEST(contains(registry.refused()[0].reason, "belongs to uid 65534"));
  BOOST_TEST(contains(registry.refused()[0].reason, "chown"));
}

BOOST_AUTO_TEST_CASE(a_link_to_a_plugin_in_an_unsafe_directory_is_refused) {
  TwoPlugins p;
  const fs::path shared = p.temp / "shared";
  fs::create_directory(shared);
  fs::permissions(shared, fs::perms::all);  // 0777, like a scratch directory
  fs::rename(p.twin, shared / "libhelix_twin_a.so");
  fs::create_symlink(shared / "libhelix_twin_a.so", p.twin);
  helix::PluginRegistry registry;
  registry.load_directory(p.dir);
  BOOST_TEST(registry.loaded().size() == 1u);
  BOOST_TEST_REQUIRE(registry.refused().size() == 1u);
  BOOST_TEST(registry.refused()[0].path == p.twin);
  BOOST_TEST(contains(registry.refused()[0].reason,
                      "directory of the plugin file " + shared.string() + " is writable"));
}

// The real binary with a relative --plugins and an LD_LIBRARY_PATH holding an impostor of the
// same file name: the plugin loads from the canonical absolute path of the given directory.
BOOST_AUTO_TEST_CASE(plugins_load_by_canonical_path_whatever_the_search_path) {
  TwoPlugins p;
  fs::remove(p.twin);
  const fs::path impostor = p.temp / "impostor";
  fs::create_directory(impostor);
  fs::copy_file(plugin_file("duplicate", "twin_a"), impostor / "libhelix_good.so");
  const std::string cmd = fmt::format(
      "cd {} && LD_LIBRARY_PATH={} XDG_CONFIG_HOME={} {} --plugins ./plugins/../plugins plugins",
      p.temp.path().string(), impostor.string(), p.temp.path().string(), HELIX_TEST_HOST_BINARY);
  FILE* pipe = ::popen(cmd.c_str(), "r");
  BOOST_REQUIRE(pipe);
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  BOOST_TEST(::pclose(pipe) == 0);
  BOOST_TEST(contains(out, "good "));
  BOOST_TEST(contains(out, p.good.string()));
  BOOST_TEST(!contains(out, "twin"));
}

// Race-free loading: every folder from / down is judged, and the file that loads is the file
// that was judged (opened by descriptor, loaded through /proc/self/fd).

namespace {

// The inode of the file whose mapping holds `address` in this process (/proc/self/maps).
ino_t mapped_inode(const void* address) {
  std::ifstream maps("/proc/self/maps");
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  for (std::string line; std::getline(maps, line);) {
    unsigned long long start = 0, end = 0, inode = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx %*s %*s %*s %llu", &start, &end, &inode) == 3 &&
        at >= start && at < end)
      return static_cast<ino_t>(inode);
  }
  return 0;
}

ino_t inode_of(const fs::path& file) {
  struct stat st {};
  BOOST_REQUIRE(::stat(file.c_str(), &st) == 0);
  return st.st_ino;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_writable_folder_above_the_plugin_directory_is_refused_naming_it) {
  helix::test::TempDir temp;
  const fs::path shared = temp / "shared", dir = shared / "plugins";
  fs::create_directories(dir);
  fs::copy_file(plugin_file("good", "good"), dir / "libhelix_good.so");
  fs::permissions(shared, fs::perms::all);  // 0777: anyone may rename plugins/ away
  helix::PluginRegistry registry;
  registry.load_directory(dir);
  BOOST_TEST(registry.loaded().empty());
  BOOST_TEST_REQUIRE(registry.refused().size() == 1u);
  BOOST_TEST(registry.refused()[0].path == dir);
  const std::string& reason = registry.refused()[0].reason;
  BOOST_TEST(contains(reason, "folder above the plugin directory " + shared.string() +
                                  " is writable by all users (mode 0777)"));
  BOOST_TEST(contains(reason, "chmod go-w " + shared.string()));

  // The sticky bit (as on /tmp) lets nobody rename another user's entries: accepted.
  fs::permissions(shared, fs::perms::all | fs::perms::sticky_bit);
  helix::PluginRegistry sticky;
  sticky.load_directory(dir);
  BOOST_TEST(sticky.refused().empty());
  BOOST_TEST(sticky.loaded().size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_writable_folder_above_a_single_plugin_file_is_refused) {
  helix::test::TempDir temp;
  const fs::path shared = temp / "shared", file = shared / "deep" / "libhelix_good.so";
  fs::create_directories(file.parent_path());
  fs::copy_file(plugin_file("good", "good"), file);
  fs::permissions(shared, fs::perms::group_write, fs::perm_options::add);
  helix::PluginRegistry registry;
  registry.load_plugin_file(file);
  BOOST_TEST(registry.loaded().empty());
  BOOST_TEST_REQUIRE(registry.refused().size() == 1u);
  BOOST_TEST(contains(
      registry.refused()[0].reason,
      "folder above the plugin directory " + shared.string() + " is writable by its group"));
}

// An attacker exchanges the plugin file with a world-writable one of the same name while
// helix-host first opens it: a fanotify permission event holds that open until the exchange is
// done (which needs root, as the CI runs). Checking one file and loading another by path would
// then run the world-writable plugin; loading the judged descriptor never does, and whatever
// loads is mapped from the judged inode.
BOOST_AUTO_TEST_CASE(a_plugin_swapped_while_it_is_checked_is_never_loaded) {
  TwoPlugins p;
  fs::remove(p.twin);
  const fs::path outside = p.temp / "outside", impostor = outside / "libhelix_good.so";
  fs::create_directory(outside);
  fs::copy_file(plugin_file("duplicate", "twin_a"), impostor);
  fs::permissions(impostor, fs::perms::all);  // 0777: anyone could have written it
  const ino_t good_inode = inode_of(p.good);
  const auto exchange = [&] {
    return ::renameat2(AT_FDCWD, p.good.c_str(), AT_FDCWD, impostor.c_str(), RENAME_EXCHANGE) == 0;
  };
  const int watcher = ::fanotify_init(FAN_CLOEXEC | FAN_CLASS_CONTENT, O_RDONLY);
  if (watcher < 0) {
    BOOST_TEST_MESSAGE("skipped: fanotify permission events need root (" << std::strerror(errno)
                                                                         << ")");
    return;
  }
  // The mark is on the judged file's inode, wherever it is renamed.
  BOOST_REQUIRE(::fanotify_mark(watcher, FAN_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD, p.good.c_str()) ==
                0);
  std::atomic<bool> armed{false}, stop{false};
  std::thread attacker([&] {
    alignas(fanotify_event_metadata) char events[4096];
    for (ssize_t n; !stop.load() && (n = ::read(watcher, events, sizeof events)) > 0;) {
      auto* event = reinterpret_cast<fanotify_event_metadata*>(events);
      for (; FAN_EVENT_OK(event, n); event = FAN_EVENT_NEXT(event, n)) {
        if (armed.exchange(false)) BOOST_TEST(exchange());
        const fanotify_response allow{event->fd, FAN_ALLOW};
        BOOST_TEST(::write(watcher, &allow, sizeof allow) == ssize_t{sizeof allow});
        ::close(event->fd);
      }
    }
  });
  int swaps = 0, loaded_good = 0, loaded_impostor = 0, wrong_inode = 0;
  for (int round = 0; round < 20; ++round) {
    armed = true;
    {
      helix::PluginRegistry registry;
      registry.load_directory(p.dir);
      for (const auto& plugin : registry.loaded()) {
        ++(plugin.name == "good" ? loaded_good : loaded_impostor);
        if (mapped_inode(reinterpret_cast<const void*>(plugin.adapter->parse)) != good_inode)
          ++wrong_inode;
      }
    }
    if (!armed.exchange(false)) {  // swapped during the load: the judged file back in place
      ++swaps;
      BOOST_REQUIRE(exchange());
    }
  }
  stop = true;
  ::close(::open(p.good.c_str(), O_RDONLY | O_CLOEXEC));  // an event: the attacker sees stop
  attacker.join();
  ::close(watcher);
  BOOST_TEST(swaps == 20);
  BOOST_TEST(loaded_impostor == 0);
  BOOST_TEST(wrong_inode == 0);
  BOOST_TEST(loaded_good == 20);
}

// A plugin that is a link is judged by its target's whole path, every folder of it included.
BOOST_AUTO_TEST_CASE(a_link_to_a_plugin_in_a_safe_directory_loads_from_its_target) {
  TwoPlugins p;
  const fs::path elsewhere = p.temp / "elsewhere";
  fs::create_directory(elsewhere);
  fs::rename(p.twin, elsewhere / "libhelix_twin_a.so");
  fs::create_symlink(elsewhere / "libhelix_twin_a.so", p.twin);
  helix::PluginRegistry registry;
  registry.load_directory(p.dir);
  BOOST_TEST(registry.refused().empty());
  BOOST_TEST_REQUIRE(registry.loaded().size() == 2u);
  BOOST_TEST(registry.find("twin")->path == elsewhere / "libhelix_twin_a.so");
}

// Discovery: globs over real directory trees, root overrides, and credential files refused.
#define BOOST_TEST_MODULE discovery
#include <boost/test/unit_test.hpp>

#include "ingest/discovery.hpp"
#include "ingest/source_file.hpp"
#include "ingest/sweep.hpp"
#include "store/store.hpp"
#include "temp_dir.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>

using namespace helix;

BOOST_AUTO_TEST_CASE(globs_match_within_and_across_segments) {
  BOOST_TEST(glob_match("projects/*/*.jsonl", "projects/-a-b/x.jsonl"));
  BOOST_TEST(!glob_match("projects/*/*.jsonl", "projects/-a-b/s/subagents/x.jsonl"));
  BOOST_TEST(glob_match("projects/*/*/subagents/**/agent-*.jsonl",
                        "projects/p/s/subagents/agent-a1.jsonl"));
  BOOST_TEST(glob_match("projects/*/*/subagents/**/agent-*.jsonl",
                        "projects/p/s/subagents/workflows/wf_1/agent-a1.jsonl"));
  BOOST_TEST(!glob_match("projects/*/*/subagents/**/agent-*.jsonl",
                         "projects/p/s/subagents/workflows/wf_1/journal.jsonl"));
  BOOST_TEST(glob_match("sessions/**/rollout-*.jsonl", "sessions/rollout-x.jsonl"));
  BOOST_TEST(glob_match("sessions/**/rollout-*.jsonl", "sessions/2026/01/02/rollout-x.jsonl"));
}

BOOST_AUTO_TEST_CASE(credential_files_are_recognised) {
  for (const char* name :
       {".credentials.json", "auth.json", "id_rsa", "id_ed25519.pub", "server.pem", "api.key",
        ".netrc", "oauth_creds.json", "AUTH.JSON", ".env.local", ".git-credentials", "gh.token",
        "client_secret_123.json", "google-credentials.json"})
    BOOST_TEST(is_credential_file(name), name);
  BOOST_TEST(is_credential_path("/home/u/.ssh/config"));
  BOOST_TEST(is_credential_path("/home/u/.aws/credentials"));
  BOOST_TEST(is_credential_path("/home/u/.docker/config.json"));
  BOOST_TEST(!is_credential_path("/home/u/.claude/projects/-a/x.jsonl"));
  for (const char* name :
       {"rollout-2026.jsonl", "summary.json", "updates.jsonl", "agent-a1.meta.json", "keys.md"})
    BOOST_TEST(!is_credential_file(name), name);
}

// A real plugin whose patterns name credential files (tests/plugins, TEST_CREDENTIAL_PATTERNS):
// every such file is refused with the plugin's name and is never opened, watched with inotify
// (as root, permissions would not stop an open; inotify sees every one).
namespace {

struct CredentialHome {
  helix::test::TempDir temp;
  std::filesystem::path root = temp / "home";
  std::vector<std::filesystem::path> secrets = {root / "auth.json", root / ".credentials.json",
                                                root / "keys/server.pem", root / "cache/gh.token",
                                                root / ".ssh/id_ed25519"};
  CredentialHome() {
    helix::test::write_file(root / "a.test", "user_msg hello\n");
    for (const auto& f : secrets) helix::test::write_file(f, "{\"token\":\"do not read\"}\n");
  }
  helix::Config config() const {
    helix::Config c;
    c.source_roots["test"] = {root.string()};
    return c;
  }
};

// Counts IN_OPEN events on the watched files until destroyed or read.
class OpenWatch {
 public:
  explicit OpenWatch(const std::vector<std::filesystem::path>& files)
      : fd_(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {
    for (const auto& f : files) ::inotify_add_watch(fd_, f.c_str(), IN_OPEN | IN_ACCESS);
  }
  ~OpenWatch() { ::close(fd_); }
  int opens() const {
    char buf[4096];
    int n = 0;
    for (ssize_t got; (got = ::read(fd_, buf, sizeof buf)) > 0;)
      for (char* p = buf; p < buf + got;
           p += sizeof(inotify_event) + reinterpret_cast<inotify_event*>(p)->len)
        ++n;
    return n;
  }

 private:
  int fd_;
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_plugin_asking_for_credential_files_is_refused_and_they_are_never_opened) {
  CredentialHome home;
  helix::PluginRegistry registry;
  registry.load_directory(std::filesystem::path(HELIX_TEST_PLUGINS_ROOT) / "credentials");
  BOOST_TEST_REQUIRE(registry.adapters().size() == 1u);
  const helix::Config config = home.config();
  OpenWatch watch(home.secrets);
  BOOST_TEST(watch.opens() == 0);  // the watch works: nothing yet

  const Discovery found = discover(registry.adapters(), config);
  BOOST_TEST_REQUIRE(found.sources.size() == 1u);
  BOOST_TEST(found.sources[0].path == (home.root / "a.test").string());
  std::vector<std::string> refused;
  for (const auto& r : found.refused_credentials) {
    refused.push_back(r.path);
    BOOST_TEST(r.plugin == "credential_reader");
  }
  std::vector<std::string> expected;
  for (const auto& f : home.secrets) expected.push_back(f.string());
  std::sort(expected.begin(), expected.end());
  BOOST_TEST(refused == expected, boost::test_tools::per_element());

  // A whole sweep, then the path a hook takes (run_paths), which asks for the files directly.
  helix::Store store(home.temp / "store/helix.db");
  helix::Sweep sweep(store, registry, config);
  const helix::SweepReport report = sweep.run();
  BOOST_TEST(report.events_added == 1);
  int named = 0;
  for (const auto& line : report.problems)
    if (line.find("plugin 'credential_reader' asked for this file, which holds credentials; "
                  "refused, never opened") != std::string::npos)
      ++named;
  BOOST_TEST(named == static_cast<int>(home.secrets.size()));
  std::vector<std::string> direct;
  for (const auto& f : home.secrets) direct.push_back(f.string());
  const helix::SweepReport hooked = sweep.run_paths(direct);
  BOOST_TEST(hooked.sources_failed == static_cast<int64_t>(home.secrets.size()));
  BOOST_TEST(hooked.events_added == 0);
  for (const auto& f : home.secrets) BOOST_CHECK_THROW(helix::SourceFile{f}, std::runtime_error);
  BOOST_TEST(watch.opens() == 0);
  BOOST_TEST(!store.find_source((home.root / "auth.json").string()).has_value());

  // The control: opening one of them for real is seen by the watch.
  helix::test::read_file(home.secrets[0]);
  BOOST_TEST(watch.opens() > 0);
}

// The walk's link rules, pinned: a literal segment follows symlinks, a file pattern's last
// segment takes a symlink to a file inside the roots as that file, and neither a wildcard nor
// "**" enters a symlinked directory.
BOOST_AUTO_TEST_CASE(the_walk_follows_links_only_on_literal_segments_and_to_files) {
  CredentialHome home;  // a.test and the planted credential files
  namespace fs = std::filesystem;
  const fs::path outside = home.temp / "outside";
  helix::test::write_file(outside / "keys/out.pem", "x\n");
  helix::test::write_file(outside / "ssh/id_linked", "x\n");
  helix::test::write_file(home.root / "deep/x/y/z.pem", "x\n");
  fs::create_directory_symlink(outside / "keys", home.root / "linked");  // "**" stays out
  fs::remove_all(home.root / ".ssh");
  fs::create_directory_symlink(outside / "ssh", home.root / ".ssh");  // ".ssh/*": followed
  fs::create_symlink(home.root / "a.test", home.root / "a-link.test");
  fs::create_symlink(home.root / "missing", home.root / "dangling.test");
  fs::create_directory(home.root / "dir.test");
  helix::PluginRegistry registry;
  registry.load_directory(std::filesystem::path(HELIX_TEST_PLUGINS_ROOT) / "credentials");
  BOOST_TEST_REQUIRE(registry.adapters().size() == 1u);

  const Discovery found = discover(registry.adapters(), home.config());
  std::vector<std::string> sources, refused;
  for (const auto& s : found.sources) sources.push_back(s.path);
  for (const auto& r : found.refused_credentials) refused.push_back(r.path);
  const std::vector<std::string> expected_sources = {(home.root / "a.test").string()};
  BOOST_TEST(sources == expected_sources, boost::test_tools::per_element());
  std::vector<std::string> skipped;
  for (const auto& s : found.skipped) skipped.push_back(s.path);
  const std::vector<std::string> expected_skipped = {(home.root / "dangling.test").string()};
  BOOST_TEST(skipped == expected_skipped, boost::test_tools::per_element());
  std::vector<std::string> expected_refused;
  for (const char* f : {".credentials.json", ".ssh/id_linked", "auth.json", "cache/gh.token",
                        "deep/x/y/z.pem", "keys/server.pem"})
    expected_refused.push_back((home.root / f).string());
  BOOST_TEST(refused == expected_refused, boost::test_tools::per_element());
}

// Links out of the roots (to a key, to an agent's login, to a transcript elsewhere) are named in
// the sweep and counted as refused, and their targets are never opened (inotify sees every open,
// also root's); a folder that cannot be listed is named too. A source file swapped for a link
// after discovery is not opened through it.
BOOST_AUTO_TEST_CASE(links_out_of_the_roots_are_refused_named_and_never_opened) {
  namespace fs = std::filesystem;
  CredentialHome home;
  const fs::path outside = home.temp / "outside";
  const std::vector<fs::path> targets = {outside / "id_ed25519", outside / "auth.json",
                                         outside / "session.test"};
  for (const auto& t : targets) helix::test::write_file(t, "user_msg secret outside\n");
  fs::create_symlink(targets[0], home.root / "key.test");
  fs::create_symlink(targets[1], home.root / "login.test");
  fs::create_symlink(targets[2], home.root / "elsewhere.test");
  fs::create_directory_symlink(outside, home.root / "folder.test");
  helix::PluginRegistry registry;
  registry.load_directory(std::filesystem::path(HELIX_TEST_PLUGINS_ROOT) / "credentials");
  BOOST_TEST_REQUIRE(registry.adapters().size() == 1u);
  OpenWatch watch(targets);

  helix::Store store(home.temp / "store/helix.db");
  const helix::Config config = home.config();  // the sweep keeps a reference
  helix::Sweep sweep(store, registry, config);
  const helix::SweepReport report = sweep.run();
  BOOST_TEST(report.events_added == 1);  // a.test alone
  for (const char* link : {"key.test", "login.test", "elsewhere.test"}) {
    const std::string path = (home.root / link).string();
    BOOST_TEST(std::any_of(report.problems.begin(), report.problems.end(),
                           [&](const std::string& p) {
                             return p.starts_with(path +
                                                  ": a symbolic link out of the agent's "
                                                  "roots");
                           }),
               link);
    BOOST_TEST(!store.find_source(path).has_value(), link);
  }
  // The three links, the link to a folder, and the credential files of CredentialHome.
  BOOST_TEST(report.paths_refused == 4 + static_cast<int64_t>(home.secrets.size()));
  BOOST_TEST(watch.opens() == 0);

  // Swapped for a link after discovery (the hook's path names it directly): not followed.
  fs::remove(home.root / "a.test");
  fs::create_symlink(targets[2], home.root / "a.test");
  const helix::SweepReport hooked = sweep.run_paths({(home.root / "a.test").string()});
  BOOST_TEST(hooked.sources_failed == 1);
  BOOST_TEST_REQUIRE(hooked.problems.size() == 1u);
  BOOST_TEST(hooked.problems[0].find("is a symbolic link") != std::string::npos);
  BOOST_TEST(watch.opens() == 0);

  // A folder the walk cannot list is named, not passed over in silence. As root, permissions
  // do not stop the walk: only checked when they do.
  fs::create_directories(home.root / "locked");
  fs::permissions(home.root / "locked", fs::perms::none);
  if (::access((home.root / "locked").c_str(), R_OK) != 0) {
    const helix::SweepReport locked = helix::Sweep(store, registry, config).run();
    BOOST_TEST(std::any_of(locked.problems.begin(), locked.problems.end(), [&](const auto& p) {
      return p.find("locked: this folder cannot be listed") != std::string::npos;
    }));
  }
  fs::permissions(home.root / "locked", fs::perms::owner_all);

  helix::test::read_file(targets[2]);  // the control: a real open is seen
  BOOST_TEST(watch.opens() > 0);
}

// A folder the walk cannot open is named in the sweep's problems. Permissions do not stop root,
// so as root a fanotify permission event refuses the folder's opens instead (EPERM), which
// stops root as well; as another user, mode 0000 does.
namespace {

// Refuses every open of one folder while it lives (needs root: fanotify permission events).
class DenyOpens {
 public:
  explicit DenyOpens(const std::filesystem::path& dir)
      : fd_(::fanotify_init(FAN_CLOEXEC | FAN_CLASS_CONTENT | FAN_NONBLOCK, O_RDONLY)) {
    if (fd_ >= 0 &&
        ::fanotify_mark(fd_, FAN_MARK_ADD, FAN_OPEN_PERM | FAN_ONDIR, AT_FDCWD, dir.c_str()) == 0)
      answering_ = std::thread([this] { answer(); });
  }
  ~DenyOpens() {
    stop_ = true;
    if (answering_.joinable()) answering_.join();
    if (fd_ >= 0) ::close(fd_);
  }
  DenyOpens(const DenyOpens&) = delete;
  DenyOpens& operator=(const DenyOpens&) = delete;
  bool active() const { return answering_.joinable(); }

 private:
  void answer() {
    alignas(fanotify_event_metadata) char events[4096];
    while (!stop_.load()) {
      pollfd ready{fd_, POLLIN, 0};
      if (::poll(&ready, 1, 50) <= 0) continue;
      ssize_t n = ::read(fd_, events, sizeof events);
      auto* event = reinterpret_cast<fanotify_event_metadata*>(events);
      for (; FAN_EVENT_OK(event, n); event = FAN_EVENT_NEXT(event, n)) {
        const fanotify_response deny{event->fd, FAN_DENY};
        BOOST_TEST(::write(fd_, &deny, sizeof deny) == ssize_t{sizeof deny});
        if (event->fd >= 0) ::close(event->fd);
      }
    }
  }

  int fd_;
  std::atomic<bool> stop_{false};
  std::thread answering_;
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_folder_that_cannot_be_opened_is_named_even_as_root) {
  namespace fs = std::filesystem;
  CredentialHome home;
  const fs::path locked = home.root / "locked";
  helix::test::write_file(locked / "hidden.test", "user_msg hidden\n");
  helix::PluginRegistry registry;
  registry.load_directory(std::filesystem::path(HELIX_TEST_PLUGINS_ROOT) / "credentials");
  helix::Store store(home.temp / "store/helix.db");
  const helix::Config config = home.config();

  std::optional<DenyOpens> deny;
  if (::geteuid() == 0) {
    deny.emplace(locked);
    if (!deny->active()) {  // root without CAP_SYS_ADMIN (a container): no way to refuse root
      BOOST_TEST_MESSAGE("skipped: root here cannot use fanotify permission events");
      return;
    }
  } else {
    fs::permissions(locked, fs::perms::none);
  }
  const helix::SweepReport report = helix::Sweep(store, registry, config).run();
  deny.reset();
  fs::permissions(locked, fs::perms::owner_all);

  const std::string named = locked.string() + ": this folder cannot be";
  BOOST_TEST(std::any_of(report.problems.begin(), report.problems.end(),
                         [&](const std::string& p) { return p.find(named) != std::string::npos; }),
             "no problem names " << locked);
  for (const auto& p : report.problems) BOOST_TEST_MESSAGE(p);
  // The control: once it can be read, nothing names it.
  const helix::SweepReport after = helix::Sweep(store, registry, config).run();
  BOOST_TEST(std::none_of(after.problems.begin(), after.problems.end(), [&](const std::string& p) {
    return p.find(locked.string() + ":") != std::string::npos;
  }));
}

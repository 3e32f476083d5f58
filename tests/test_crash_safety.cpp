// Crash safety and concurrency of real sweeps: the helix-host binary, the build's plugins, the
// fixtures laid out as agent homes plus generated copies, a small chunk size so that a sweep is
// hundreds of transactions. Sweeps are killed with SIGKILL at random moments and re-run; the
// store must then equal, row for row, the store of one uninterrupted sweep.
#define BOOST_TEST_MODULE crash_safety
#include <boost/test/unit_test.hpp>

#include "host_process.hpp"
#include "sample_home.hpp"
#include "store_dump.hpp"
#include "temp_dir.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <optional>
#include <random>

using namespace helix;
using test::HostProcess;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kCopies = 2;     // generated copies of every top-level Claude transcript
constexpr int kMinKills = 20;  // SIGKILLs that land mid-sweep, over all rounds

std::string first_session_id(const std::string& bytes) {
  const std::string key = "\"sessionId\":\"";
  auto at = bytes.find(key);
  if (at == std::string::npos) return {};
  at += key.size();
  return bytes.substr(at, bytes.find('"', at) - at);
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

// The sample agent home (every fixture of every flavor) plus kCopies renamed copies of each
// top-level Claude transcript: distinct sessions, so the corpus is many sources and megabytes.
struct Corpus {
  test::TempDir dir;
  std::filesystem::path home = dir / "home";
  std::filesystem::path config = dir / "config.toml";
  int64_t bytes = 0;

  Corpus() {
    test::make_sample_home(home, dir / "xdg");
    std::vector<std::filesystem::path> originals;
    for (const auto& project : std::filesystem::directory_iterator(home / "claude/projects"))
      for (const auto& f : std::filesystem::directory_iterator(project))
        if (f.is_regular_file() && f.path().extension() == ".jsonl") originals.push_back(f);
    for (int k = 1; k <= kCopies; ++k)
      for (const auto& original : originals) {
        std::string text = test::read_file(original);
        const std::string id = first_session_id(text);
        if (id.size() < 8) continue;
        const std::string copy = fmt::format("{:08x}", 0xc0de0000 + k) + id.substr(8);
        replace_all(text, id, copy);
        test::write_file(home / fmt::format("claude/projects/-generated-{}", k) / (copy + ".jsonl"),
                         text);
      }
    for (const auto& f : std::filesystem::recursive_directory_iterator(home))
      if (f.is_regular_file()) bytes += static_cast<int64_t>(f.file_size());
    // Small chunks: hundreds of transactions per sweep, so kills land between and inside them.
    // The default quiet period for a final line without its newline (600 s): the lines a killed
    // sweep left behind its committed offset must not wait for it.
    test::write_file(config, "[sweep]\nchunk_bytes = \"16KiB\"\n");
  }

  std::vector<std::string> args(const std::string& store, std::vector<std::string> command) const {
    std::vector<std::string> a{"--plugins", HELIX_TEST_PLUGIN_DIR, "--config", config.string(),
                               "--store",   (dir / store).string()};
    a.insert(a.end(), command.begin(), command.end());
    return a;
  }

  std::filesystem::path db(const std::string& store) const { return dir / store / "helix.db"; }
};

Corpus& corpus() {
  static Corpus c;
  return c;
}

// The uninterrupted sweep every interrupted one is compared with, and how long it took.
struct Reference {
  std::vector<std::string> dump;
  double seconds = 0;
  int64_t events = 0;
};

const Reference& reference() {
  static Reference r = [] {
    Reference ref;
    const auto start = Clock::now();
    HostProcess sweep(corpus().args("reference", {"sweep", "--quiet"}), corpus().dir.path());
    const auto& result = sweep.wait();
    ref.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    BOOST_REQUIRE_MESSAGE(result.exit_code == 0, result.err);
    ref.dump = test::dump_store(corpus().db("reference"));
    ref.events = Store(corpus().db("reference"), true).status().events;
    BOOST_TEST_MESSAGE(
        fmt::format("reference sweep: {} bytes of sources, {} events, {} dump "
                    "lines, {:.2f} s",
                    corpus().bytes, ref.events, ref.dump.size(), ref.seconds));
    return ref;
  }();
  return r;
}

// Events in a store a killed sweep left behind (none when it died before creating the schema).
int64_t stored_events(const std::filesystem::path& db) {
  try {
    return std::filesystem::exists(db) ? Store(db, true).status().events : 0;
  } catch (const std::runtime_error&) {
    return 0;
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(sweeps_killed_at_random_moments_end_with_the_uninterrupted_store) {
  const Reference& ref = reference();
  BOOST_REQUIRE(ref.events > 2000);
  std::mt19937 random(20261122);
  const auto start = Clock::now();
  int rounds = 0, kills = 0, partial = 0;
  // The reference's duration, shrunk whenever a sweep ended before its kill: on a shared
  // machine the reference may have run under more load than the sweeps that follow.
  double seconds = ref.seconds;
  // Each round: a fresh store, a sweep killed at a uniform random moment within most of a full
  // sweep's duration, a re-run (with less left to do) killed within its first quarter, then a
  // re-run to the end; compared with the reference. The windows stay inside the work that is
  // left, so the kills land mid-sweep on an idle machine too.
  while (rounds < 40 &&
         (kills < kMinKills || rounds < 4 || Clock::now() - start < std::chrono::seconds(30))) {
    const std::string store = fmt::format("round-{}", rounds++);
    for (double share : {0.9, 0.25}) {
      std::uniform_int_distribution<int> delay_ms(0, static_cast<int>(seconds * share * 1000));
      HostProcess sweep(corpus().args(store, {"sweep", "--quiet"}), corpus().dir.path());
      sweep.wait_for(std::chrono::milliseconds(delay_ms(random)));
      if (sweep.kill())
        ++kills;
      else
        seconds *= 0.75;
      const int64_t events = stored_events(corpus().db(store));
      if (events > 0 && events < ref.events) ++partial;
    }
    HostProcess rerun(corpus().args(store, {"sweep", "--quiet"}), corpus().dir.path());
    const auto& result = rerun.wait();
    BOOST_REQUIRE_MESSAGE(result.exit_code == 0, result.err);
    BOOST_TEST(test::integrity_check(corpus().db(store)) == "ok");
    const auto dump = test::dump_store(corpus().db(store));
    BOOST_TEST(dump.size() == ref.dump.size());
    BOOST_TEST((dump == ref.dump),
               "round " << rounds << ": " << test::first_difference(ref.dump, dump));
    std::filesystem::remove_all(corpus().dir / store);
  }
  BOOST_TEST_MESSAGE(fmt::format("{} rounds, {} kills mid-sweep, {} left a partial store", rounds,
                                 kills, partial));
  // The kills must really have interrupted sweeps, or the test proves nothing.
  BOOST_TEST(kills >= kMinKills);
  BOOST_TEST(kills >= rounds);
  BOOST_TEST(partial >= rounds / 2);
}

BOOST_AUTO_TEST_CASE(readers_work_while_a_real_sweep_is_writing) {
  const Reference& ref = reference();
  HostProcess sweep(corpus().args("live", {"sweep", "--quiet"}), corpus().dir.path());
  const auto db = corpus().db("live");
  // Wait until the sweep has committed something, then read while it keeps writing.
  while (sweep.running() && stored_events(db) == 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  BOOST_REQUIRE_MESSAGE(sweep.running(), "the sweep ended before a reader could run");
  int reads = 0;
  int64_t first_seen = -1, last_seen = -1;
  const auto reader_dir = corpus().dir / "reader";
  std::filesystem::create_directories(reader_dir);
  while (sweep.running()) {
    HostProcess sessions(corpus().args("live", {"sessions", "--json"}), reader_dir);
    const auto& listed = sessions.wait();
    if (!sweep.running()) break;  // only count reads that overlapped the sweep
    BOOST_REQUIRE_MESSAGE(listed.exit_code == 0, listed.err);
    const auto list = boost::json::parse(listed.out).as_array();
    BOOST_REQUIRE(!list.empty());
    const std::string uid(list.back().at("session_uid").as_string());
    HostProcess show(corpus().args("live", {"show", uid, "--json"}), reader_dir);
    BOOST_TEST(show.wait().exit_code == 0, show.wait().err);
    BOOST_TEST(boost::json::parse(show.wait().out).at("session").at("session_uid").as_string() ==
               uid);
    HostProcess status(corpus().args("live", {"status", "--json"}), reader_dir);
    BOOST_TEST(status.wait().exit_code == 0, status.wait().err);
    const int64_t events = boost::json::parse(status.wait().out).at("events").as_int64();
    if (first_seen < 0) first_seen = events;
    last_seen = events;
    // A second sweep during this one leaves at once with 75.
    if (reads == 0) {
      const auto t0 = Clock::now();
      HostProcess second(corpus().args("live", {"sweep"}), reader_dir);
      const auto& busy = second.wait();
      BOOST_TEST(busy.exit_code == 75);
      BOOST_TEST(busy.err.find("another sweep is running") != std::string::npos);
      BOOST_TEST(std::chrono::duration<double>(Clock::now() - t0).count() < 2.0);
    }
    ++reads;
  }
  BOOST_TEST(sweep.wait().exit_code == 0);
  BOOST_TEST_MESSAGE(fmt::format("{} reader rounds during the sweep; events seen {} -> {} of {}",
                                 reads, first_seen, last_seen, ref.events));
  BOOST_TEST(reads >= 1);
  BOOST_TEST(first_seen < ref.events);  // the readers saw the store mid-sweep
  BOOST_TEST(test::dump_store(db) == ref.dump);
}

namespace {

// A file size limit (RLIMIT_FSIZE) for the processes started while it lives, with SIGXFSZ
// ignored: their writes past it fail with EFBIG, as a full disk fails them, at the same byte
// every time. The test process itself writes nothing while it is set.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &saved_);
    const struct rlimit limit = {bytes, saved_.rlim_max};
    BOOST_REQUIRE(::setrlimit(RLIMIT_FSIZE, &limit) == 0);
    old_handler_ = std::signal(SIGXFSZ, SIG_IGN);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, old_handler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  struct rlimit saved_ {};
  void (*old_handler_)(int) = SIG_DFL;
};

int64_t events_added_in(const std::string& summary) {
  const std::string key = "events added ";
  const auto at = summary.find(key);
  return at == std::string::npos ? -1 : std::stoll(summary.substr(at + key.size()));
}

}  // namespace

// The store's file cannot grow past a limit (a full disk, at a fixed byte): the sweep exits 74,
// says the store could not commit, and counts only the events the store holds; the next sweep,
// with room again, ends with the uninterrupted store.
BOOST_AUTO_TEST_CASE(a_full_disk_fails_the_sweep_truthfully_and_loses_nothing) {
  const Reference& ref = reference();
  for (rlim_t limit : {rlim_t{512} << 10, rlim_t{2} << 20}) {
    const std::string store = fmt::format("full-{}", limit);
    std::optional<HostProcess> sweep;
    {
      FileSizeLimit cap(limit);
      sweep.emplace(corpus().args(store, {"sweep"}), corpus().dir.path());
    }
    const auto& full = sweep->wait();
    BOOST_TEST_MESSAGE(fmt::format("file size limit {} KiB: exit {}, {}", limit >> 10,
                                   full.exit_code, full.err.substr(0, 300)));
    BOOST_TEST(full.exit_code == 74, full.err);
    BOOST_TEST(full.err.find("could not commit") != std::string::npos, full.err);
    const int64_t stored = stored_events(corpus().db(store));
    BOOST_TEST(stored < ref.events);
    BOOST_TEST(events_added_in(full.out) == stored, full.out);
    HostProcess again(corpus().args(store, {"sweep", "--quiet"}), corpus().dir.path());
    BOOST_TEST(again.wait().exit_code == 0, again.wait().err);
    BOOST_TEST(test::integrity_check(corpus().db(store)) == "ok");
    const auto dump = test::dump_store(corpus().db(store));
    BOOST_TEST((dump == ref.dump), test::first_difference(ref.dump, dump));
  }
}

namespace {

// The fault-injecting SQLite VFS (tests/fault_vfs) preloaded into the helix-host processes
// started while this lives; HELIX_FAULT_LOG gets one line per injected fault.
class FaultInjection {
 public:
  FaultInjection(const std::string& fault, const std::filesystem::path& log) {
    ::setenv("LD_PRELOAD", HELIX_TEST_FAULT_VFS, 1);
    ::setenv("HELIX_FAULT", fault.c_str(), 1);
    ::setenv("HELIX_FAULT_LOG", log.c_str(), 1);
  }
  ~FaultInjection() {
    ::unsetenv("LD_PRELOAD");
    ::unsetenv("HELIX_FAULT");
    ::unsetenv("HELIX_FAULT_LOG");
  }
  FaultInjection(const FaultInjection&) = delete;
  FaultInjection& operator=(const FaultInjection&) = delete;
};

struct FaultedSweep {
  test::HostResult result;
  int64_t faults = 0;  // lines of the fault log
};

// A sweep into `store` (created empty first, so that the faults land in the sweep's own
// writes, not in the schema's) with `fault` injected.
FaultedSweep sweep_with_fault(const std::string& store, const std::string& fault) {
  std::filesystem::create_directories(corpus().dir / store);
  { Store created(corpus().db(store), false); }
  const std::filesystem::path log = corpus().dir / (store + ".faults");
  std::optional<HostProcess> sweep;
  {
    FaultInjection inject(fault, log);
    sweep.emplace(corpus().args(store, {"sweep"}), corpus().dir.path());
  }
  FaultedSweep out{sweep->wait()};
  if (std::filesystem::exists(log)) {
    const std::string lines = test::read_file(log);
    out.faults = std::count(lines.begin(), lines.end(), '\n');
  }
  BOOST_TEST_MESSAGE(fmt::format("{}: exit {}, {} faults injected, {}", fault, out.result.exit_code,
                                 out.faults, out.result.err.substr(0, 400)));
  return out;
}

// The next sweep, without faults, ends with the uninterrupted store.
void recovers(const std::string& store) {
  HostProcess again(corpus().args(store, {"sweep", "--quiet"}), corpus().dir.path());
  BOOST_TEST(again.wait().exit_code == 0, again.wait().err);
  BOOST_TEST(test::integrity_check(corpus().db(store)) == "ok");
  const auto dump = test::dump_store(corpus().db(store));
  BOOST_TEST((dump == reference().dump), test::first_difference(reference().dump, dump));
}

}  // namespace

// Writes that fail (EIO) or come up short (a full disk), past a byte count of the sweep's own
// writes: exit 74, "could not commit", only the stored events counted; nothing lost.
BOOST_AUTO_TEST_CASE(failed_and_short_writes_fail_the_sweep_truthfully_and_lose_nothing) {
  const Reference& ref = reference();
  for (const std::string fault :
       {"write:200000", "write:1500000", "short:200000", "short:1500000"}) {
    const std::string store =
        "fault-" + fault.substr(0, fault.find(':')) + "-" + fault.substr(fault.find(':') + 1);
    const FaultedSweep faulted = sweep_with_fault(store, fault);
    BOOST_TEST(faulted.faults > 0);
    BOOST_TEST(faulted.result.exit_code == 74, faulted.result.err);
    BOOST_TEST(faulted.result.err.find("could not commit") != std::string::npos,
               faulted.result.err);
    const int64_t stored = stored_events(corpus().db(store));
    BOOST_TEST(stored < ref.events);
    BOOST_TEST(events_added_in(faulted.result.out) == stored, faulted.result.out);
    recovers(store);
  }
}

// Failed fsyncs: opening the store syncs (exit 3, "disk I/O error", nothing stored); after that,
// with WAL and synchronous = NORMAL, the store syncs on checkpoints only, where SQLite keeps
// the WAL when a sync fails, so every commit stands and is counted. A sweep of this corpus
// leaves its WAL under the size that is checkpointed at close (Database::~Database), so the
// later allowances may inject nothing; the counts must be true either way. The next sweep
// ends with the uninterrupted store.
BOOST_AUTO_TEST_CASE(failed_fsyncs_lose_nothing_and_the_counts_stay_true) {
  for (const std::string fault : {"fsync:0", "fsync:1", "fsync:2"}) {
    const std::string store = "fault-fsync-" + fault.substr(fault.find(':') + 1);
    const FaultedSweep faulted = sweep_with_fault(store, fault);
    if (fault == "fsync:0") BOOST_TEST(faulted.faults > 0);
    const int64_t stored = stored_events(corpus().db(store));
    if (faulted.result.exit_code == 3) {  // the store could not be opened: nothing was stored
      BOOST_TEST(faulted.result.err.find("disk I/O error") != std::string::npos,
                 faulted.result.err);
      BOOST_TEST(stored == 0);
    } else {
      BOOST_TEST((faulted.result.exit_code == 0 || faulted.result.exit_code == 74),
                 faulted.result.err);
      BOOST_TEST(events_added_in(faulted.result.out) == stored, faulted.result.out);
    }
    recovers(store);
  }
}

// The store locked past its busy timeout (10 s) by another process: before anything is stored
// the sweep exits 75 (try again later); mid-sweep it exits 74 after that one timeout instead of
// waiting it out again for every source, counting only what was stored.
BOOST_AUTO_TEST_CASE(a_store_locked_past_its_timeout_fails_the_sweep_once_and_truthfully) {
  const FaultedSweep early = sweep_with_fault("fault-busy-early", "busy:3");
  BOOST_TEST(early.result.exit_code == 75, early.result.err);
  BOOST_TEST(early.result.err.find("another process held the store") != std::string::npos,
             early.result.err);
  BOOST_TEST(early.result.err.find("try again later") != std::string::npos, early.result.err);
  recovers("fault-busy-early");

  const FaultedSweep late = sweep_with_fault("fault-busy-late", "busy:8");
  BOOST_TEST(late.result.exit_code == 74, late.result.err);
  BOOST_TEST(late.result.err.find("the sweep stores nothing more") != std::string::npos,
             late.result.err);
  // One busy timeout is about 110 refused attempts (SQLite's back-off over 10 s); waiting it
  // out for each of the remaining sources took 3,521 and five minutes.
  BOOST_TEST(late.faults < 250);
  const int64_t stored = stored_events(corpus().db("fault-busy-late"));
  BOOST_TEST(stored < reference().events);
  BOOST_TEST(events_added_in(late.result.out) == stored, late.result.out);
  recovers("fault-busy-late");
}

#include "cli/cmd_watch.hpp"

#include "app/watch.hpp"
#include "base/json_text.hpp"
#include "cli/cmd_fleet.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/sweep_summary.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <set>

namespace helix {
namespace {

std::atomic<bool> stop_requested{false};
int wake_write_fd = -1;

extern "C" void on_stop_signal(int) {
  stop_requested = true;
  if (wake_write_fd >= 0) [[maybe_unused]]
    auto n = ::write(wake_write_fd, "x", 1);
}

// SIGTERM (systemd, kill) and SIGINT (Ctrl-C) end the watch after the source being stored.
class StopSignals {
 public:
  StopSignals() {
    if (::pipe2(fds_, O_CLOEXEC | O_NONBLOCK) != 0)
      throw std::runtime_error("cannot create the watch's wake pipe");
    wake_write_fd = fds_[1];
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    action.sa_flags = SA_RESTART;  // the sweep's reads and writes carry on; the flag stops it
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGTERM, &action, nullptr);
    ::sigaction(SIGINT, &action, nullptr);
  }
  ~StopSignals() {
    ::signal(SIGTERM, SIG_DFL);
    ::signal(SIGINT, SIG_DFL);
    wake_write_fd = -1;
    ::close(fds_[0]);
    ::close(fds_[1]);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  int wake_fd() const { return fds_[0]; }

 private:
  int fds_[2] = {-1, -1};
};

std::chrono::milliseconds seconds_option(const boost::program_options::variables_map& vm,
                                         const char* name) {
  const double s = vm[name].as<double>();
  if (!(s >= 0.1 && s <= 86400))
    throw UsageError(fmt::format("--{} {}: give a number of seconds from 0.1 to 86400", name, s));
  return std::chrono::milliseconds(std::llround(s * 1000));
}

// One line per pass that stored or digested something (`--jsonl`: its summary as one JSON
// object, the `sweep --json` shape); each problem once while it lasts (a pass a second would
// otherwise repeat an orphaned source's line all day).
class PassPrinter {
 public:
  PassPrinter(bool quiet, bool jsonl, std::filesystem::path store)
      : quiet_(quiet), jsonl_(jsonl), store_(std::move(store)) {}
  void operator()(const PipelineReport& report) {
    const SweepReport& s = report.sweep;
    if (!quiet_ && (s.events_added > 0 || report.digest.sessions_digested > 0)) print_pass(report);
    std::set<std::string> now(s.problems.begin(), s.problems.end());
    now.insert(report.digest.problems.begin(), report.digest.problems.end());
    if (report.push && !report.push->problem.empty()) now.insert(push_step_line(*report.push));
    for (const auto& p : now)
      if (!said_.contains(p)) std::cerr << "helix-host: " << p << "\n";
    said_ = std::move(now);
  }

 private:
  void print_pass(const PipelineReport& report) const {
    const SweepReport& s = report.sweep;
    if (jsonl_)
      std::cout << to_json(sweep_summary_json(report, store_)) << "\n";
    else
      std::cout << fmt::format(
          "watch: {} events added from {} sources ({} sessions), {} sessions digested, in "
          "{:.2f} s\n",
          s.events_added, s.sources_seen - s.sources_unchanged, s.sessions_touched.size(),
          report.digest.sessions_digested, s.seconds + report.digest.seconds);
    std::cout << std::flush;
  }

  bool quiet_, jsonl_;
  std::filesystem::path store_;
  std::set<std::string> said_;
};

}  // namespace

int cmd_watch(const Globals& g, const std::vector<std::string>& args) {
  auto vm = parse_command("watch", args);
  WatchOptions options;
  options.poll = vm.count("poll") > 0;
  options.poll_interval = seconds_option(vm, "interval");
  options.rescan_interval = seconds_option(vm, "rescan");
  const bool quiet = vm.count("quiet") > 0;
  const bool jsonl = vm.count("jsonl") > 0;  // stdout is the JSON stream: no other lines there
  Config config = load_configuration(g);
  PluginRegistry registry;
  load_adapter_plugins(registry, g, config);
  const auto db_file = store_file(g, config);
  StopSignals signals;
  PassPrinter print_pass(quiet, jsonl, db_file);
  WatchEvents events{[&](const std::string& line) {
                       if (!quiet && !jsonl) std::cout << "watch: " << line << "\n" << std::flush;
                     },
                     [&](const PipelineReport& report) { print_pass(report); }};
  run_watch(registry, config, db_file, options, events, stop_requested, signals.wake_fd());
  if (!quiet && !jsonl) std::cout << "watch: stopped\n";
  return kExitOk;
}

}  // namespace helix

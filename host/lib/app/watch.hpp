// `helix-host watch`: a resident sweep. It follows the agents' source folders (inotify, else a
// timer) and runs the pipeline soon after a transcript grows, taking the store's writer lock
// (SweepLock) for each pass only, so cron sweeps and hooks keep working beside it.
#pragma once

#include "app/pipeline.hpp"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <string>

namespace helix {

struct WatchOptions {
  // After a change, how long to wait for the agent's next writes before sweeping them together.
  std::chrono::milliseconds settle{150};
  // Without inotify (or with `poll`): the time between two sweeps.
  std::chrono::milliseconds poll_interval{1000};
  // With inotify: a sweep at least this often anyway (a root created since, a network file
  // system that sends no events), and the folders listed again.
  std::chrono::milliseconds rescan_interval{60000};
  // While another process holds the store's lock: the time until the next try.
  std::chrono::milliseconds busy_retry{500};
  bool poll = false;  // never use inotify
};

// What the watch tells its caller, as it happens.
struct WatchEvents {
  std::function<void(const std::string&)> note;           // how it follows (once, at start)
  std::function<void(const PipelineReport&)> after_pass;  // every pass that ran
};

// Thrown through a running pass when `stop` is set; the pass commits what it stored up to the
// last source it finished (as a crash would leave it, minus the replay).
struct WatchStopped {};

// Runs until `stop` is set; `wake_fd` (a pipe the signal handler writes to) interrupts a wait.
// A pass that fails (the store cannot be opened or written) throws out of it: the service
// manager restarts the watch.
void run_watch(const PluginRegistry& plugins, const Config& config,
               const std::filesystem::path& db_file, const WatchOptions& options,
               const WatchEvents& events, const std::atomic<bool>& stop, int wake_fd);

}  // namespace helix

#include "app/watch.hpp"

#include "app/tree_watch.hpp"
#include "ingest/discovery.hpp"
#include "store/sweep_lock.hpp"

#include <fmt/format.h>
#include <poll.h>

#include <algorithm>
#include <optional>

namespace helix {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

std::vector<std::string> adapters_source_trees(const PluginRegistry& plugins,
                                               const Config& config) {
  std::vector<RootPattern> sources;
  for (const PluginInfo* plugin : plugins.adapters())
    for (const auto& root : adapter_roots(*plugin->adapter, config))
      for (auto p = plugin->adapter->patterns; p && p->glob; ++p)
        sources.push_back({root, p->glob});
  return source_trees(sources);
}

enum class Woke { timeout, tree, signal };

// Waits until the tree has events, the wake pipe is written, or `timeout` is over.
Woke wait_for(int tree_fd, int wake_fd, milliseconds timeout) {
  pollfd fds[2] = {{wake_fd, POLLIN, 0}, {tree_fd, POLLIN, 0}};
  const int ms = static_cast<int>(std::clamp<int64_t>(timeout.count(), 0, 3'600'000));
  const int n = ::poll(fds, tree_fd >= 0 ? 2 : 1, ms);
  if (n <= 0) return n == 0 ? Woke::timeout : Woke::signal;  // EINTR: a signal came
  if (fds[0].revents != 0) return Woke::signal;
  return Woke::tree;
}

// What an attempt at a pass came to.
enum class Pass { done, busy, stopped };

// One pass of the pipeline under the store's lock; busy when another process holds it.
Pass run_pass(const PluginRegistry& plugins, const Config& config,
              const std::filesystem::path& db_file, const WatchEvents& events,
              const std::atomic<bool>& stop) {
  SweepLock lock(db_file);
  if (!lock.acquired()) return Pass::busy;
  Store store(db_file);
  Pipeline pipeline(store, plugins, config);
  try {
    const PipelineReport report = pipeline.sweep_all([&](std::size_t, std::size_t, const auto&) {
      if (stop) throw WatchStopped{};  // between two sources: what is stored is whole
    });
    if (events.after_pass) events.after_pass(report);
  } catch (const WatchStopped&) {
    return Pass::stopped;
  }
  return Pass::done;
}

// Waits for the next reason to sweep: a change under the trees (and the settle time after it),
// or the rescan or poll period since the last pass. False when the watch is to stop.
bool wait_for_change(std::optional<TreeWatch>& tree, const WatchOptions& options,
                     Clock::time_point last_pass, int wake_fd, const std::atomic<bool>& stop) {
  const bool following = tree && tree->following();
  const auto interval = following ? options.rescan_interval : options.poll_interval;
  while (!stop) {
    const auto left = std::chrono::duration_cast<milliseconds>(last_pass + interval - Clock::now());
    const Woke woke = wait_for(following ? tree->fd() : -1, wake_fd, left);
    if (stop) return false;
    if (woke == Woke::timeout) {
      if (following) tree->refresh();
      return true;
    }
    if (woke == Woke::tree && tree->drain()) {
      wait_for(-1, wake_fd, options.settle);  // the agent's next lines come with these
      tree->drain();
      return true;
    }
  }
  return false;
}

void say(const WatchEvents& events, const std::string& line) {
  if (events.note) events.note(line);
}

std::string how_it_follows(const std::optional<TreeWatch>& tree, const WatchOptions& options) {
  const double poll_s = static_cast<double>(options.poll_interval.count()) / 1000;
  const double rescan_s = static_cast<double>(options.rescan_interval.count()) / 1000;
  if (tree && tree->following())
    return fmt::format("following {} folders with inotify (and a full sweep every {:g} s)",
                       tree->folders(), rescan_s);
  if (!tree) return fmt::format("polling every {:g} s (--poll)", poll_s);
  return fmt::format("polling every {:g} s: {}", poll_s, tree->why_not_following());
}

}  // namespace

void run_watch(const PluginRegistry& plugins, const Config& config,
               const std::filesystem::path& db_file, const WatchOptions& options,
               const WatchEvents& events, const std::atomic<bool>& stop, int wake_fd) {
  std::optional<TreeWatch> tree;
  if (!options.poll) tree.emplace(adapters_source_trees(plugins, config));
  say(events, how_it_follows(tree, options));
  bool following = tree && tree->following();
  // The first pass catches up with what came while nothing watched.
  while (!stop) {
    const Pass pass = run_pass(plugins, config, db_file, events, stop);
    if (pass == Pass::stopped) break;
    if (pass == Pass::busy) {  // a sweep or a hook is running: try again soon
      wait_for(-1, wake_fd, options.busy_retry);
      continue;
    }
    const auto last_pass = Clock::now();
    if (following && !tree->following()) say(events, how_it_follows(tree, options));
    following = tree && tree->following();
    if (!wait_for_change(tree, options, last_pass, wake_fd, stop)) break;
  }
}

}  // namespace helix

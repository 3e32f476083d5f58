#include "ingest/sweep.hpp"

#include "ingest/batch_writer.hpp"
#include "ingest/source_file.hpp"
#include "ingest/source_reader.hpp"
#include "ingest/step_queue.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <exception>
#include <filesystem>
#include <thread>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <utility>

namespace helix {
namespace {

// A sweep's writes commit together until about this many chunks of input or this long has
// gone by: each COMMIT flushes a search index segment and the WAL, and committing every chunk
// cost the writer thread 15% more CPU than every 8 (a crash replays at most that much).
constexpr int64_t kChunksPerCommit = 8;
constexpr std::chrono::milliseconds kBatchAge{2000};

// Holds the store's write batch for one sweep; whatever is pending commits when it ends.
class BatchScope {
 public:
  BatchScope(Store& store, int64_t bytes) : store_(store) { store_.begin_batch(bytes, kBatchAge); }
  ~BatchScope() {
    try {
      store_.end_batch();
    } catch (const std::exception&) {
      // Unwinding already: a lost last batch's sources are read again next sweep.
    }
  }
  BatchScope(const BatchScope&) = delete;
  BatchScope& operator=(const BatchScope&) = delete;
  void finish(SweepReport& report) {
    try {
      store_.end_batch();
      note_committed(report);
    } catch (const BatchLost& e) {
      report_lost_batch(report, e);
    }
  }

 private:
  Store& store_;
};

// The discovered source at `path` (the list is sorted by path), or -1.
std::ptrdiff_t index_of(const std::vector<DiscoveredSource>& sources, const std::string& path) {
  auto it =
      std::lower_bound(sources.begin(), sources.end(), path,
                       [](const DiscoveredSource& s, const std::string& p) { return s.path < p; });
  return it != sources.end() && it->path == path ? it - sources.begin() : -1;
}

}  // namespace

Sweep::Sweep(Store& store, const PluginRegistry& plugins, const Config& config,
             SweepOptions options)
    : store_(store), plugins_(plugins), config_(config), options_(std::move(options)) {}

// Only the sources that changed are opened and read: the rest are told apart by one stat each
// against a summary of their stored cursor, and no full cursor is held for them.
SweepReport Sweep::run(const SweepProgress& progress) {
  const auto start = std::chrono::steady_clock::now();
  SweepReport report;
  Discovery discovery = discover(plugins_.adapters(), config_);
  for (const auto& r : discovery.refused_credentials)
    report.problems.push_back(fmt::format(
        "{}: plugin '{}' asked for this file, which holds credentials; refused, never opened",
        r.path, r.plugin));
  for (const auto& s : discovery.skipped)
    report.problems.push_back(fmt::format("{}: {}", s.path, s.reason));
  report.paths_refused =
      static_cast<int64_t>(discovery.refused_credentials.size() + discovery.skipped.size());
  const auto& sources = discovery.sources;
  mark_orphans(report);
  BatchScope batch(store_, config_.chunk_bytes * kChunksPerCommit);
  CursorScan scan = scan_cursors(sources);
  if (follow_renames(scan.moves)) scan = scan_cursors(sources);  // rare: again
  SourceList to_read = sources_to_read(sources, scan.unchanged, report);
  report = run_pipeline(to_read, load_cursors(to_read), progress, std::move(report),
                        sources.size() - to_read.size());
  mark_missing(scan.undiscovered, report);
  batch.finish(report);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

SweepReport Sweep::run_paths(const std::vector<std::string>& paths) {
  std::vector<DiscoveredSource> sources(paths.size());
  SourceList list;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    sources[i].path = paths[i];
    list.push_back(&sources[i]);
  }
  BatchScope batch(store_, config_.chunk_bytes * kChunksPerCommit);
  SweepReport report = run_pipeline(list, load_cursors(list), {}, SweepReport{});
  batch.finish(report);
  return report;
}

// Only the cursors these files may have: their path's, or their inode's (a rename).
CursorTable Sweep::load_cursors(const SourceList& sources) {
  CursorTable cursors;
  for (const DiscoveredSource* source : sources) {
    if (auto cursor = store_.find_source(source->path)) cursors.put(*cursor);
    const FileIdentity id = stat_identity(source->path);
    if (id.ino != 0)
      if (auto cursor = store_.find_source_by_identity(id.dev, id.ino)) cursors.put(*cursor);
  }
  return cursors;
}

// One pass over the stored cursors' summaries (the store has thousands): which discovered
// sources are unchanged (a cursor that is active and whose file is as last seen: counted, never
// opened), which cursors' files now have another path, and which cursors' paths were not
// discovered at all (missing, unless a rename explains them).
Sweep::CursorScan Sweep::scan_cursors(const std::vector<DiscoveredSource>& sources) {
  using Key = std::pair<uint64_t, uint64_t>;
  std::vector<std::pair<Key, std::size_t>> where;  // (identity, source), sorted
  where.reserve(sources.size());
  for (std::size_t i = 0; i < sources.size(); ++i)
    if (const FileIdentity& id = sources[i].identity; id.ino != 0)
      where.push_back({{id.dev, id.ino}, i});
  std::sort(where.begin(), where.end());
  CursorScan scan;
  scan.unchanged.resize(sources.size());
  store_.scan_sources([&](const SourceSummary& cursor) {
    const std::ptrdiff_t i = index_of(sources, cursor.path);
    if (i < 0 && cursor.state != SourceState::missing) scan.undiscovered.push_back(cursor.path);
    if (i >= 0 && cursor.state == SourceState::active &&
        nothing_to_do(cursor, sources[static_cast<std::size_t>(i)].identity,
                      config_.final_line_grace_seconds) &&
        !reparse_due(cursor))
      scan.unchanged[static_cast<std::size_t>(i)] = true;
    if (cursor.head_len == 0) return;
    const Key key{cursor.dev, cursor.ino};
    auto it = std::upper_bound(where.begin(), where.end(), std::pair{key, SIZE_MAX});
    if (it == where.begin() || (--it)->first != key) return;  // the last path of the file
    const std::string& now = sources[it->second].path;
    if (now != cursor.path) scan.moves.emplace_back(cursor.path, now);
  });
  return scan;
}

// The sources to open and read; the unchanged ones are counted here, which is all a visit
// would have done with them.
SourceList Sweep::sources_to_read(const std::vector<DiscoveredSource>& sources,
                                  const std::vector<bool>& unchanged, SweepReport& report) {
  SourceList to_read;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    if (!unchanged[i]) {
      to_read.push_back(&sources[i]);
      continue;
    }
    ++report.sources_seen;
    ++report.sources_unchanged;
  }
  return to_read;
}

SweepReport Sweep::run_pipeline(const SourceList& sources, CursorTable cursors,
                                const SweepProgress& progress, SweepReport report,
                                std::size_t skipped) {
  StepQueue queue(config_.chunk_bytes / 4);
  std::exception_ptr read_failure;
  {
    SourceReader reader(plugins_, config_, options_, sources, std::move(cursors), queue);
    std::thread reading([&] {
      try {
        reader.run();
      } catch (const StepQueue::Aborted&) {
        // The storing side failed and says why.
      } catch (...) {
        read_failure = std::current_exception();
      }
      queue.close();
    });
    struct Join {  // also when storing throws: the reader must not outlive this frame
      StepQueue& queue;
      std::thread& reading;
      ~Join() {
        queue.abort();
        reading.join();
      }
    } join{queue, reading};
    BatchWriter writer(store_, queue, sources);
    const std::size_t total = skipped + sources.size();
    std::size_t done = skipped;
    if (progress && skipped > 0) progress(done, total, sources.empty() ? "" : sources[0]->path);
    while (auto step = queue.pop()) {
      writer.apply(*step, report);
      if (step->ends_visit && progress) progress(++done, total, sources[step->visit]->path);
    }
  }  // the reader's chunk-sized buffers are freed here, before what follows (the digests)
#ifdef __GLIBC__
  malloc_trim(0);  // the reading thread's malloc arena keeps its chunks' pages otherwise
#endif
  if (read_failure) std::rethrow_exception(read_failure);
  return report;
}

// Before the cursors are scanned: a source whose plugin is not loaded is orphaned and named in
// the report on every sweep until its plugin is back; then it counts as unchanged again.
void Sweep::mark_orphans(SweepReport& report) {
  std::vector<std::string> loaded;
  for (const PluginInfo* p : plugins_.adapters()) loaded.push_back(p->name);
  store_.mark_orphans(loaded);
  for (const auto& s : store_.unread_sources()) {
    if (s.state != SourceState::orphaned) continue;
    ++report.sources_orphaned;
    report.problems.push_back(fmt::format(
        "{}: claimed by plugin '{}', which is not loaded; orphaned: left unread until it is back",
        s.path, s.adapter));
  }
}

bool Sweep::reparse_due(const SourceSummary& cursor) const {
  const PluginInfo* plugin = plugins_.find(cursor.adapter);
  if (!plugin) return false;
  return std::find(options_.reparse.begin(), options_.reparse.end(), plugin->name) !=
             options_.reparse.end() ||
         reparse_worthy(cursor.adapter_version, *plugin);
}

// Files renamed since the last sweep (rotation: x.jsonl moved away, a new x.jsonl created in
// its place) keep their cursor: a cursor whose file (same device and inode, same first bytes)
// now sits at another discovered path moves there before anything is read, so the renamed file
// is not read again and the new file at the old path starts a cursor of its own.
bool Sweep::follow_renames(const std::vector<std::pair<std::string, std::string>>& moves) {
  bool moved = false;
  for (const auto& [from, to] : moves) {
    const FileIdentity at_from = stat_identity(from);
    auto cursor = store_.find_source(from);
    if (!cursor) continue;
    if (at_from.ino == cursor->ino && at_from.dev == cursor->dev)
      continue;                            // still at its path too (a hard link): nothing moved
    if (store_.find_source(to)) continue;  // that path has a cursor of its own
    try {
      SourceFile file(to);
      if (file.hash(0, cursor->head_len) != cursor->head_hash) continue;
    } catch (const std::exception&) {
      continue;  // unreadable now: the visit reports it
    }
    cursor->path = to;
    store_.save_source(*cursor);
    moved = true;
  }
  return moved;
}

// The cursors whose paths discovery did not find (none of them is a source read since) and
// whose files are gone; a rename has moved its cursor away already (find_source fails).
void Sweep::mark_missing(const std::vector<std::string>& undiscovered, SweepReport& report) {
  for (const auto& path : undiscovered) {
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) continue;
    auto cursor = store_.find_source(path);
    if (!cursor || cursor->state == SourceState::missing) continue;
    cursor->state =
        SourceState::missing;  // its rows stay: agents delete old transcripts, we keep them
    store_.save_source(*cursor);
    ++report.sources_missing;
  }
}

}  // namespace helix

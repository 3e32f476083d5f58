#include "ingest/sweep.hpp"

#include "base/clock.hpp"
#include "ingest/source_file.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <xxhash.h>
#include <algorithm>
#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <utility>

namespace helix {
namespace {

constexpr int64_t kHeadBytes = 4096;  // identity fingerprint of a file's beginning
constexpr int64_t kTailBytes = 256;   // fingerprint of the bytes just before the offset
constexpr std::size_t kProbeBytes = 64 * 1024;

// Of a SourceCursor or a SourceSummary.
template <class Cursor>
bool same_file_state(const Cursor& c, const FileIdentity& id) {
  return c.dev == id.dev && c.ino == id.ino && c.size == id.size && c.mtime_ns == id.mtime_ns;
}

// Nothing to do: the file is as last seen, and an unfinished last line in it (if any) is still
// within its grace period, so it cannot be delivered yet.
template <class Cursor>
bool nothing_to_do(const Cursor& c, const FileIdentity& id, int64_t grace_seconds) {
  if (!same_file_state(c, id)) return false;
  if (c.compressed || c.offset >= id.size) return true;
  return now_ns() - c.mtime_ns < grace_seconds * 1000000000;
}

// Warning categories that mean damaged input (as opposed to records of an unknown kind).
bool is_damage(const std::string& category) {
  static const std::set<std::string> kDamage = {"invalid_json",   "not_an_object",
                                                "invalid_record", "record_too_large",
                                                "nul_bytes",      "invalid_utf8"};
  return kDamage.count(category) > 0;
}

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
    } catch (const BatchLost& e) {
      report_lost_batch(report, e);
    }
  }
  static void report_lost_batch(SweepReport& report, const BatchLost& e) {
    report.problems.push_back(fmt::format(
        "the store lost its uncommitted writes ({}); the files they came from are read again "
        "by the next sweep",
        e.what()));
  }

 private:
  Store& store_;
};

constexpr int64_t kDamageLines = 20;  // damaged records named one by one per sweep; then counted

// Runs of NUL bytes are what a crashed append leaves (ext4 delayed allocation, a stale writer
// after a truncate). They become blanks of the same length: offsets stay true and the record
// written after the run on the same line still parses. Each run is reported where it is.
void blank_nul_runs(std::string& buf, int64_t base, RecordBatch& batch) {
  for (auto at = buf.find('\0'); at != std::string::npos; at = buf.find('\0', at)) {
    const auto end = std::min(buf.find_first_not_of('\0', at), buf.size());
    std::fill(buf.begin() + static_cast<std::ptrdiff_t>(at),
              buf.begin() + static_cast<std::ptrdiff_t>(end), ' ');
    batch.warnings.push_back({static_cast<uint64_t>(base) + at, "nul_bytes",
                              fmt::format("{} NUL bytes (the trace of a crashed or torn write); "
                                          "read as blanks",
                                          end - at)});
    at = end;
  }
}

// Adds what one side of the sweep counted to the report, in the order it happened.
void merge(SweepReport& into, SweepReport&& from) {
  for (auto [to, add] : {std::pair{&into.sources_seen, from.sources_seen},
                         {&into.sources_new, from.sources_new},
                         {&into.sources_changed, from.sources_changed},
                         {&into.sources_unchanged, from.sources_unchanged},
                         {&into.sources_rewritten, from.sources_rewritten},
                         {&into.sources_unclaimed, from.sources_unclaimed},
                         {&into.sources_missing, from.sources_missing},
                         {&into.sources_failed, from.sources_failed},
                         {&into.events_added, from.events_added},
                         {&into.copies_skipped, from.copies_skipped},
                         {&into.usage_records, from.usage_records},
                         {&into.bytes_read, from.bytes_read},
                         {&into.bad_records, from.bad_records}})
    *to += add;
  into.sessions_touched.merge(from.sessions_touched);
  for (const auto& [category, n] : from.warnings_by_category)
    into.warnings_by_category[category] += n;
  into.problems.insert(into.problems.end(), std::make_move_iterator(from.problems.begin()),
                       std::make_move_iterator(from.problems.end()));
}

// Runs a write of a cursor the parsing thread knows by a provisional id (a source new in this
// sweep) under the id the store gave it, and remembers that id for the source's next writes.
void with_store_id(std::map<int64_t, int64_t>& store_ids, SourceCursor& c,
                   const std::function<void()>& write) {
  const int64_t provisional = c.id;
  if (provisional < 0) {
    auto it = store_ids.find(provisional);
    c.id = it == store_ids.end() ? 0 : it->second;
  }
  write();
  if (provisional < 0 && c.id > 0) store_ids[provisional] = c.id;
}

// The identity of a file as stat() sees it; all zero when it cannot be read (its visit says why).
FileIdentity stat_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  return {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino),
          static_cast<int64_t>(st.st_size),
          static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

// The discovered source at `path` (the list is sorted by path), or -1.
std::ptrdiff_t index_of(const std::vector<DiscoveredSource>& sources, const std::string& path) {
  auto it =
      std::lower_bound(sources.begin(), sources.end(), path,
                       [](const DiscoveredSource& s, const std::string& p) { return s.path < p; });
  return it != sources.end() && it->path == path ? it - sources.begin() : -1;
}

void adopt_identity(SourceCursor& c, const FileIdentity& id) {
  c.dev = id.dev;
  c.ino = id.ino;
  c.size = id.size;
  c.mtime_ns = id.mtime_ns;
}

}  // namespace

void CursorTable::forget(const std::string& path) {
  auto it = by_path_.find(path);
  if (it == by_path_.end()) return;
  auto [lo, hi] = by_identity_.equal_range({it->second.dev, it->second.ino});
  for (auto i = lo; i != hi; ++i)
    if (i->second == path) {
      by_identity_.erase(i);
      break;
    }
  by_path_.erase(it);
}

void CursorTable::put(const SourceCursor& cursor, const std::string& old_path) {
  if (!old_path.empty()) forget(old_path);
  forget(cursor.path);
  by_path_.emplace(cursor.path, cursor);
  by_identity_.emplace(std::pair{cursor.dev, cursor.ino}, cursor.path);
}

void CursorTable::retire(const std::string& path, std::size_t visit) {
  auto it = by_path_.find(path);
  if (it == by_path_.end()) return;
  visited_.emplace(std::pair{it->second.dev, it->second.ino}, visit);  // the first one stays
  forget(path);
}

std::optional<std::size_t> CursorTable::visited(uint64_t dev, uint64_t ino) const {
  auto it = visited_.find({dev, ino});
  if (it == visited_.end()) return std::nullopt;
  return it->second;
}

std::optional<SourceCursor> CursorTable::find(const std::string& path) const {
  auto it = by_path_.find(path);
  if (it == by_path_.end()) return std::nullopt;
  return it->second;
}

std::optional<SourceCursor> CursorTable::find(uint64_t dev, uint64_t ino) const {
  // As the store would answer: stored rows by id, then this sweep's new ones as created.
  auto rank = [](int64_t id) { return id > 0 ? id : INT64_MAX + id; };
  const SourceCursor* best = nullptr;
  auto [lo, hi] = by_identity_.equal_range({dev, ino});
  for (auto i = lo; i != hi; ++i) {
    const SourceCursor& c = by_path_.at(i->second);
    if (!best || rank(c.id) < rank(best->id)) best = &c;
  }
  if (!best) return std::nullopt;
  return *best;
}

// One write of the storing thread, in the parsing thread's order.
struct Sweep::Step {
  std::size_t visit = 0;
  SweepReport delta;  // the parsing thread's report changes made before the write
  std::function<void(SweepReport&)> write;  // empty for a step that only reports
  int64_t bytes = 0;  // source bytes the step carries: the queue's memory bound
  bool ends_visit = false;
};

// The queue between the parsing thread and the storing thread. The parser waits before each
// chunk while the queue holds a quarter chunk or more, so at most about two chunks' records
// (one being stored, one queued or being parsed) are held at once, while small sources still
// queue many at a time.
class Sweep::Pipeline {
 public:
  struct Aborted {};  // the storing side gave up: the parsing thread stops

  explicit Pipeline(int64_t budget) : budget_(std::max<int64_t>(1, budget)) {}

  void wait_for_room() {
    std::unique_lock lock(mutex_);
    room_.wait(lock, [&] { return aborted_ || bytes_ < budget_; });
    if (aborted_) throw Aborted{};
  }
  void push(Step step) {
    std::unique_lock lock(mutex_);
    room_.wait(lock, [&] { return aborted_ || queue_.size() < kMaxSteps; });
    if (aborted_) throw Aborted{};
    bytes_ += step.bytes;
    queue_.push_back(std::move(step));
    ready_.notify_one();
  }
  std::optional<Step> pop() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return closed_ || !queue_.empty(); });
    if (queue_.empty()) return std::nullopt;
    Step step = std::move(queue_.front());
    queue_.pop_front();
    bytes_ -= step.bytes;
    room_.notify_one();
    return step;
  }
  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    ready_.notify_one();
  }
  void abort() {
    std::lock_guard lock(mutex_);
    aborted_ = true;
    room_.notify_one();
  }
  // A write of this visit failed: the parser may stop reading its source.
  void fail(std::size_t visit) { failed_.store(visit); }
  bool failed(std::size_t visit) const { return failed_.load() == visit; }

 private:
  static constexpr std::size_t kMaxSteps = 1024;
  const int64_t budget_;
  std::mutex mutex_;
  std::condition_variable ready_, room_;
  std::deque<Step> queue_;
  int64_t bytes_ = 0;
  bool closed_ = false, aborted_ = false;
  std::atomic<std::size_t> failed_{SIZE_MAX};
};

Sweep::Sweep(Store& store, const PluginRegistry& plugins, const Config& config)
    : store_(store), plugins_(plugins), config_(config), repos_(config.repo_domains) {}

Sweep::~Sweep() = default;

const AdapterInstance& Sweep::instance(const PluginInfo& plugin) {
  auto& slot = instances_[plugin.name];
  if (!slot) {
    auto it = config_.adapter_settings.find(plugin.name);
    slot = std::make_unique<AdapterInstance>(
        plugin, it == config_.adapter_settings.end() ? "{}" : it->second, &*redactor_);
  }
  return *slot;
}

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
  const auto& sources = discovery.sources;
  BatchScope batch(store_, config_.chunk_bytes * kChunksPerCommit);
  std::vector<FileIdentity> identities;
  identities.reserve(sources.size());
  for (const auto& source : sources) identities.push_back(stat_identity(source.path));
  CursorScan scan = scan_cursors(sources, identities);
  if (follow_renames(scan.moves)) scan = scan_cursors(sources, identities);  // rare: again
  SourceList to_read = sources_to_read(sources, scan.unchanged, report);
  std::vector<FileIdentity>().swap(identities);
  load_cursors(to_read);
  report = run_pipeline(to_read, progress, std::move(report), sources.size() - to_read.size());
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
  load_cursors(list);
  BatchScope batch(store_, config_.chunk_bytes * kChunksPerCommit);
  SweepReport report = run_pipeline(list, {}, SweepReport{});
  batch.finish(report);
  return report;
}

// Only the cursors these files may have: their path's, or their inode's (a rename).
void Sweep::load_cursors(const SourceList& sources) {
  cursors_ = CursorTable{};
  for (const DiscoveredSource* source : sources) {
    if (auto cursor = store_.find_source(source->path)) cursors_.put(*cursor);
    const FileIdentity id = stat_identity(source->path);
    if (id.ino != 0)
      if (auto cursor = store_.find_source_by_identity(id.dev, id.ino)) cursors_.put(*cursor);
  }
}

// One pass over the stored cursors' summaries (the store has thousands): which discovered
// sources are unchanged (a cursor that is active and whose file is as last seen: counted, never
// opened), which cursors' files now have another path, and which cursors' paths were not
// discovered at all (missing, unless a rename explains them).
Sweep::CursorScan Sweep::scan_cursors(const std::vector<DiscoveredSource>& sources,
                                      const std::vector<FileIdentity>& identities) {
  using Key = std::pair<uint64_t, uint64_t>;
  std::vector<std::pair<Key, std::size_t>> where;  // (identity, source), sorted
  where.reserve(sources.size());
  for (std::size_t i = 0; i < sources.size(); ++i)
    if (identities[i].ino != 0) where.push_back({{identities[i].dev, identities[i].ino}, i});
  std::sort(where.begin(), where.end());
  CursorScan scan;
  scan.unchanged.resize(sources.size());
  store_.scan_sources([&](const SourceSummary& cursor) {
    const std::ptrdiff_t i = index_of(sources, cursor.path);
    if (i < 0 && cursor.state != "missing") scan.undiscovered.push_back(cursor.path);
    if (i >= 0 && cursor.state == "active" &&
        nothing_to_do(cursor, identities[static_cast<std::size_t>(i)],
                      config_.final_line_grace_seconds))
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
Sweep::SourceList Sweep::sources_to_read(const std::vector<DiscoveredSource>& sources,
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

SweepReport Sweep::run_pipeline(const SourceList& sources, const SweepProgress& progress,
                                SweepReport report, std::size_t skipped) {
  if (!sources.empty() && !redactor_) redactor_.emplace(config_.redaction);
  Pipeline pipeline(config_.chunk_bytes / 4);
  pipeline_ = &pipeline;
  sources_ = &sources;
  store_ids_.clear();
  failed_visit_ = SIZE_MAX;
  std::exception_ptr parse_failure;
  std::thread parser([&] {
    try {
      produce(sources);
    } catch (const Pipeline::Aborted&) {
      // The storing side failed and says why.
    } catch (...) {
      parse_failure = std::current_exception();
    }
    pipeline.close();
  });
  struct Join {  // also when storing throws: the parser must not outlive this frame
    Pipeline& pipeline;
    std::thread& parser;
    ~Join() {
      pipeline.abort();
      parser.join();
    }
  };
  {
    Join join{pipeline, parser};
    const std::size_t total = skipped + sources.size();
    std::size_t done = skipped;
    if (progress && skipped > 0) progress(done, total, sources.empty() ? "" : sources[0]->path);
    while (auto step = pipeline.pop()) {
      apply(*step, report);
      if (!step->ends_visit) continue;
      store_ids_.clear();  // a provisional id is only ever used within its own visit
      if (progress) progress(++done, total, sources[step->visit]->path);
    }
  }
  pipeline_ = nullptr;
  sources_ = nullptr;
  std::string().swap(read_buffer_);  // chunk-sized: not kept for what follows (the digests)
#ifdef __GLIBC__
  malloc_trim(0);  // the parsing thread's malloc arena keeps its chunks' pages otherwise
#endif
  if (parse_failure) std::rethrow_exception(parse_failure);
  return report;
}

// The parsing thread: every source in order, each visit's writes handed over as steps.
void Sweep::produce(const SourceList& sources) {
  for (visit_ = 0; visit_ < sources.size(); ++visit_) {
    visit(*sources[visit_], pending_);
    cursors_.retire(sources[visit_]->path, visit_);
    pipeline_->push(Step{visit_, std::exchange(pending_, SweepReport{}), {}, 0, true});
  }
}

void Sweep::emit(std::function<void(SweepReport&)> write, int64_t bytes) {
  pipeline_->push(
      Step{visit_, std::exchange(pending_, SweepReport{}), std::move(write), bytes, false});
}

// The storing thread: a failed write fails its source as a failed visit did, and the rest of
// that visit's writes are dropped (not its counts and messages).
void Sweep::apply(Step& step, SweepReport& report) {
  merge(report, std::move(step.delta));
  if (step.write && step.visit != failed_visit_) {
    try {
      step.write(report);
    } catch (const BatchLost& e) {
      lose_batch(step.visit, e, report);
    } catch (const std::exception& e) {
      fail_visit(step.visit, e.what(), report);
    }
  }
  try {
    store_.commit_if_due();
  } catch (const BatchLost& e) {
    lose_batch(step.visit, e, report);
  }
}

void Sweep::fail_visit(std::size_t visit, const std::string& why, SweepReport& report) {
  if (visit == failed_visit_) return;
  failed_visit_ = visit;
  pipeline_->fail(visit);
  ++report.sources_failed;
  report.problems.push_back(fmt::format("{}: {}", (*sources_)[visit]->path, why));
}

// Sources of earlier visits in the lost batch kept their stored cursors. The visit being
// stored must stop: the parsing thread moved its cursor past chunks that are gone, and its
// next chunk would save that cursor in a new batch.
void Sweep::lose_batch(std::size_t visit, const BatchLost& e, SweepReport& report) {
  store_ids_.clear();  // rows of sources new in the batch went with it
  BatchScope::report_lost_batch(report, e);
  fail_visit(visit, "stopped: its latest chunks were among the lost writes", report);
}

void Sweep::save(SourceCursor& cursor) {
  cursors_.put(cursor);
  emit([this, c = cursor](SweepReport&) mutable {
    with_store_id(store_ids_, c, [&] { store_.save_source(c); });
  });
}

void Sweep::stage_commit(SourceCursor& cursor, RecordBatch&& batch, bool new_generation,
                         int64_t input_bytes) {
  cursors_.put(cursor);
  for (auto& session : batch.sessions) repos_.attribute(session);
  // Compressing is a quarter of the writer's work: done here, it runs beside the writer.
  if (!batch.events.empty()) {
    batch.packs = pack_batch(batch, packer_);
    batch.payloads = {};
  }
  emit(
      [this, c = cursor, b = std::move(batch), new_generation,
       input_bytes](SweepReport& report) mutable {
        with_store_id(store_ids_, c, [&] { commit(c, b, new_generation, input_bytes, report); });
      },
      input_bytes);
}

void Sweep::visit(const DiscoveredSource& source, SweepReport& report) {
  ++report.sources_seen;
  try {
    SourceFile file(source.path);
    const FileIdentity& id = file.identity();
    std::optional<SourceCursor> cursor = cursors_.find(source.path);
    if (!cursor) {
      // The same file read by an earlier visit of this sweep: listed twice (the same path), or
      // renamed since (left for the next sweep, which follows the rename before reading).
      if (auto earlier = cursors_.visited(id.dev, id.ino)) {
        const std::string& earlier_path = (*sources_)[*earlier]->path;
        std::error_code ec;
        if (earlier_path == source.path || !std::filesystem::exists(earlier_path, ec)) {
          ++report.sources_unchanged;
          return;
        }
      }
      // A known file under a new name (renamed or rotated) keeps its cursor.
      auto moved = cursors_.find(id.dev, id.ino);
      std::error_code ec;
      // The same inode with other first bytes is a new file on a reused inode, not a rename.
      if (moved && !std::filesystem::exists(moved->path, ec) &&
          (moved->head_len == 0 || file.hash(0, moved->head_len) == moved->head_hash)) {
        const std::string old_path = std::exchange(moved->path, source.path);
        cursors_.put(*moved, old_path);
        save(*moved);  // follow the rename before anything else
        cursor = std::move(moved);
      }
    }
    if (cursor && cursor->state == "active" &&
        nothing_to_do(*cursor, id, config_.final_line_grace_seconds)) {
      ++report.sources_unchanged;
      return;
    }
    bool is_new = !cursor;
    if (is_new) {
      cursor.emplace();
      cursor->id = next_provisional_id_--;
      cursor->path = source.path;
      cursor->layout = source.layout;
      adopt_identity(*cursor, id);
      cursor->compressed = file.compressed();
    }
    if (cursor->adapter.empty() && !claim(*cursor, file, source, report)) return;
    const PluginInfo* plugin = plugins_.find(cursor->adapter);
    if (!plugin) {
      cursor->state = "orphaned";
      save(*cursor);
      report.problems.push_back(fmt::format(
          "{}: claimed by plugin '{}', which is not loaded; left unread until it is back",
          source.path, cursor->adapter));
      return;
    }
    // A file revisited only for its finished last line has not changed.
    const bool unchanged = !is_new && same_file_state(*cursor, id);
    is_new ? ++report.sources_new
           : (unchanged ? ++report.sources_unchanged : ++report.sources_changed);
    const AdapterInstance& adapter = instance(*plugin);
    cursor->state = "active";
    cursor->last_error.clear();
    if (cursor->layout == HELIX_LAYOUT_DOCUMENT) {
      adopt_identity(*cursor, id);
      ingest_document(*cursor, file, adapter, report);
      return;
    }
    bool new_generation = needs_new_generation(*cursor, file);
    if (new_generation) {
      ++report.sources_rewritten;
      ++cursor->generation;
      cursor->offset = cursor->head_len = cursor->tail_len = 0;
      cursor->head_hash = cursor->tail_hash = 0;
      cursor->adapter_state.clear();
    }
    adopt_identity(*cursor, id);
    ingest_lines(*cursor, file, adapter, new_generation, report);
  } catch (const std::exception& e) {
    ++report.sources_failed;
    report.problems.push_back(fmt::format("{}: {}", source.path, e.what()));
  }
}

bool Sweep::claim(SourceCursor& cursor, SourceFile& file, const DiscoveredSource& source,
                  SweepReport& report) {
  std::string head = file.read(0, kProbeBytes);
  int best = 0;
  const PluginInfo* winner = nullptr;
  for (const PluginInfo* plugin : plugins_.adapters()) {
    int score =
        instance(*plugin).probe(source.path, head, static_cast<uint64_t>(file.identity().size));
    if (score > best) {  // ties go to the plugin loaded first (name order): deterministic
      best = score;
      winner = plugin;
    }
  }
  if (!winner) {
    ++report.sources_unclaimed;
    cursor.state = "unclaimed";
    save(cursor);
    report.problems.push_back(
        fmt::format("{}: no loaded plugin recognises this file (every probe scored 0); left unread",
                    source.path));
    return false;
  }
  cursor.adapter = winner->name;
  cursor.adapter_version = winner->version;
  cursor.flavor = winner->adapter->flavor;
  // The claimer's own pattern decides how the file is read, when it has one for this path.
  for (const auto& root : adapter_roots(*winner->adapter, config_)) {
    std::error_code ec;
    auto base = std::filesystem::weakly_canonical(root, ec).string() + "/";
    if (ec || !source.path.starts_with(base)) continue;
    for (auto p = winner->adapter->patterns; p->glob; ++p)
      if (glob_match(p->glob, source.path.substr(base.size()))) {
        cursor.layout = p->layout;
        return true;
      }
  }
  if (cursor.layout == 0) cursor.layout = HELIX_LAYOUT_LINES;
  return true;
}

bool Sweep::needs_new_generation(const SourceCursor& cursor, SourceFile& file) {
  if (cursor.offset == 0) return false;
  if (!file.compressed() && file.identity().size < cursor.offset) return true;  // truncated
  if (cursor.head_len > 0 && file.hash(0, cursor.head_len) != cursor.head_hash) return true;
  if (cursor.tail_len > 0 &&
      file.hash(cursor.offset - cursor.tail_len, cursor.tail_len) != cursor.tail_hash)
    return true;  // rewritten in place behind the offset
  return false;
}

void Sweep::commit(SourceCursor& cursor, const RecordBatch& batch, bool new_generation,
                   int64_t input_bytes, SweepReport& report) {
  CommitStats stats = store_.commit_chunk(cursor, batch, new_generation, input_bytes);
  report.events_added += stats.events_added;
  report.copies_skipped += stats.events_skipped_as_copies;
  report.usage_records += stats.usage_records;
  for (const auto& w : batch.warnings) {
    ++report.warnings_by_category[w.category];
    if (!is_damage(w.category)) continue;
    if (++report.bad_records <= kDamageLines)
      report.problems.push_back(fmt::format("{}: offset {}: {}: {}", cursor.path, w.source_offset,
                                            w.category, w.message));
    else if (report.bad_records == kDamageLines + 1)
      report.problems.push_back(
          "more damaged records: see the warnings counts; each is stored "
          "with its file and offset in the warnings table");
  }
  const uint64_t flavor = XXH3_64bits(cursor.flavor.data(), cursor.flavor.size());
  const std::string* last = nullptr;  // a session's events come in runs: hash each run once
  auto touch = [&](const std::string& native_id) {
    if (last && *last == native_id) return;
    last = &native_id;
    report.sessions_touched.insert(
        XXH3_64bits_withSeed(native_id.data(), native_id.size(), flavor));
  };
  for (const auto& e : batch.events) touch(e.session_id);
  for (const auto& s : batch.sessions) touch(s.native_id);
}

void Sweep::ingest_lines(SourceCursor& cursor, SourceFile& file, const AdapterInstance& adapter,
                         bool new_generation, SweepReport& report) {
  const auto chunk = static_cast<std::size_t>(config_.chunk_bytes);
  const auto max_record = static_cast<std::size_t>(config_.max_record_bytes);
  bool committed = false;
  while (true) {
    pipeline_->wait_for_room();  // bounded memory: the store is at most about a chunk behind
    if (pipeline_->failed(visit_)) return;  // storing this source failed: the rest is moot
    const int64_t pos = cursor.offset;
    std::string& buf = read_buffer_;  // one buffer for every chunk of every source
    buf.clear();
    if (file.append(buf, pos, chunk) == 0) break;
    std::size_t newline = buf.rfind('\n');
    bool partial_last_line = false;
    while (newline == std::string::npos && buf.size() < max_record) {  // one long line
      const std::size_t before = buf.size();
      if (file.append(buf, pos + static_cast<int64_t>(before), chunk) == 0) {
        partial_last_line = true;  // the writer may still be in the middle of it
        break;
      }
      newline = buf.find('\n', before);
    }
    if (partial_last_line && !finished_last_line(cursor, buf)) break;
    if (partial_last_line) newline = buf.size(), buf += '\n';  // the host adds the newline
    RecordBatch batch;
    if (newline == std::string::npos) {
      // A record larger than max_record_bytes: skip to its end, report it, keep going.
      int64_t end = pos + static_cast<int64_t>(buf.size());
      std::size_t at = std::string::npos;
      while (at == std::string::npos) {
        buf.clear();
        if (file.append(buf, end, chunk) == 0) return;  // no end yet: wait for the writer
        at = buf.find('\n');
        end += static_cast<int64_t>(at == std::string::npos ? buf.size() : at + 1);
      }
      batch.warnings.push_back({static_cast<uint64_t>(pos), "record_too_large",
                                fmt::format("a {} byte record exceeds sweep.max_record_bytes "
                                            "({}); skipped",
                                            end - pos, max_record)});
      buf.clear();
      cursor.offset = end;
    } else {
      buf.resize(newline + 1);
      blank_nul_runs(buf, pos, batch);
      adapter.parse(cursor.path, HELIX_LAYOUT_LINES, static_cast<uint64_t>(pos), buf,
                    cursor.adapter_state, batch);
      if (batch.saved_state) cursor.adapter_state = *batch.saved_state;
      if (partial_last_line) buf.pop_back();  // the offset counts only the file's own bytes
      cursor.offset = pos + static_cast<int64_t>(buf.size());
    }
    report.bytes_read += cursor.offset - pos;
    // Fingerprints: the file's first bytes (identity) and the bytes before the new offset.
    if (cursor.head_len < kHeadBytes) {
      cursor.head_len = std::min(kHeadBytes, cursor.offset);
      cursor.head_hash =
          pos == 0 && !buf.empty() && static_cast<int64_t>(buf.size()) >= cursor.head_len
              ? hash_bytes(
                    std::string_view(buf).substr(0, static_cast<std::size_t>(cursor.head_len)))
              : file.hash(0, cursor.head_len);
    }
    cursor.tail_len = std::min(kTailBytes, cursor.offset);
    cursor.tail_hash = static_cast<int64_t>(buf.size()) >= cursor.tail_len
                           ? hash_bytes(std::string_view(buf).substr(
                                 buf.size() - static_cast<std::size_t>(cursor.tail_len)))
                           : file.hash(cursor.offset - cursor.tail_len, cursor.tail_len);
    stage_commit(cursor, std::move(batch), new_generation && !committed, cursor.offset - pos);
    committed = true;
  }
  if (!committed) {
    if (new_generation)
      stage_commit(cursor, RecordBatch{}, true, 0);  // emptied: drop old rows
    else
      save(cursor);
  }
}

// A last line without its newline is normally a writer mid-line. It is a finished record when
// the file has been quiet for the grace period and the line is one complete JSON value.
bool Sweep::finished_last_line(const SourceCursor& cursor, std::string_view fragment) const {
  if (now_ns() - cursor.mtime_ns < config_.final_line_grace_seconds * 1000000000) return false;
  boost::system::error_code ec;
  boost::json::parse(fragment, ec);
  return !ec;
}

void Sweep::ingest_document(SourceCursor& cursor, SourceFile& file, const AdapterInstance& adapter,
                            SweepReport& report) {
  const auto max_record = static_cast<std::size_t>(config_.max_record_bytes);
  pipeline_->wait_for_room();
  std::string doc = file.read(0, max_record + 1);
  RecordBatch batch;
  if (doc.size() > max_record) {
    batch.warnings.push_back({0, "record_too_large",
                              fmt::format("document larger than sweep.max_record_bytes ({}); "
                                          "skipped",
                                          max_record)});
  } else {
    adapter.parse(cursor.path, HELIX_LAYOUT_DOCUMENT, 0, doc, "", batch);
  }
  report.bytes_read += static_cast<int64_t>(doc.size());
  cursor.offset = static_cast<int64_t>(std::min(doc.size(), max_record));
  cursor.head_len = std::min<int64_t>(kHeadBytes, cursor.offset);
  cursor.head_hash =
      hash_bytes(std::string_view(doc).substr(0, static_cast<std::size_t>(cursor.head_len)));
  cursor.tail_len = 0;
  ++cursor.generation;  // a document is replaced whole: its earlier rows go
  stage_commit(cursor, std::move(batch), true, cursor.offset);
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
    if (!cursor || cursor->state == "missing") continue;
    cursor->state = "missing";  // its rows stay: agents delete old transcripts, we keep them
    store_.save_source(*cursor);
    ++report.sources_missing;
  }
}

}  // namespace helix

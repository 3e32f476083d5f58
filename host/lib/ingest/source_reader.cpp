#include "ingest/source_reader.hpp"

#include "base/clock.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <boost/json.hpp>
#include <filesystem>
#include <utility>

namespace helix {
namespace {

constexpr int64_t kHeadBytes = 4096;  // identity fingerprint of a file's beginning
constexpr int64_t kTailBytes = 256;   // fingerprint of the bytes just before the offset
constexpr std::size_t kProbeBytes = std::size_t{64} * 1024;

// Runs of NUL bytes are what a crashed append leaves (ext4 delayed allocation, a stale writer
// after a truncate). They become blanks of the same length: offsets stay true and the record
// written after the run on the same line still parses. Each run is reported where it is.
// True when it blanked any.
bool blank_nul_runs(std::string& buf, int64_t base, RecordBatch& batch) {
  const std::size_t warnings = batch.warnings.size();
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
  return batch.warnings.size() > warnings;
}

// A UTF-8 byte order mark at a file's start (some editors and Windows tools write one) is not
// JSON: it becomes three blanks, so offsets stay true and the first record parses. True when
// there was one.
bool blank_byte_order_mark(std::string& buf, int64_t base) {
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (base != 0 || !buf.starts_with(kBom)) return false;
  buf.replace(0, kBom.size(), kBom.size(), ' ');
  return true;
}

IsolationPolicy isolation_policy(const Config& config) {
  IsolationPolicy p;
  p.which = config.plugin_isolation == "all"    ? IsolationPolicy::Which::all
            : config.plugin_isolation == "none" ? IsolationPolicy::Which::none
                                                : IsolationPolicy::Which::third_party;
  p.call_timeout_seconds = static_cast<double>(config.plugin_call_timeout_seconds);
  p.memory_bytes = config.plugin_worker_memory;
  return p;
}

}  // namespace

SourceReader::SourceReader(const PluginRegistry& plugins, const Config& config,
                           const SweepOptions& options, const SourceList& sources,
                           CursorTable cursors, StepQueue& queue)
    : plugins_(plugins),
      config_(config),
      options_(options),
      isolation_(isolation_policy(config)),
      sources_(sources),
      queue_(queue),
      cursors_(std::move(cursors)),
      repos_(config.repo_domains) {}

SourceReader::~SourceReader() = default;

const AdapterRunner& SourceReader::instance(const PluginInfo& plugin) {
  auto& slot = instances_[plugin.name];
  if (!slot) {
    // Built once per sweep, when an adapter first parses: a sweep that only looks at files
    // (unchanged, unclaimed, quarantined) compiles no rules (21% of a no-op sweep's CPU).
    if (!redactor_) redactor_.emplace(config_.redaction);
    auto it = config_.adapter_settings.find(plugin.name);
    slot = make_adapter_runner(plugin, it == config_.adapter_settings.end() ? "{}" : it->second,
                               &*redactor_, isolation_);
  }
  return *slot;
}

bool SourceReader::retry_quarantined(SourceCursor& cursor, const PluginInfo* plugin,
                                     const FileIdentity& id, SweepReport& report) {
  const bool plugin_changed = plugin && plugin_signature(*plugin) != cursor.quarantine;
  if (options_.retry_quarantined || plugin_changed || !cursor.is_as(id)) return true;
  ++report.sources_still_quarantined;
  report.problems.push_back(fmt::format(
      "{}: quarantined: {}; it is read again when the plugin or the file changes, or with "
      "'helix-host sweep --retry-quarantined'",
      cursor.path, cursor.last_error));
  return false;
}

void SourceReader::quarantine(SourceCursor& cursor, const PluginInfo& plugin,
                              const std::string& what, SweepReport& report) {
  // The cursor last staged for the store (or this new one, never staged) is where reading
  // stopped: what was staged before the fault is kept, the rest is read again on retry.
  SourceCursor stopped = cursors_.find(cursor.path).value_or(cursor);
  stopped.adopt(FileIdentity{cursor.dev, cursor.ino, cursor.size, cursor.mtime_ns});
  stopped.adapter = cursor.adapter;
  stopped.flavor = cursor.flavor;
  stopped.state = SourceState::quarantined;
  stopped.last_error = what;
  stopped.quarantine = plugin_signature(plugin);
  save(stopped);
  ++report.sources_quarantined;
  report.problems.push_back(fmt::format(
      "{}: {} while reading it; the source is quarantined (its other data, and every other "
      "source, are stored) until the plugin or the file changes, or "
      "'helix-host sweep --retry-quarantined'",
      cursor.path, what));
}

bool SourceReader::needs_reparse(const SourceCursor& cursor, const PluginInfo& plugin) const {
  return std::find(options_.reparse.begin(), options_.reparse.end(), plugin.name) !=
             options_.reparse.end() ||
         reparse_worthy(cursor.adapter_version, plugin);
}

void SourceReader::run() {
  for (visit_ = 0; visit_ < sources_.size(); ++visit_) {
    visit(*sources_[visit_], pending_);
    cursors_.retire(sources_[visit_]->path, visit_);
    queue_.push(SweepStep{visit_, std::exchange(pending_, SweepReport{}), std::nullopt, 0, true});
  }
}

void SourceReader::emit(SourceWrite write, int64_t bytes) {
  queue_.push(
      SweepStep{visit_, std::exchange(pending_, SweepReport{}), std::move(write), bytes, false});
}

void SourceReader::save(SourceCursor& cursor) {
  cursors_.put(cursor);
  SourceWrite write;
  write.cursor = cursor;  // kind save_cursor
  emit(std::move(write), 0);
}

void SourceReader::stage_commit(SourceCursor& cursor, RecordBatch&& batch, bool new_generation,
                                int64_t input_bytes, bool read_to_end) {
  cursors_.put(cursor);
  SourceCursor stored = cursor;
  if (!read_to_end) stored.mtime_ns = SourceCursor::kUnfinishedMtime;
  for (auto& session : batch.sessions) repos_.attribute(session);
  // Compressing is a quarter of the writer's work: done here, it runs beside the writer.
  if (!batch.events.empty()) {
    batch.packs = pack_batch(batch, packer_);
    batch.payloads = {};
  }
  emit(SourceWrite{.kind = SourceWrite::Kind::commit_chunk,
                   .cursor = std::move(stored),
                   .batch = std::move(batch),
                   .new_generation = new_generation,
                   .input_bytes = input_bytes},
       input_bytes);
}

void SourceReader::visit(const DiscoveredSource& source, SweepReport& report) {
  ++report.sources_seen;
  try {
    SourceFile file(source.path);
    const FileIdentity& id = file.identity();
    std::optional<SourceCursor> cursor = cursors_.find(source.path);
    if (!cursor) {
      // The same file read by an earlier visit of this sweep: listed twice (the same path), or
      // renamed since (left for the next sweep, which follows the rename before reading).
      if (auto earlier = cursors_.visited(id.dev, id.ino)) {
        const std::string& earlier_path = sources_[*earlier]->path;
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
    const PluginInfo* claimed = cursor ? plugins_.find(cursor->adapter) : nullptr;
    if (cursor && cursor->state == SourceState::active &&
        nothing_to_do(*cursor, id, config_.final_line_grace_seconds) &&
        !(claimed && needs_reparse(*cursor, *claimed))) {
      ++report.sources_unchanged;
      return;
    }
    if (cursor && cursor->state == SourceState::quarantined &&
        !retry_quarantined(*cursor, claimed, id, report))
      return;
    bool is_new = !cursor;
    if (is_new) {
      cursor.emplace();
      cursor->id = next_provisional_id_--;
      cursor->path = source.path;
      cursor->layout = source.layout;
      cursor->adopt(id);
      cursor->compressed = file.compressed();
    }
    if (cursor->adapter.empty() && !claim(*cursor, file, source, report)) return;
    const PluginInfo* plugin = plugins_.find(cursor->adapter);
    if (!plugin) {
      if (cursor->state == SourceState::orphaned) return;  // the sweep has named it already
      cursor->state = SourceState::orphaned;
      save(*cursor);
      ++report.sources_orphaned;
      report.problems.push_back(fmt::format(
          "{}: claimed by plugin '{}', which is not loaded; orphaned: left unread until it is "
          "back",
          source.path, cursor->adapter));
      return;
    }
    try {
      read_claimed(*cursor, file, *plugin, is_new, report);
    } catch (const PluginFault& fault) {
      quarantine(*cursor, *plugin, fault.what(), report);
    }
  } catch (const std::exception& e) {
    ++report.sources_failed;
    report.problems.push_back(fmt::format("{}: {}", source.path, e.what()));
  }
}

// Reads a claimed source with its plugin; a PluginFault passes to the caller.
void SourceReader::read_claimed(SourceCursor& cursor, SourceFile& file, const PluginInfo& plugin,
                                bool is_new, SweepReport& report) {
  const FileIdentity& id = file.identity();
  const bool reparse = !is_new && needs_reparse(cursor, plugin);
  // A file revisited only for its finished last line has not changed.
  const bool unchanged = !is_new && cursor.is_as(id);
  is_new ? ++report.sources_new
         : (unchanged ? ++report.sources_unchanged : ++report.sources_changed);
  const AdapterRunner& adapter = instance(plugin);
  cursor.state = SourceState::active;
  cursor.last_error.clear();
  cursor.quarantine.clear();
  if (reparse) ++report.sources_reparsed;
  cursor.adapter_version = plugin.version;  // the version that reads it from now on
  if (cursor.layout == HELIX_LAYOUT_DOCUMENT) {
    cursor.adopt(id);
    ingest_document(cursor, file, adapter, report);
    return;
  }
  const bool new_generation = reparse || needs_new_generation(cursor, file);
  if (new_generation) {
    if (!reparse) ++report.sources_rewritten;
    cursor.start_new_generation();
  }
  cursor.adopt(id);
  ingest_lines(cursor, file, adapter, new_generation, report);
}

bool SourceReader::claim(SourceCursor& cursor, SourceFile& file, const DiscoveredSource& source,
                         SweepReport& report) {
  std::string head = file.read(0, kProbeBytes);
  blank_byte_order_mark(head, 0);
  int best = 0;
  const PluginInfo* winner = nullptr;
  for (const PluginInfo* plugin : plugins_.adapters()) {
    int score = 0;
    try {
      score =
          instance(*plugin).probe(source.path, head, static_cast<uint64_t>(file.identity().size));
    } catch (const PluginFault& fault) {
      report.problems.push_back(fmt::format("{}: {} while probing it; counted as not claiming it",
                                            source.path, fault.what()));
    }
    if (score == AdapterRunner::kProbeFailed)
      report.problems.push_back(
          fmt::format("{}: plugin '{}' failed to probe it (its probe threw); "
                      "counted as not claiming it",
                      source.path, plugin->name));
    if (score > best) {  // ties go to the plugin loaded first (name order): deterministic
      best = score;
      winner = plugin;
    }
  }
  if (!winner) {
    ++report.sources_unclaimed;
    cursor.state = SourceState::unclaimed;
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

bool SourceReader::needs_new_generation(const SourceCursor& cursor, SourceFile& file) {
  if (cursor.offset == 0) return false;
  if (!file.compressed() && file.identity().size < cursor.offset) return true;  // truncated
  if (cursor.head_len > 0 && file.hash(0, cursor.head_len) != cursor.head_hash) return true;
  if (cursor.tail_len > 0 &&
      file.hash(cursor.offset - cursor.tail_len, cursor.tail_len) != cursor.tail_hash)
    return true;  // rewritten in place behind the offset
  return false;
}

void SourceReader::ingest_lines(SourceCursor& cursor, SourceFile& file,
                                const AdapterRunner& adapter, bool new_generation,
                                SweepReport& report) {
  bool committed = false, read_to_end = false;
  while (true) {
    queue_.wait_for_room();             // bounded memory: the store is at most about a chunk behind
    if (queue_.failed(visit_)) return;  // storing this source failed: the rest is moot
    const int64_t pos = cursor.offset;
    RecordBatch batch;
    const ChunkRead read = read_whole_lines(cursor, file);
    if (read == ChunkRead::nothing) break;
    if (read == ChunkRead::oversized_record) {
      if (!skip_oversized_record(cursor, file, batch)) return;  // no end yet: wait for the writer
    } else {
      parse_lines(cursor, adapter, batch, read == ChunkRead::finished_last_line);
    }
    report.bytes_read += cursor.offset - pos;
    update_fingerprints(cursor, file, pos);
    // Read to the end of the file as stat() saw it: the cursor can say the file is as seen.
    read_to_end = !file.compressed() && cursor.offset >= file.identity().size;
    stage_commit(cursor, std::move(batch), new_generation && !committed, cursor.offset - pos,
                 read_to_end);
    committed = true;
  }
  if (!committed && new_generation)
    stage_commit(cursor, RecordBatch{}, true, 0, true);  // emptied: drop old rows
  else if (!read_to_end)
    save(cursor);  // all that can be read now is read: the cursor says the file is as seen
}

// Fills read_buffer_ with whole lines from the cursor's offset: a chunk cut after its last
// newline, or one line longer than a chunk (up to max_record_bytes). A partial last line is
// left for the writer to finish, unless the file has been quiet long enough that it is done.
SourceReader::ChunkRead SourceReader::read_whole_lines(const SourceCursor& cursor,
                                                       SourceFile& file) {
  const auto chunk = static_cast<std::size_t>(config_.chunk_bytes);
  const auto max_record = static_cast<std::size_t>(config_.max_record_bytes);
  const int64_t pos = cursor.offset;
  std::string& buf = read_buffer_;  // one buffer for every chunk of every source
  buf.clear();
  buffer_is_file_ = true;
  if (file.append(buf, pos, chunk) == 0) return ChunkRead::nothing;
  std::size_t newline = buf.rfind('\n');
  while (newline == std::string::npos && buf.size() < max_record) {  // one long line
    const std::size_t before = buf.size();
    if (file.append(buf, pos + static_cast<int64_t>(before), chunk) == 0) {
      // The writer may still be in the middle of this last line.
      if (!finished_last_line(cursor, buf)) return ChunkRead::nothing;
      buf += '\n';  // the host adds the newline
      return ChunkRead::finished_last_line;
    }
    newline = buf.find('\n', before);
  }
  if (newline == std::string::npos) return ChunkRead::oversized_record;
  buf.resize(newline + 1);
  return ChunkRead::lines;
}

// A record larger than max_record_bytes: skipped to its end and reported. False when its end
// is not written yet (the next sweep tries again).
bool SourceReader::skip_oversized_record(SourceCursor& cursor, SourceFile& file,
                                         RecordBatch& batch) {
  const auto chunk = static_cast<std::size_t>(config_.chunk_bytes);
  const int64_t pos = cursor.offset;
  std::string& buf = read_buffer_;
  int64_t end = pos + static_cast<int64_t>(buf.size());
  std::size_t at = std::string::npos;
  while (at == std::string::npos) {
    buf.clear();
    if (file.append(buf, end, chunk) == 0) return false;
    at = buf.find('\n');
    end += static_cast<int64_t>(at == std::string::npos ? buf.size() : at + 1);
  }
  batch.warnings.push_back({static_cast<uint64_t>(pos), "record_too_large",
                            fmt::format("a {} byte record exceeds sweep.max_record_bytes "
                                        "({}); skipped",
                                        end - pos, config_.max_record_bytes)});
  buf.clear();
  cursor.offset = end;
  return true;
}

// The adapter parses the buffered lines; the cursor moves past the file's own bytes.
void SourceReader::parse_lines(SourceCursor& cursor, const AdapterRunner& adapter,
                               RecordBatch& batch, bool added_newline) {
  std::string& buf = read_buffer_;
  const int64_t pos = cursor.offset;
  // The fingerprints are of the file's bytes, not of the blanked ones.
  buffer_is_file_ = !blank_byte_order_mark(buf, pos);
  buffer_is_file_ = !blank_nul_runs(buf, pos, batch) && buffer_is_file_;
  adapter.parse(cursor.path, HELIX_LAYOUT_LINES, static_cast<uint64_t>(pos), buf,
                cursor.adapter_state, batch);
  if (batch.saved_state) cursor.adapter_state = *batch.saved_state;
  if (added_newline) buf.pop_back();  // the offset counts only the file's own bytes
  cursor.offset = pos + static_cast<int64_t>(buf.size());
}

// Fingerprints: the file's first bytes (identity) and the bytes before the new offset, from
// the buffer when it holds them, else from the file.
void SourceReader::update_fingerprints(SourceCursor& cursor, SourceFile& file, int64_t pos) {
  const std::string_view buf = read_buffer_;
  const auto tail_of_buffer = [&](int64_t len) {
    return buf.substr(buf.size() - static_cast<std::size_t>(len));
  };
  if (cursor.head_len < kHeadBytes) {
    cursor.head_len = std::min(kHeadBytes, cursor.offset);
    const bool in_buffer = buffer_is_file_ && pos == 0 &&
                           static_cast<int64_t>(buf.size()) >= cursor.head_len && !buf.empty();
    cursor.head_hash = in_buffer
                           ? hash_bytes(buf.substr(0, static_cast<std::size_t>(cursor.head_len)))
                           : file.hash(0, cursor.head_len);
  }
  cursor.tail_len = std::min(kTailBytes, cursor.offset);
  cursor.tail_hash = buffer_is_file_ && static_cast<int64_t>(buf.size()) >= cursor.tail_len
                         ? hash_bytes(tail_of_buffer(cursor.tail_len))
                         : file.hash(cursor.offset - cursor.tail_len, cursor.tail_len);
}

// A last line without its newline is normally a writer mid-line. It is a finished record when
// the file has been quiet for the grace period and the line is one complete JSON value.
bool SourceReader::finished_last_line(const SourceCursor& cursor, std::string_view fragment) const {
  if (now_ns() - cursor.mtime_ns < config_.final_line_grace_seconds * 1000000000) return false;
  boost::system::error_code ec;
  boost::json::parse(fragment, ec);
  return !ec;
}

void SourceReader::ingest_document(SourceCursor& cursor, SourceFile& file,
                                   const AdapterRunner& adapter, SweepReport& report) {
  const auto max_record = static_cast<std::size_t>(config_.max_record_bytes);
  queue_.wait_for_room();
  std::string doc = file.read(0, max_record + 1);
  // Only a complete parse replaces what the document gave before: one too large, one the
  // adapter could not parse (it throws) and one it parsed only in part (it reported damage)
  // keep the stored rows, and the document is read again next sweep.
  if (doc.size() > max_record)
    throw std::runtime_error(
        fmt::format("the document is larger than sweep.max_record_bytes ({}); what it gave "
                    "before is kept",
                    max_record));
  RecordBatch batch;
  blank_byte_order_mark(doc, 0);
  adapter.parse(cursor.path, HELIX_LAYOUT_DOCUMENT, 0, doc, "", batch);
  for (const auto& w : batch.warnings)
    if (w.category == "invalid_json" || w.category == "not_an_object" ||
        w.category == "invalid_record")
      throw std::runtime_error(fmt::format(
          "the document did not parse whole ({} at offset {}: {}); what it gave before is kept "
          "and it is read again next sweep",
          w.category, w.source_offset, w.message));
  if (cursor.generation > 0) ++report.sources_rewritten;  // replaced whole, not appended to
  report.bytes_read += static_cast<int64_t>(doc.size());
  cursor.offset = static_cast<int64_t>(std::min(doc.size(), max_record));
  cursor.head_len = std::min<int64_t>(kHeadBytes, cursor.offset);
  cursor.head_hash =
      hash_bytes(std::string_view(doc).substr(0, static_cast<std::size_t>(cursor.head_len)));
  cursor.tail_len = 0;
  ++cursor.generation;  // a document is replaced whole: its earlier rows go
  stage_commit(cursor, std::move(batch), true, cursor.offset, true);
}

}  // namespace helix

// One sweep: discover -> claim -> read -> parse -> store, for every source of every adapter.
// Two threads: a worker reads, claims and parses (adapters and redaction are pure functions of
// bytes, and every cursor is loaded once at the start, so it needs no database), the calling
// thread compresses and stores, in the worker's order, as the store's single writer.
#pragma once

#include "config/config.hpp"
#include "ingest/discovery.hpp"
#include "ingest/repo_resolver.hpp"
#include "ingest/source_file.hpp"
#include "model/payload_pack.hpp"
#include "plugins/adapter_instance.hpp"
#include "plugins/plugin_registry.hpp"
#include "privacy/redactor.hpp"
#include "store/store.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

namespace helix {

struct SweepReport {
  int64_t sources_seen = 0, sources_new = 0, sources_changed = 0, sources_unchanged = 0,
          sources_rewritten = 0, sources_unclaimed = 0, sources_missing = 0, sources_failed = 0;
  int64_t events_added = 0, copies_skipped = 0, usage_records = 0, bytes_read = 0;
  int64_t bad_records = 0;  // damaged input skipped or repaired (each one is also a warning)
  // The sessions this sweep wrote to, as 64-bit hashes of their uids (a count is all that is
  // shown; 100,000 uid strings would be a fifth of a large sweep's memory).
  std::unordered_set<uint64_t> sessions_touched;
  std::map<std::string, int64_t> warnings_by_category;
  std::vector<std::string> problems;  // one line each, for the administrator
  double seconds = 0;
};

// Called after each source with (sources done, sources total, path).
using SweepProgress = std::function<void(std::size_t, std::size_t, const std::string&)>;

// The cursors the parsing thread may need, by path and by file identity: loaded at the start
// for the sources to be read (not for every stored one), kept current by that thread, and each
// dropped once its source has been visited (the store has it), so a sweep holds the cursors of
// the sources it has yet to read, not of all it has read.
class CursorTable {
 public:
  void put(const SourceCursor& cursor, const std::string& old_path = {});
  std::optional<SourceCursor> find(const std::string& path) const;
  std::optional<SourceCursor> find(uint64_t dev, uint64_t ino) const;  // lowest id first
  // Drops the cursor at `path`, remembering only that visit `visit` read its file.
  void retire(const std::string& path, std::size_t visit);
  // The visit of this sweep that read the file with this identity first, if one did.
  std::optional<std::size_t> visited(uint64_t dev, uint64_t ino) const;

 private:
  void forget(const std::string& path);

  std::map<std::string, SourceCursor> by_path_;
  std::multimap<std::pair<uint64_t, uint64_t>, std::string> by_identity_;
  std::map<std::pair<uint64_t, uint64_t>, std::size_t> visited_;
};

class Sweep {
 public:
  Sweep(Store& store, const PluginRegistry& plugins, const Config& config);
  ~Sweep();

  SweepReport run(const SweepProgress& progress = {});

  // Ingests only these files (e.g. from an agent hook); each must be claimable.
  SweepReport run_paths(const std::vector<std::string>& paths);

 private:
  struct Step;
  class Pipeline;
  using SourceList = std::vector<const DiscoveredSource*>;
  // `skipped` sources were found unchanged before: progress counts them as done.
  SweepReport run_pipeline(const SourceList& sources, const SweepProgress& progress,
                           SweepReport report, std::size_t skipped = 0);
  void produce(const SourceList& sources);
  void apply(Step& step, SweepReport& report);
  void fail_visit(std::size_t visit, const std::string& why, SweepReport& report);
  void lose_batch(std::size_t visit, const BatchLost& e, SweepReport& report);
  // Hands a write to the storing thread, with the report changes made before it.
  void emit(std::function<void(SweepReport&)> write, int64_t bytes = 0);
  void save(SourceCursor& cursor);

  void visit(const DiscoveredSource& source, SweepReport& report);
  bool claim(SourceCursor& cursor, SourceFile& file, const DiscoveredSource& source,
             SweepReport& report);
  bool needs_new_generation(const SourceCursor& cursor, SourceFile& file);
  void ingest_lines(SourceCursor& cursor, SourceFile& file, const AdapterInstance& adapter,
                    bool new_generation, SweepReport& report);
  bool finished_last_line(const SourceCursor& cursor, std::string_view fragment) const;
  void ingest_document(SourceCursor& cursor, SourceFile& file, const AdapterInstance& adapter,
                       SweepReport& report);
  void stage_commit(SourceCursor& cursor, RecordBatch&& batch, bool new_generation,
                    int64_t input_bytes);
  void commit(SourceCursor& cursor, const RecordBatch& batch, bool new_generation,
              int64_t input_bytes, SweepReport& report);
  const AdapterInstance& instance(const PluginInfo& plugin);
  void load_cursors(const SourceList& sources);
  // What one pass over the stored cursors tells a sweep (see scan_cursors).
  struct CursorScan {
    std::vector<bool> unchanged;  // by discovered source: nothing to read
    std::vector<std::pair<std::string, std::string>> moves;  // (cursor's path, file's path now)
    std::vector<std::string> undiscovered;  // cursors not missing whose path was not found
  };
  CursorScan scan_cursors(const std::vector<DiscoveredSource>& sources,
                          const std::vector<FileIdentity>& identities);
  SourceList sources_to_read(const std::vector<DiscoveredSource>& sources,
                             const std::vector<bool>& unchanged, SweepReport& report);
  void mark_missing(const std::vector<std::string>& undiscovered, SweepReport& report);
  bool follow_renames(const std::vector<std::pair<std::string, std::string>>& moves);

  Store& store_;
  const PluginRegistry& plugins_;
  const Config& config_;
  RepoResolver repos_;  // the parsing thread's
  // Compiled once per sweep, shared by every adapter instance; only when a source is read.
  std::optional<Redactor> redactor_;
  std::map<std::string, std::unique_ptr<AdapterInstance>> instances_;
  // The parsing thread's state.
  std::string read_buffer_;  // reused across chunks and sources: no allocation per read
  PackCompressor packer_;    // compresses each batch's payload packs before the writer gets it
  CursorTable cursors_;
  SweepReport pending_;               // report changes not yet handed over
  std::size_t visit_ = 0;             // index of the source being visited
  int64_t next_provisional_id_ = -1;  // new sources, until the store gives them an id
  Pipeline* pipeline_ = nullptr;
  const SourceList* sources_ = nullptr;  // of the running pipeline
  // The storing thread's state: store ids given to provisional ones.
  std::map<int64_t, int64_t> store_ids_;
  std::size_t failed_visit_ = SIZE_MAX;  // its remaining writes are dropped
};

}  // namespace helix

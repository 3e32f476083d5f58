// One sweep: discover -> claim -> read -> parse -> store, for every source of every adapter.
#pragma once

#include "adapter_instance.hpp"
#include "config.hpp"
#include "discovery.hpp"
#include "plugin_registry.hpp"
#include "redactor.hpp"
#include "repo_resolver.hpp"
#include "source_file.hpp"
#include "store.hpp"

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace helix {

struct SweepReport {
  int64_t sources_seen = 0, sources_new = 0, sources_changed = 0, sources_unchanged = 0,
          sources_rewritten = 0, sources_unclaimed = 0, sources_missing = 0, sources_failed = 0;
  int64_t events_added = 0, copies_skipped = 0, usage_records = 0, bytes_read = 0;
  int64_t bad_records = 0;  // damaged input skipped or repaired (each one is also a warning)
  std::set<std::string> sessions_touched;
  std::map<std::string, int64_t> warnings_by_category;
  std::vector<std::string> problems;  // one line each, for the administrator
  double seconds = 0;
};

// Called after each source with (sources done, sources total, path).
using SweepProgress = std::function<void(std::size_t, std::size_t, const std::string&)>;

class Sweep {
 public:
  Sweep(Store& store, const PluginRegistry& plugins, const Config& config);
  ~Sweep();

  SweepReport run(const SweepProgress& progress = {});

  // Ingests only these files (e.g. from an agent hook); each must be claimable.
  SweepReport run_paths(const std::vector<std::string>& paths);

 private:
  void visit(const DiscoveredSource& source, SweepReport& report);
  bool claim(SourceCursor& cursor, SourceFile& file, const DiscoveredSource& source,
             SweepReport& report);
  bool needs_new_generation(const SourceCursor& cursor, SourceFile& file);
  void ingest_lines(SourceCursor& cursor, SourceFile& file, const AdapterInstance& adapter,
                    bool new_generation, SweepReport& report);
  bool finished_last_line(const SourceCursor& cursor, std::string_view fragment) const;
  void ingest_document(SourceCursor& cursor, SourceFile& file, const AdapterInstance& adapter,
                       SweepReport& report);
  void commit(SourceCursor& cursor, const RecordBatch& batch, bool new_generation,
              int64_t input_bytes, SweepReport& report);
  const AdapterInstance& instance(const PluginInfo& plugin);
  void mark_missing(const std::set<std::string>& seen, SweepReport& report);
  void follow_renames(const std::vector<DiscoveredSource>& sources);

  Store& store_;
  const PluginRegistry& plugins_;
  const Config& config_;
  RepoResolver repos_;
  Redactor redactor_;  // compiled once per sweep, shared by every adapter instance
  std::map<std::string, std::unique_ptr<AdapterInstance>> instances_;
  std::string read_buffer_;  // reused across chunks and sources: no allocation per read
};

}  // namespace helix

// One sweep: discover -> claim -> read -> parse -> store, for every source of every adapter.
// Two threads joined by a StepQueue: a SourceReader on a worker thread reads, claims, parses
// and compresses (adapters and redaction are pure functions of bytes, and every cursor it
// needs is loaded before it starts, so it needs no database); a BatchWriter on the calling
// thread stores, in the reader's order, as the store's single writer. Sweep itself decides
// which sources to read and keeps the cursors of renamed and vanished files true.
#pragma once

#include "config/config.hpp"
#include "ingest/cursor_table.hpp"
#include "ingest/discovery.hpp"
#include "ingest/step_queue.hpp"
#include "ingest/sweep_report.hpp"
#include "plugins/plugin_registry.hpp"
#include "store/store.hpp"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace helix {

class Sweep {
 public:
  Sweep(Store& store, const PluginRegistry& plugins, const Config& config,
        SweepOptions options = {});

  SweepReport run(const SweepProgress& progress = {});

  // Ingests only these files (e.g. from an agent hook); each must be claimable.
  SweepReport run_paths(const std::vector<std::string>& paths);

 private:
  // `skipped` sources were found unchanged before: progress counts them as done.
  SweepReport run_pipeline(const SourceList& sources, CursorTable cursors,
                           const SweepProgress& progress, SweepReport report,
                           std::size_t skipped = 0);
  // Only the cursors these files may have: their path's, or their inode's (a rename).
  CursorTable load_cursors(const SourceList& sources);
  // What one pass over the stored cursors tells a sweep (see scan_cursors).
  struct CursorScan {
    std::vector<bool> unchanged;  // by discovered source: nothing to read
    std::vector<std::pair<std::string, std::string>> moves;  // (cursor's path, file's path now)
    std::vector<std::string> undiscovered;  // cursors not missing whose path was not found
  };
  CursorScan scan_cursors(const std::vector<DiscoveredSource>& sources);
  SourceList sources_to_read(const std::vector<DiscoveredSource>& sources,
                             const std::vector<bool>& unchanged, SweepReport& report);
  void mark_missing(const std::vector<std::string>& undiscovered, SweepReport& report);
  bool follow_renames(const std::vector<std::pair<std::string, std::string>>& moves);

  // Sources of a plugin that is not loaded are orphaned; those of a plugin that is back, active.
  void mark_orphans(SweepReport& report);
  // The summary's adapter asks for its sources to be read again (a version or --reparse).
  bool reparse_due(const SourceSummary& cursor) const;

  Store& store_;
  const PluginRegistry& plugins_;
  const Config& config_;
  SweepOptions options_;
};

}  // namespace helix

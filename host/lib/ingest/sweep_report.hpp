// What a sweep reports: counts, warnings and problems, added up from both of its threads.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_set>
#include <vector>

namespace helix {

struct SweepReport {
  int64_t sources_seen = 0, sources_new = 0, sources_changed = 0, sources_unchanged = 0,
          sources_rewritten = 0, sources_unclaimed = 0, sources_missing = 0, sources_failed = 0;
  int64_t events_added = 0, copies_skipped = 0, usage_records = 0, bytes_read = 0;
  int64_t bad_records = 0;  // damaged input skipped or repaired (each one is also a warning)
  // A plugin crashed, hung or outgrew its memory on these sources (this sweep), or had before
  // and nothing has changed since: left unread, named in `problems`.
  int64_t sources_quarantined = 0, sources_still_quarantined = 0;
  int64_t sources_orphaned = 0;  // their plugin is not loaded: left unread
  int64_t sources_reparsed = 0;  // read again from their start for a new adapter version
  // The sessions this sweep wrote to, as 64-bit hashes of their uids (a count is all that is
  // shown; 100,000 uid strings would be a fifth of a large sweep's memory).
  std::unordered_set<uint64_t> sessions_touched;
  std::map<std::string, int64_t> warnings_by_category;
  std::vector<std::string> problems;  // one line each, for the administrator
  double seconds = 0;
};

// What a sweep is asked to do besides reading what changed.
struct SweepOptions {
  bool retry_quarantined = false;    // sweep --retry-quarantined
  std::vector<std::string> reparse;  // sweep --reparse PLUGIN: re-read all of its sources
};

// Called after each source with (sources done, sources total, path).
using SweepProgress = std::function<void(std::size_t, std::size_t, const std::string&)>;

// Adds what one side of the sweep counted to the report, in the order it happened.
void accumulate(SweepReport& into, SweepReport&& from);

}  // namespace helix

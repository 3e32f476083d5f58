// Tier 1 eviction as the store carries it out: the retention engine decides which sessions go
// (retention/), these are the reads it decides from and the one write that drops a session's
// raw rows while its digests keep what they saw.
#pragma once

#include "store/store.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace helix {

// A session that still holds Tier 1 rows, as the retention passes weigh it.
struct EvictionCandidate {
  std::string uid;
  int64_t bytes = 0;          // its Tier 1 bytes: packs exactly, rows approximately
  int64_t analyzed_at = 0;    // 0 = never digested
  int64_t last_activity = 0;  // its newest record, or the last change of a file it came from
  int64_t ingested_at = 0;
};

// Sessions with Tier 1 rows, ingested before `idle_before_ms`: with `analyzed`, those whose
// digest is fresh (oldest analysis first), else those never digested since their last ingest
// (oldest start first).
std::vector<EvictionCandidate> eviction_candidates(Store& store, bool analyzed,
                                                   int64_t idle_before_ms);

// The bytes the file's pages hold: an upper bound of each tier, known without reading them.
int64_t used_file_bytes(Store& store);

// Tier 1 bytes of analyzed sessions idle for `quiet_period_ms` at `now_ms`; -1 when the store
// keeps no per-session counters (schema < 11) and the caller must sum the candidates.
int64_t counted_evictable_bytes(Store& store, int64_t now_ms, int64_t quiet_period_ms);

// Drops the session's Tier 1 rows in one transaction: its digests' states become their base,
// the covered offsets and seen record ids are kept, the usage ledger stays, the session is
// marked evicted at `now_ms`; un-analyzed data is recorded as a data loss of `bytes`.
void evict_session(Store& store, const std::string& uid, bool analyzed, int64_t bytes,
                   int64_t now_ms);

// After evictions: the search index and the file give the freed space back, the WAL is folded.
void release_evicted_space(Store& store);

// What `status` says of retention.
int64_t analyzed_session_count(Store& store);
int64_t evicted_session_count(Store& store);
int64_t data_loss_event_count(Store& store);  // 0 for a store older than retention (schema < 5)

}  // namespace helix

// Tier 2 in the store: digests per (session, digester), the per-day token table, and the reads
// the digest runner and the digest, env and usage commands need.
#pragma once

#include "store.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace helix {

struct DigestRow {
  std::string session_uid, digester, version, json;
  int64_t digested_at_ms = 0;
};

// A Tier 1 usage row (one model call), as a digester receives it.
struct StoredUsage {
  std::string key, model;
  int64_t ts_ms = 0, source_offset = 0, input_tokens = 0, output_tokens = 0,
          cache_read_tokens = 0, cache_creation_tokens = 0, reasoning_tokens = 0;
  bool is_sidechain = false;
  double cost_usd = -1;  // as the agent reported it; negative = not reported
};

// What decides whether a session needs digesting.
struct DigestCandidate {
  std::string uid;
  int64_t ingested_at_ms = 0;
  bool has_tier1_rows = false;                 // events or usage still in Tier 1
  std::map<std::string, DigestRow> digests;    // by digester name (json left empty)
};

// Sessions not yet evicted, with what is known of their digests.
std::vector<DigestCandidate> digest_candidates(Store& store);

std::vector<StoredUsage> session_usage(Store& store, const std::string& uid);

std::optional<DigestRow> find_digest(Store& store, const std::string& uid,
                                     const std::string& digester);

// Replaces the session's digests by `fresh` (one per digester), rebuilds its usage_days rows
// from Tier 1 usage with costs from `primary` (the primary digester's digest, fresh or stored),
// and sets analyzed_at, outcome and task_ref (from `primary`), all in one transaction.
void write_digests(Store& store, const std::string& uid, const std::vector<DigestRow>& fresh,
                   const std::optional<std::string>& primary_json, int64_t now_ms);

// Token and cost totals of usage_days grouped by `by` (day, session, model, repo, flavor),
// for days from `since_day` (YYYY-MM-DD, "" = all) and sessions of `flavor` ("" = all).
struct UsageLine {
  std::string key;
  int64_t input_tokens = 0, output_tokens = 0, cache_creation_tokens = 0, cache_read_tokens = 0,
          reasoning_tokens = 0, calls = 0;
  double cost_usd = 0;
};
std::vector<UsageLine> usage_report(Store& store, const std::string& by,
                                    const std::string& since_day, const std::string& flavor);

// The Tier 2 tables, for the status size measurement and for documentation.
inline constexpr const char* kTier2Tables[] = {"digests", "usage_days"};

}  // namespace helix

// The rows the store hands out: sessions, events and usage as every reader of the store sees them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace helix {

struct UsageTotals {
  int64_t input_tokens = 0, output_tokens = 0, cache_read_tokens = 0, cache_creation_tokens = 0,
          reasoning_tokens = 0;
  double cost_usd = 0;  // only what agents reported themselves
};

struct SessionRow {
  std::string uid, flavor, native_id, parent_uid, repo, domain, cwd, git_branch, model, title,
      agent_version, outcome, task_ref, source_path;
  std::string forked_from;                     // the session this one was forked from (schema 14)
  int64_t started_at_ms = 0, ended_at_ms = 0;  // 0 = unknown
  int64_t discovered_at_ms = 0, ingested_at_ms = 0, analyzed_at_ms = 0, evicted_at_ms = 0;
  int64_t schema_version = 0, event_count = 0, turns = 0, retries = 0, source_bytes = 0;
  int64_t redactions = 0;  // secrets replaced in what the store holds of the session
  UsageTotals usage;
  std::optional<double> cost_usd;        // at the price book's prices; none without usage
  std::optional<double> agent_cost_usd;  // what the agent said it cost; none when it did not
  int64_t unpriced_tokens = 0;           // tokens of calls the price book has no price for
  int64_t tool_calls = 0, infra_tool_calls = 0;  // as of its last digest before any eviction
  bool title_derived = false;  // `title` comes from the first prompt, not from the agent
};

struct EventRow {
  int64_t seq = 0, parent_seq = -1, ts_ms = 0, source_offset = 0, ordinal = 0;
  std::string kind, role, tool, summary, uid, parent_uid, call_id, model, source_path, payload_ref,
      text, payload;
  bool is_sidechain = false;
  int64_t tokens = 0;  // usage of the model call whose kept record this is (ordinal 0 only)
};

// One stored event as for_each_event hands it out: views valid during the callback only.
struct EventView {
  int64_t seq = 0, parent_seq = -1, ts_ms = 0, source_offset = 0, ordinal = 0;
  std::string_view kind, role, tool, summary, uid, parent_uid, call_id, model, text;
  bool is_sidechain = false;
};

// Which of a session's events for_each_event visits.
struct EventFilter {
  // Skip events at or below the offset digest_coverage records for their source: what the
  // digests' base state already holds (a session resumed after eviction).
  bool skip_covered = false;
  // Only events with a seq above this one: what a digest's saved state has not seen yet (a
  // kept session resumed after it grew).
  int64_t after_seq = -1;
};

struct SessionFilter {
  std::string flavor, repo;
  int64_t since_ms = 0;          // sessions active at or after this time
  int64_t until_ms = INT64_MAX;  // sessions started at or before this time
  bool newest_first = false;     // by start time; else oldest first
  int64_t limit = -1;            // at most this many sessions; -1 = all
};

// A usage row (one model call, the cost ledger: never evicted), as a digester receives it.
struct StoredUsage {
  std::string key, model;
  int64_t ts_ms = 0, source_offset = 0, input_tokens = 0, output_tokens = 0, cache_read_tokens = 0,
          cache_creation_tokens = 0, cache_creation_1h_tokens = 0, reasoning_tokens = 0;
  bool is_sidechain = false;
  double cost_usd = -1;  // as the agent reported it; negative = not reported
};

}  // namespace helix

// Host-owned copies of the records adapters emit (the ABI's views are only borrowed).
#pragma once

#include <helix/helix_plugin.h>

#include <cstdint>
#include <string>

namespace helix {

struct SessionRecord {
  std::string native_id, parent_native_id, cwd, git_branch, model, title, agent_version,
      forked_from_native_id;
  // Filled by the host on the reading side from `cwd` (never by adapters): the store does no
  // file-system I/O inside its write transaction.
  std::string repo, domain;
  int64_t started_at_ms = 0, ended_at_ms = 0;
};

struct EventRecord {
  std::string session_id;
  uint64_t source_offset = 0;
  uint32_t ordinal = 0;
  uint32_t flags = 0;
  int64_t ts_ms = 0;
  std::string kind, role, tool, uid, parent_uid, call_id, summary, text, model;
  // Index into the batch's payload list; payloads shared by events of one record are kept once.
  int64_t payload_index = -1;
};

struct UsageRecord {
  std::string session_id, key, model;
  uint64_t source_offset = 0;
  uint32_t flags = 0;
  int64_t ts_ms = 0;
  int64_t input_tokens = 0, output_tokens = 0, cache_read_tokens = 0, cache_creation_tokens = 0,
          reasoning_tokens = 0;
  int64_t cache_creation_1h_tokens = 0;  // the 1-hour part of cache_creation_tokens
  double cost_usd = -1;
  // Not a call: the agent's running total of the session's cost (HELIX_USAGE_AGENT_TOTAL).
  bool agent_total() const { return (flags & HELIX_USAGE_AGENT_TOTAL) != 0; }
  int64_t total() const {
    return input_tokens + output_tokens + cache_read_tokens + cache_creation_tokens;
  }
};

// One window of a provider's rate limit as a record reported it (helix.rate_limits/1).
struct RateLimitRecord {
  std::string session_id, limit_id, window;
  uint64_t source_offset = 0;
  int64_t ts_ms = 0;
  double used_percent = 0;
  int64_t window_minutes = 0, resets_at_ms = 0;  // 0 = unknown
};

struct WarningRecord {
  uint64_t source_offset = 0;
  std::string category, message;
};

}  // namespace helix

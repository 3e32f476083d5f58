// Test support: the SQL that takes a current store back to what schema version 10 had (before
// the per-session counters), for tests that make an older store to migrate.
#pragma once

namespace helix::test {

// Run inside a transaction, before setting user_version to 10 or below.
inline constexpr const char* kUndoSchema11 = R"sql(
    ALTER TABLE sessions DROP COLUMN event_count;
    ALTER TABLE sessions DROP COLUMN user_msg_count;
    ALTER TABLE sessions DROP COLUMN retry_count;
    ALTER TABLE sessions DROP COLUMN tier1_bytes;
    ALTER TABLE sessions DROP COLUMN usage_input_tokens;
    ALTER TABLE sessions DROP COLUMN usage_output_tokens;
    ALTER TABLE sessions DROP COLUMN usage_cache_read_tokens;
    ALTER TABLE sessions DROP COLUMN usage_cache_creation_tokens;
    ALTER TABLE sessions DROP COLUMN usage_reasoning_tokens;
    ALTER TABLE sessions DROP COLUMN usage_cost_usd;
    ALTER TABLE sessions DROP COLUMN source_bytes;
    ALTER TABLE sessions DROP COLUMN source_mtime_ns;
    DROP TABLE session_sources;
    CREATE INDEX events_source ON events(source_id);
)sql";

}  // namespace helix::test

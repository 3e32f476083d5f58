// Test support: the SQL that takes a current store back to what schema version 10 had (before
// the per-session counters and the host-priced costs of version 12), for tests that make an
// older store to migrate.
#pragma once

namespace helix::test {

// Back to version 11 (before quarantined sources, 13, and host-priced costs, 12). Run inside a
// transaction, first.
inline constexpr const char* kUndoSchema12 = R"sql(
    ALTER TABLE sources DROP COLUMN quarantine;
    ALTER TABLE usage DROP COLUMN cache_creation_1h_tokens;
    ALTER TABLE usage_days DROP COLUMN agent_cost_usd;
    ALTER TABLE usage_days DROP COLUMN unpriced_tokens;
    ALTER TABLE usage_rollup DROP COLUMN agent_cost_usd;
    ALTER TABLE usage_rollup DROP COLUMN unpriced_tokens;
    ALTER TABLE sessions DROP COLUMN cost_usd;
    ALTER TABLE sessions DROP COLUMN agent_cost_usd;
    ALTER TABLE sessions DROP COLUMN unpriced_tokens;
    ALTER TABLE sessions DROP COLUMN tool_calls;
    ALTER TABLE sessions DROP COLUMN infra_tool_calls;
    DROP TABLE agent_costs;
    DROP TABLE imported_prices;
    DROP TABLE pricing_state;
)sql";

// Run inside a transaction, after kUndoSchema12, before setting user_version to 10 or below.
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

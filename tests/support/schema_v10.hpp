// Test support: the SQL that takes a current store back to what schema version 15 had (before
// the rate limits of version 16), 14 had (before the stemmed and trigram search indexes of
// version 15), 12 had (before forks, 14, and
// quarantined sources, 13), 11 had (before the host-priced costs of version 12) and 10 had
// (before the per-session counters), for tests that make an older store to migrate.
#pragma once

namespace helix::test {

// Back to version 15 (before the rate limits of version 16). Run inside a transaction, first.
inline constexpr const char* kUndoSchema16 = R"sql(
    DROP INDEX rate_limits_latest;
    DROP TABLE rate_limits;
)sql";

// Back to version 14 (before the stemmed and trigram search indexes). Run inside a
// transaction, after kUndoSchema16.
inline constexpr const char* kUndoSchema15 = R"sql(
    DROP INDEX usage_time;
    DROP TRIGGER search_events_forget;
    DROP TABLE search_events_cjk;
    DROP TABLE search_events;
    CREATE VIRTUAL TABLE search_events USING fts5(
      tool, body, content = 'search_event_texts', content_rowid = 'id',
      tokenize = 'unicode61 remove_diacritics 2');
    CREATE TRIGGER search_events_forget BEFORE DELETE ON events BEGIN
      INSERT INTO search_events (search_events, rowid, tool, body)
        SELECT 'delete', id, tool, body FROM search_event_texts WHERE id = old.id;
    END;
    INSERT INTO search_events (search_events) VALUES ('rebuild');
)sql";

// Back to version 13 (no forks; search reads the kinds of schema 8 only). Run inside a
// transaction, after kUndoSchema15.
inline constexpr const char* kUndoSchema14 = R"sql(
    DROP INDEX sessions_forks;
    ALTER TABLE sessions DROP COLUMN forked_from;
    DROP TRIGGER search_events_forget;
    DROP VIEW search_event_texts;
    CREATE VIEW search_event_texts AS
      SELECT e.id, e.tool,
        helix_search_body((SELECT p.data FROM payload_packs p WHERE p.id = e.pack_id),
                          e.text_off, e.text_len) AS body
      FROM events e
      WHERE e.kind IN ('user_msg', 'assistant_msg', 'tool_call', 'test_run', 'edit', 'error',
                       'human_intervention', 'decision')
        AND (e.tool IS NOT NULL OR e.text_len > 0);
    CREATE TRIGGER search_events_forget BEFORE DELETE ON events BEGIN
      INSERT INTO search_events (search_events, rowid, tool, body)
        SELECT 'delete', id, tool, body FROM search_event_texts WHERE id = old.id;
    END;
    INSERT INTO search_events (search_events) VALUES ('rebuild');
)sql";

// Back to version 11 (before quarantined sources, 13, and host-priced costs, 12). Run inside a
// transaction, after kUndoSchema14.
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

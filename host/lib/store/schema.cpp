#include "store/schema.hpp"

#include "store/database.hpp"

#include <fmt/format.h>
#include <iterator>
#include <stdexcept>

namespace helix {
namespace {

// Version 1. Tier 1 = sources, events, usage, payload_packs, warnings; sessions carry the
// lifecycle watermarks (discovered, ingested, analyzed, evicted) that retention works from.
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE sources (
  id              INTEGER PRIMARY KEY,
  path            TEXT    NOT NULL UNIQUE,
  dev             INTEGER NOT NULL,
  ino             INTEGER NOT NULL,
  size            INTEGER NOT NULL,      -- on disk, at the last visit
  mtime_ns        INTEGER NOT NULL,
  compressed      INTEGER NOT NULL DEFAULT 0,
  layout          INTEGER NOT NULL,      -- HELIX_LAYOUT_*
  head_len        INTEGER NOT NULL DEFAULT 0,
  head_hash       INTEGER NOT NULL DEFAULT 0,
  offset          INTEGER NOT NULL DEFAULT 0,  -- first (decompressed) byte not yet ingested
  tail_len        INTEGER NOT NULL DEFAULT 0,
  tail_hash       INTEGER NOT NULL DEFAULT 0,
  generation      INTEGER NOT NULL DEFAULT 0,  -- bumped when the file is rewritten
  adapter         TEXT,                  -- sticky claim: the plugin that won the probe
  adapter_version TEXT,
  flavor          TEXT,
  state           TEXT    NOT NULL DEFAULT 'active',  -- active | missing | unclaimed | orphaned
  adapter_state   BLOB,
  last_error      TEXT,
  first_seen_ms   INTEGER NOT NULL,
  updated_ms      INTEGER NOT NULL
);
CREATE INDEX sources_devino ON sources(dev, ino);

CREATE TABLE sessions (
  uid              TEXT PRIMARY KEY,     -- "<flavor>:<native id>"
  flavor           TEXT NOT NULL,
  native_id        TEXT NOT NULL,
  parent_uid       TEXT,
  repo             TEXT,
  domain           TEXT,
  cwd              TEXT,
  git_branch       TEXT,
  model            TEXT,
  title            TEXT,
  agent_version    TEXT,
  started_at_ms    INTEGER,
  ended_at_ms      INTEGER,
  outcome          TEXT NOT NULL DEFAULT 'unknown',
  task_ref         TEXT,
  source_path      TEXT,                 -- the first source that named the session
  schema_version   INTEGER NOT NULL DEFAULT 1,
  discovered_at_ms INTEGER NOT NULL,
  ingested_at_ms   INTEGER,
  analyzed_at_ms   INTEGER,
  evicted_at_ms    INTEGER,
  next_seq         INTEGER NOT NULL DEFAULT 0
);

-- Raw records and full texts, zstd-compressed, one pack per session per committed chunk.
CREATE TABLE payload_packs (
  id          INTEGER PRIMARY KEY,
  session_uid TEXT    NOT NULL,
  source_id   INTEGER NOT NULL,
  raw_bytes   INTEGER NOT NULL,
  data        BLOB    NOT NULL
);
CREATE INDEX payload_packs_session ON payload_packs(session_uid);
CREATE INDEX payload_packs_source ON payload_packs(source_id);

CREATE TABLE events (
  id            INTEGER PRIMARY KEY,
  session_uid   TEXT    NOT NULL,
  seq           INTEGER,               -- NULL for shadows
  parent_seq    INTEGER,
  ts_ms         INTEGER,
  kind          TEXT    NOT NULL,
  role          TEXT,
  tool          TEXT,
  summary       TEXT,
  uid           TEXT,
  parent_uid    TEXT,
  call_id       TEXT,
  is_sidechain  INTEGER NOT NULL DEFAULT 0,
  model         TEXT,
  source_id     INTEGER NOT NULL,
  generation    INTEGER NOT NULL,
  source_offset INTEGER NOT NULL,
  ordinal       INTEGER NOT NULL,
  pack_id       INTEGER,
  payload_off   INTEGER,
  payload_len   INTEGER,
  text_off      INTEGER,
  text_len      INTEGER,
  -- A later copy of a record already stored (same session, uid, ordinal) from another file.
  -- Shadows are invisible; one is promoted when its primary's source is rewritten or evicted,
  -- so no file's rewrite can lose a record another file still holds.
  shadowed      INTEGER NOT NULL DEFAULT 0,
  UNIQUE (source_id, generation, source_offset, ordinal),
  UNIQUE (session_uid, seq)
);
CREATE UNIQUE INDEX events_native ON events(session_uid, uid, ordinal)
  WHERE uid IS NOT NULL AND shadowed = 0;
CREATE INDEX events_shadow ON events(session_uid, uid, ordinal) WHERE shadowed = 1;
CREATE INDEX events_call ON events(session_uid, call_id) WHERE call_id IS NOT NULL;
CREATE INDEX events_source ON events(source_id);

-- One row per model call; `key` de-duplicates repeated usage lines (keep the largest).
CREATE TABLE usage (
  key                   TEXT PRIMARY KEY,
  session_uid           TEXT    NOT NULL,
  source_id             INTEGER NOT NULL,
  source_offset         INTEGER NOT NULL,      -- the record that carries the kept usage
  is_sidechain          INTEGER NOT NULL DEFAULT 0,
  ts_ms                 INTEGER,
  model                 TEXT,
  input_tokens          INTEGER NOT NULL,
  output_tokens         INTEGER NOT NULL,
  cache_read_tokens     INTEGER NOT NULL,
  cache_creation_tokens INTEGER NOT NULL,
  reasoning_tokens      INTEGER NOT NULL,
  cost_usd              REAL
);
CREATE INDEX usage_session ON usage(session_uid);
CREATE INDEX usage_source ON usage(source_id);

CREATE TABLE warnings (
  id            INTEGER PRIMARY KEY,
  source_id     INTEGER NOT NULL,
  generation    INTEGER NOT NULL,
  source_offset INTEGER NOT NULL,
  category      TEXT    NOT NULL,
  message       TEXT    NOT NULL,
  at_ms         INTEGER NOT NULL,
  UNIQUE (source_id, generation, source_offset, category)
);
)sql";

// Version 2. Tier 2 (durable; retention never deletes it): one digest per (session, digester),
// and the session's token usage per UTC day and model, so that usage reports stay right after
// the session's Tier 1 rows are evicted.
constexpr const char* kSchemaV2Digests = R"sql(
CREATE TABLE digests (
  session_uid      TEXT    NOT NULL,
  digester         TEXT    NOT NULL,   -- the plugin's name
  digester_version TEXT    NOT NULL,   -- its version; a new major re-digests every session
  digested_at_ms   INTEGER NOT NULL,   -- newer events than this make the digest stale
  json             TEXT    NOT NULL,   -- the digest object, as the plugin returned it
  PRIMARY KEY (session_uid, digester)
);

CREATE TABLE usage_days (
  session_uid           TEXT    NOT NULL,
  day                   TEXT    NOT NULL,  -- YYYY-MM-DD (UTC) of each model call
  model                 TEXT    NOT NULL,  -- '' when the records name none
  calls                 INTEGER NOT NULL,
  input_tokens          INTEGER NOT NULL,
  output_tokens         INTEGER NOT NULL,
  cache_read_tokens     INTEGER NOT NULL,
  cache_creation_tokens INTEGER NOT NULL,
  reasoning_tokens      INTEGER NOT NULL,
  cost_usd              REAL,              -- from the primary digest; NULL when it has none
  PRIMARY KEY (session_uid, day, model)
);
CREATE INDEX usage_days_day ON usage_days(day);
)sql";

// Version 3. Full-text search (FTS5). Each index keeps its own uncompressed copy of the text it
// holds, so that snippets come from SQLite (see docs/schema.md for the cost). Tier 1:
// search_events, rowid = events.id, filled by the host as events are stored and emptied by
// trigger whenever an event row is deleted (new generation, eviction). Tier 2: search_digests,
// rowid = digests.rowid, kept in step with digests by triggers. sessions.prompt_title is the
// title derived from the first prompt, for sessions whose agent gives none.
constexpr const char* kSchemaV3Search = R"sql(
CREATE VIRTUAL TABLE search_events USING fts5(
  tool, body, tokenize = 'unicode61 remove_diacritics 2');
CREATE TRIGGER search_events_forget AFTER DELETE ON events BEGIN
  DELETE FROM search_events WHERE rowid = old.id;
END;
-- Events stored before version 3: indexed by the host on its next writable open.
CREATE TABLE search_backlog (event_id INTEGER PRIMARY KEY);
INSERT INTO search_backlog SELECT id FROM events;
ALTER TABLE sessions ADD COLUMN prompt_title TEXT;

CREATE VIRTUAL TABLE search_digests USING fts5(
  session_uid UNINDEXED, title, first_prompt, last_answer, errors,
  tokenize = 'unicode61 remove_diacritics 2');
CREATE VIEW search_digest_rows AS
  SELECT d.rowid AS digest_rowid, d.session_uid,
    (SELECT COALESCE(s.title, s.prompt_title) FROM sessions s WHERE s.uid = d.session_uid)
      AS title,
    json_extract(d.json, '$.first_prompt') AS first_prompt,
    json_extract(d.json, '$.last_assistant') AS last_answer,
    (SELECT group_concat(json_extract(e.value, '$.sample'), char(10))
       FROM json_each(d.json, '$.error_snippets') e WHERE e.type = 'object') AS errors
  FROM digests d WHERE json_valid(d.json);
CREATE TRIGGER search_digests_add AFTER INSERT ON digests BEGIN
  INSERT INTO search_digests (rowid, session_uid, title, first_prompt, last_answer, errors)
    SELECT * FROM search_digest_rows WHERE digest_rowid = new.rowid;
END;
CREATE TRIGGER search_digests_change AFTER UPDATE ON digests BEGIN
  DELETE FROM search_digests WHERE rowid = old.rowid;
  INSERT INTO search_digests (rowid, session_uid, title, first_prompt, last_answer, errors)
    SELECT * FROM search_digest_rows WHERE digest_rowid = new.rowid;
END;
CREATE TRIGGER search_digests_forget AFTER DELETE ON digests BEGIN
  DELETE FROM search_digests WHERE rowid = old.rowid;
END;
INSERT INTO search_digests (rowid, session_uid, title, first_prompt, last_answer, errors)
  SELECT * FROM search_digest_rows;
)sql";

// Version 4. How many secrets redaction replaced in what the store holds, per session and
// source: a rewritten source's rows are deleted and re-ingested, and its counts with them.
constexpr const char* kSchemaV4Redactions = R"sql(
CREATE TABLE session_redactions (
  session_uid TEXT    NOT NULL,
  source_id   INTEGER NOT NULL,
  count       INTEGER NOT NULL,
  PRIMARY KEY (session_uid, source_id)
);
)sql";

// Version 5 (Tier 2). What retention did that a person must be told about: data loss on the
// hard-cap path (design document §5.2 step 4). Kept when Tier 1 rows go.
constexpr const char* kSchemaV5Retention = R"sql(
CREATE TABLE retention_events (
  id          INTEGER PRIMARY KEY,
  at_ms       INTEGER NOT NULL,
  kind        TEXT    NOT NULL,      -- session_memory.data_loss
  session_uid TEXT    NOT NULL,
  bytes       INTEGER NOT NULL,
  message     TEXT    NOT NULL
);
)sql";

// Version 6. Events find the usage their record carries by (source, offset); without this
// index each lookup scanned every usage row of the source (quadratic in session size).
constexpr const char* kSchemaV6UsagePosition = R"sql(
CREATE INDEX usage_position ON usage(source_id, source_offset);
DROP INDEX usage_source;
)sql";

// Version 7. Growth after eviction: the usage ledger stays (Tier 2 from now on), each digest
// keeps the digester's resumable state (`state`, with every digest; `base_state`, as of the
// last eviction), digest_coverage records, per evicted session and source, the highest event
// offset the base state has seen, so events re-read after a rewrite are not digested twice, and
// digest_seen_records the native record ids it has seen, so copies of them (a resumed session
// repeats its records in a new file) are not digested twice either. The partial index finds
// the sessions whose digests are stale without a scan, the digests index answers "which
// digester versions are stored" from the index alone, and the search row of a digest follows
// its json only (not its states).
constexpr const char* kSchemaV7Resume = R"sql(
ALTER TABLE digests ADD COLUMN state BLOB;
ALTER TABLE digests ADD COLUMN base_state BLOB;
CREATE TABLE digest_coverage (
  session_uid TEXT    NOT NULL,
  source_id   INTEGER NOT NULL,
  covered_offset INTEGER NOT NULL,  -- events of this source at or below it are in base_state
  PRIMARY KEY (session_uid, source_id)
);
CREATE TABLE digest_seen_records (
  session_uid TEXT PRIMARY KEY,
  keys        BLOB NOT NULL  -- sorted XXH3-64 keys of the native record ids the base state saw
);
CREATE INDEX sessions_stale ON sessions(uid)
  WHERE analyzed_at_ms IS NULL OR ingested_at_ms > analyzed_at_ms;
CREATE INDEX digests_version ON digests(digester, digester_version);
DROP TRIGGER search_digests_change;
CREATE TRIGGER search_digests_change AFTER UPDATE OF json ON digests BEGIN
  DELETE FROM search_digests WHERE rowid = old.rowid;
  INSERT INTO search_digests (rowid, session_uid, title, first_prompt, last_answer, errors)
    SELECT * FROM search_digest_rows WHERE digest_rowid = new.rowid;
END;
)sql";

// Version 8. search_events keeps no copy of the texts (they are in the payload packs already,
// compressed; the copy was a fifth of Tier 1): an external-content FTS5 table whose content is
// the view search_event_texts, which reads each text back from its pack through the host's
// function helix_search_body (search_index.cpp). The view lists what SearchIndexWriter indexes
// (is_searchable_kind; an event with a tool or a text); FTS5 reads it for snippets, and the
// trigger hands FTS5 the same values to delete an event's row before the event goes (packs are
// deleted after their events). The index is rebuilt from the view, which also indexes what
// search_backlog still held, and the copy's pages go back to the file system. An event's kind,
// tool, pack_id, text_off and text_len are therefore never updated in place.
constexpr const char* kSchemaV8SearchWithoutCopy = R"sql(
DROP TRIGGER search_events_forget;
DROP TABLE search_events;
DROP TABLE search_backlog;
CREATE VIEW search_event_texts AS
  SELECT e.id, e.tool,
    helix_search_body((SELECT p.data FROM payload_packs p WHERE p.id = e.pack_id),
                      e.text_off, e.text_len) AS body
  FROM events e
  WHERE e.kind IN ('user_msg', 'assistant_msg', 'tool_call', 'test_run', 'edit', 'error',
                   'human_intervention', 'decision')
    AND (e.tool IS NOT NULL OR e.text_len > 0);
CREATE VIRTUAL TABLE search_events USING fts5(
  tool, body, content = 'search_event_texts', content_rowid = 'id',
  tokenize = 'unicode61 remove_diacritics 2');
CREATE TRIGGER search_events_forget BEFORE DELETE ON events BEGIN
  INSERT INTO search_events (search_events, rowid, tool, body)
    SELECT 'delete', id, tool, body FROM search_event_texts WHERE id = old.id;
END;
INSERT INTO search_events (search_events) VALUES ('rebuild');
PRAGMA incremental_vacuum;
)sql";

// Version 9. What a digest's saved state has seen of a session whose raw data is kept, so that
// a session that grew is resumed from that state with only its new events (seq above
// covered_seq) instead of being digested again from its first event. covered_events and
// covered_untimed count the visible events at or below covered_seq, and those without a time,
// when the digest was written: a different count later means an earlier event went (a source
// rewritten, a copy promoted) or gained its time from a copy, and the session is digested
// from the start. NULL: unknown (digests older than this version), digested from the start.
constexpr const char* kSchemaV9GrowthCoverage = R"sql(
ALTER TABLE digests ADD COLUMN covered_seq INTEGER;
ALTER TABLE digests ADD COLUMN covered_events INTEGER;
ALTER TABLE digests ADD COLUMN covered_untimed INTEGER;
)sql";

// Version 10 (Tier 2). `usage` answers by day, model or flavor from usage_rollup, the totals of
// usage_days per (day, model, flavor), instead of scanning usage_days and joining every row to
// its session (half a second at 100,000 sessions). Triggers mark every day whose usage_days rows
// change stale, whoever the writer; refresh_usage_rollup (digest_store.cpp) recomputes exactly
// those days at the end of the digest pass, and usage reads usage_days itself while any day is
// stale. The rollup of an existing store is filled here.
constexpr const char* kSchemaV10UsageRollup = R"sql(
CREATE TABLE usage_rollup (
  day                   TEXT    NOT NULL,
  model                 TEXT    NOT NULL,
  flavor                TEXT    NOT NULL,
  calls                 INTEGER NOT NULL,
  input_tokens          INTEGER NOT NULL,
  output_tokens         INTEGER NOT NULL,
  cache_read_tokens     INTEGER NOT NULL,
  cache_creation_tokens INTEGER NOT NULL,
  reasoning_tokens      INTEGER NOT NULL,
  cost_usd              REAL    NOT NULL,  -- TOTAL() of usage_days.cost_usd
  PRIMARY KEY (day, model, flavor)
) WITHOUT ROWID;
CREATE TABLE usage_rollup_stale (day TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TRIGGER usage_rollup_stale_insert AFTER INSERT ON usage_days BEGIN
  INSERT OR IGNORE INTO usage_rollup_stale (day) VALUES (new.day);
END;
CREATE TRIGGER usage_rollup_stale_delete AFTER DELETE ON usage_days BEGIN
  INSERT OR IGNORE INTO usage_rollup_stale (day) VALUES (old.day);
END;
CREATE TRIGGER usage_rollup_stale_update AFTER UPDATE ON usage_days BEGIN
  INSERT OR IGNORE INTO usage_rollup_stale (day) VALUES (old.day), (new.day);
END;
INSERT INTO usage_rollup (day, model, flavor, calls, input_tokens, output_tokens,
  cache_read_tokens, cache_creation_tokens, reasoning_tokens, cost_usd)
  SELECT d.day, d.model, s.flavor, SUM(d.calls), SUM(d.input_tokens), SUM(d.output_tokens),
    SUM(d.cache_read_tokens), SUM(d.cache_creation_tokens), SUM(d.reasoning_tokens),
    TOTAL(d.cost_usd)
  FROM usage_days d JOIN sessions s ON s.uid = d.session_uid
  GROUP BY d.day, d.model, s.flavor;
)sql";

// Version 11. Per-session counters, so that `sessions`, `status` and retention read one row per
// session instead of every session's events, packs and usage: the visible events, the user
// messages outside side chains, the retries, the Tier 1 bytes as retention counts them (its
// packs' compressed sizes plus 96 bytes, the summary's length and twice the native id's length
// per event row, shadows included) and the sums of its usage rows. session_sources links each
// session to the sources its event rows (shadows included) come from, and source_bytes and
// source_mtime_ns are the sum of those sources' sizes and their newest mtime (recomputed for the
// linked sessions whenever a source's row is saved). The write path (store.cpp, retention.cpp)
// keeps all of it exact; they are filled here from the rows. events_source was a prefix of the
// unique index on events' position, which serves every lookup by source; its pages go back to the
// file system.
constexpr const char* kSchemaV11SessionCounters = R"sql(
ALTER TABLE sessions ADD COLUMN event_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN user_msg_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN retry_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN tier1_bytes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN usage_input_tokens INTEGER;     -- SUM(): NULL without usage
ALTER TABLE sessions ADD COLUMN usage_output_tokens INTEGER;
ALTER TABLE sessions ADD COLUMN usage_cache_read_tokens INTEGER;
ALTER TABLE sessions ADD COLUMN usage_cache_creation_tokens INTEGER;
ALTER TABLE sessions ADD COLUMN usage_reasoning_tokens INTEGER;
ALTER TABLE sessions ADD COLUMN usage_cost_usd REAL;
ALTER TABLE sessions ADD COLUMN source_bytes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN source_mtime_ns INTEGER;      -- NULL without sources
CREATE TABLE session_sources (
  session_uid TEXT    NOT NULL,
  source_id   INTEGER NOT NULL,
  PRIMARY KEY (session_uid, source_id)
) WITHOUT ROWID;
CREATE INDEX session_sources_source ON session_sources(source_id);
INSERT INTO session_sources (session_uid, source_id)
  SELECT DISTINCT session_uid, source_id FROM events;
UPDATE sessions SET source_bytes = t.bytes, source_mtime_ns = t.mtime
  FROM (SELECT l.session_uid, SUM(src.size) AS bytes, MAX(src.mtime_ns) AS mtime
        FROM session_sources l JOIN sources src ON src.id = l.source_id
        GROUP BY l.session_uid) AS t
  WHERE sessions.uid = t.session_uid;
UPDATE sessions SET event_count = c.visible, user_msg_count = c.user_msgs,
    retry_count = c.retries, tier1_bytes = c.bytes
  FROM (SELECT session_uid, SUM(visible) AS visible, SUM(user_msgs) AS user_msgs,
          SUM(retries) AS retries, SUM(bytes) AS bytes
        FROM (SELECT session_uid, shadowed = 0 AS visible,
                shadowed = 0 AND kind = 'user_msg' AND is_sidechain = 0 AS user_msgs,
                shadowed = 0 AND kind = 'retry' AS retries,
                96 + COALESCE(length(summary), 0) + COALESCE(length(uid), 0) * 2 AS bytes
              FROM events
              UNION ALL
              SELECT session_uid, 0, 0, 0, length(data) FROM payload_packs)
        GROUP BY session_uid) AS c
  WHERE sessions.uid = c.session_uid;
UPDATE sessions SET usage_input_tokens = u.input, usage_output_tokens = u.output,
    usage_cache_read_tokens = u.cache_read, usage_cache_creation_tokens = u.cache_creation,
    usage_reasoning_tokens = u.reasoning, usage_cost_usd = u.cost
  FROM (SELECT session_uid, SUM(input_tokens) AS input, SUM(output_tokens) AS output,
          SUM(cache_read_tokens) AS cache_read, SUM(cache_creation_tokens) AS cache_creation,
          SUM(reasoning_tokens) AS reasoning, SUM(cost_usd) AS cost
        FROM usage GROUP BY session_uid) AS u
  WHERE sessions.uid = u.session_uid;
DROP INDEX events_source;
PRAGMA incremental_vacuum;
)sql";

// Version 12 (Tier 2). Costs are the host's: usage_days.cost_usd is priced from the usage
// ledger with the price book (built in, plus files imported into imported_prices), not taken
// from a digest, and is recomputed whenever the book changes (pricing_state names the book
// the stored costs were computed with; empty: not yet). usage_days, usage_rollup and sessions
// also keep the tokens no price covered and what the agents reported they cost themselves:
// per call (usage.cost_usd) and as running totals (agent_costs, e.g. Claude Code's cost-state
// records; the latest record per key wins). usage.cache_creation_1h_tokens is the 1-hour part
// of cache_creation_tokens, billed at its own rate. sessions.tool_calls and infra_tool_calls
// count the session's tool calls (and the agent-plumbing ones among them) when it is digested,
// so that `env` needs no digester's histogram and still has them after eviction.
constexpr const char* kSchemaV12HostPricing = R"sql(
ALTER TABLE usage ADD COLUMN cache_creation_1h_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage_days ADD COLUMN agent_cost_usd REAL;                 -- NULL: none reported
ALTER TABLE usage_days ADD COLUMN unpriced_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage_rollup ADD COLUMN agent_cost_usd REAL;               -- SUM(): NULL if none
ALTER TABLE usage_rollup ADD COLUMN unpriced_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN cost_usd REAL;                         -- NULL without usage
ALTER TABLE sessions ADD COLUMN agent_cost_usd REAL;
ALTER TABLE sessions ADD COLUMN unpriced_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN tool_calls INTEGER;        -- counted when digested: kept at
ALTER TABLE sessions ADD COLUMN infra_tool_calls INTEGER;  -- eviction, for HELIX_INFRA_OVERHEAD_SHARE
CREATE TABLE agent_costs (
  key           TEXT PRIMARY KEY,      -- <flavor>:<adapter key>
  session_uid   TEXT    NOT NULL,
  source_id     INTEGER NOT NULL,
  source_offset INTEGER NOT NULL,
  model         TEXT,
  cost_usd      REAL    NOT NULL
);
CREATE INDEX agent_costs_session ON agent_costs(session_uid);
CREATE INDEX agent_costs_source ON agent_costs(source_id);
CREATE TABLE imported_prices (
  id             INTEGER PRIMARY KEY CHECK (id = 1),
  source         TEXT    NOT NULL,   -- the files imported, for people
  imported_at_ms INTEGER NOT NULL,
  litellm_json   TEXT    NOT NULL    -- their entries the host reads, LiteLLM's format
);
CREATE TABLE pricing_state (
  id             INTEGER PRIMARY KEY CHECK (id = 1),
  fingerprint    TEXT    NOT NULL,   -- PriceBook::fingerprint() in hex
  source         TEXT    NOT NULL,
  priced_at_ms   INTEGER NOT NULL
);
)sql";

// A source whose plugin crashed, hung or ran out of memory on it is quarantined (state
// 'quarantined', the reason in last_error): `quarantine` names the plugin file as it was then,
// so that a changed plugin tries it again.
constexpr const char* kSchemaV13Quarantine = R"sql(
ALTER TABLE sources ADD COLUMN quarantine TEXT;  -- "<plugin version> <size> <mtime_ns>"
)sql";

// Version 14. Forks and what search reads. sessions.forked_from names the session a fork copied
// its conversation from (the fork's copies of the origin's records are its shadows), with an
// index to find an origin's forks. Search also indexes lifecycle events that carry a text (a
// compaction's summary, a subagent's description) and tool results delivered as a user turn
// (role user: a background task's notification), so the view, its delete trigger and the index
// are rebuilt for the wider set.
constexpr const char* kSchemaV14ForksAndSearch = R"sql(
ALTER TABLE sessions ADD COLUMN forked_from TEXT;
CREATE INDEX sessions_forks ON sessions(forked_from) WHERE forked_from IS NOT NULL;
DROP TRIGGER search_events_forget;
DROP VIEW search_event_texts;
CREATE VIEW search_event_texts AS
  SELECT e.id, e.tool,
    helix_search_body((SELECT p.data FROM payload_packs p WHERE p.id = e.pack_id),
                      e.text_off, e.text_len) AS body
  FROM events e
  WHERE (e.kind IN ('user_msg', 'assistant_msg', 'tool_call', 'test_run', 'edit', 'error',
                    'human_intervention', 'decision')
         AND (e.tool IS NOT NULL OR e.text_len > 0))
     OR (e.kind = 'lifecycle' AND e.text_len > 0)
     OR (e.kind = 'tool_result' AND e.role = 'user' AND e.text_len > 0);
CREATE TRIGGER search_events_forget BEFORE DELETE ON events BEGIN
  INSERT INTO search_events (search_events, rowid, tool, body)
    SELECT 'delete', id, tool, body FROM search_event_texts WHERE id = old.id;
END;
INSERT INTO search_events (search_events) VALUES ('rebuild');
)sql";

// Version 15. Search finds word forms (a porter stemmer over unicode61: "typos" finds "typo",
// "fixing" finds "fixed") in both indexes, rebuilt from what they index. Texts in scripts
// written without spaces (Chinese, Japanese, Thai, ...) are one unicode61 token per run, so a
// word inside a run could not be found: search_events_cjk, an FTS5 trigram index over the same
// view, holds the events whose text has such characters (helix_spaceless(body), a host
// function; the host adds new events to it as it stores them), and finds any substring of
// three characters or more (shorter ones by LIKE over its rows). usage_time serves the usage
// reports that read single calls by time (local days, 5-hour blocks, the status line).
constexpr const char* kSchemaV15WordForms = R"sql(
DROP TRIGGER search_events_forget;
DROP TABLE search_events;
CREATE VIRTUAL TABLE search_events USING fts5(
  tool, body, content = 'search_event_texts', content_rowid = 'id',
  tokenize = 'porter unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE search_events_cjk USING fts5(
  body, content = 'search_event_texts', content_rowid = 'id', tokenize = 'trigram');
CREATE TRIGGER search_events_forget BEFORE DELETE ON events BEGIN
  INSERT INTO search_events (search_events, rowid, tool, body)
    SELECT 'delete', id, tool, body FROM search_event_texts WHERE id = old.id;
  INSERT INTO search_events_cjk (search_events_cjk, rowid, body)
    SELECT 'delete', id, body FROM search_event_texts WHERE id = old.id AND helix_spaceless(body);
END;
INSERT INTO search_events (search_events) VALUES ('rebuild');
INSERT INTO search_events_cjk (rowid, body)
  SELECT id, body FROM search_event_texts WHERE helix_spaceless(body);

DROP TRIGGER search_digests_add;
DROP TRIGGER search_digests_change;
DROP TRIGGER search_digests_forget;
DROP TABLE search_digests;
CREATE VIRTUAL TABLE search_digests USING fts5(
  session_uid UNINDEXED, title, first_prompt, last_answer, errors,
  tokenize = 'porter unicode61 remove_diacritics 2');
CREATE TRIGGER search_digests_add AFTER INSERT ON digests BEGIN
  INSERT INTO search_digests (rowid, session_uid, title, first_prompt, last_answer, errors)
    SELECT * FROM search_digest_rows WHERE digest_rowid = new.rowid;
END;
CREATE TRIGGER search_digests_change AFTER UPDATE OF json ON digests BEGIN
  DELETE FROM search_digests WHERE rowid = old.rowid;
  INSERT INTO search_digests (rowid, session_uid, title, first_prompt, last_answer, errors)
    SELECT * FROM search_digest_rows WHERE digest_rowid = new.rowid;
END;
CREATE TRIGGER search_digests_forget AFTER DELETE ON digests BEGIN
  DELETE FROM search_digests WHERE rowid = old.rowid;
END;
INSERT INTO search_digests (rowid, session_uid, title, first_prompt, last_answer, errors)
  SELECT * FROM search_digest_rows;
CREATE INDEX usage_time ON usage(ts_ms);
PRAGMA incremental_vacuum;
)sql";

// Version 16. The rate limits a provider announced (Codex token_count.rate_limits): one row per
// window a record reported, kept like the usage ledger (Tier 2, never evicted; a rewritten
// source's rows are read again). `usage --limits` reads the latest of each window.
constexpr const char* kSchemaV16RateLimits = R"sql(
CREATE TABLE rate_limits (
  source_id      INTEGER NOT NULL,
  source_offset  INTEGER NOT NULL,
  limit_id       TEXT    NOT NULL,   -- the provider's name of the limit; '' = the default
  window_name    TEXT    NOT NULL,   -- primary, secondary
  session_uid    TEXT    NOT NULL,
  flavor         TEXT    NOT NULL,
  ts_ms          INTEGER,            -- when the record reported it; NULL = unknown
  used_percent   REAL    NOT NULL,
  window_minutes INTEGER,            -- NULL = unknown
  resets_at_ms   INTEGER,            -- NULL = unknown
  PRIMARY KEY (source_id, source_offset, limit_id, window_name)
) WITHOUT ROWID;
CREATE INDEX rate_limits_latest ON rate_limits(flavor, limit_id, window_name, ts_ms);
)sql";

// Every schema change is a new entry, applied in order and never edited once released.
struct Migration {
  int version;
  const char* sql;
};
constexpr Migration kMigrations[] = {
    {1, kSchemaV1},
    {2, kSchemaV2Digests},
    {3, kSchemaV3Search},
    {4, kSchemaV4Redactions},
    {5, kSchemaV5Retention},
    {6, kSchemaV6UsagePosition},
    {7, kSchemaV7Resume},
    {8, kSchemaV8SearchWithoutCopy},
    {9, kSchemaV9GrowthCoverage},
    {10, kSchemaV10UsageRollup},
    {11, kSchemaV11SessionCounters},
    {12, kSchemaV12HostPricing},
    {13, kSchemaV13Quarantine},
    {14, kSchemaV14ForksAndSearch},
    {15, kSchemaV15WordForms},
    {16, kSchemaV16RateLimits},
};
static_assert(kMigrations[std::size(kMigrations) - 1].version == kStoreSchemaVersion,
              "kStoreSchemaVersion must name the last migration");

}  // namespace

int user_version(Database& db) {
  auto st = db.cached("PRAGMA user_version");  // asked once per session by the digest pass
  st->step();
  const int version = static_cast<int>(st->integer(0));
  st->reset();
  return version;
}

void refuse_newer_schema(Database& db) {
  const int version = user_version(db);
  if (version > kStoreSchemaVersion)
    throw std::runtime_error(fmt::format(
        "the store {} has schema version {}, newer than this helix-host understands ({}); "
        "upgrade helix-host",
        db.path().string(), version, kStoreSchemaVersion));
}

void migrate(Database& db) {
  refuse_newer_schema(db);
  const int version = user_version(db);
  if (version == kStoreSchemaVersion) return;
  Transaction tx(db);
  for (const auto& m : kMigrations)
    if (m.version > version) db.exec(m.sql);
  db.exec(fmt::format("PRAGMA user_version = {}", kStoreSchemaVersion));
  tx.commit();
}

}  // namespace helix

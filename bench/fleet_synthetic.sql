-- A synthetic fleet for bench/fleet_run, written straight into helix_fleet by the superuser
-- (psql -v sessions=N -v hosts=N -v event_sessions=N): :hosts hosts of team 'fleet' and
-- :sessions sessions over the twelve months from 2025-12 to 2026-11, deterministic
-- (setseed). Each session has one digest (about 24 words from a Zipf-weighted vocabulary), one
-- to three usage days, and the first :event_sessions sessions 40 events each.
\set ON_ERROR_STOP on
\timing on
SELECT setseed(0.42);

-- The vocabulary: 4,000 words; rank 1 is the most frequent (a word's rank is drawn as
-- 1 + floor(4000 * random()^2.5)). Some ranks carry real words the benchmark searches for:
-- 'error' (rank 1), 'timeout' (rank 40), 'kafka' (rank 900), 'flakyzebra' (rank 3,990); the
-- others are term<rank>. A function, not a table: it is inlined and computed per word.
CREATE FUNCTION pg_temp.word(rank int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE rank WHEN 1 THEN 'error' WHEN 40 THEN 'timeout' WHEN 900 THEN 'kafka'
                   WHEN 3990 THEN 'flakyzebra' ELSE 'term' || rank END
$$;
CREATE FUNCTION pg_temp.words(n int) RETURNS text LANGUAGE sql VOLATILE AS $$
  SELECT string_agg(pg_temp.word(1 + floor(4000 * power(random(), 2.5))::int), ' ')
  FROM generate_series(1, n)
$$;

-- The secondary indexes are built after the rows (as fleet_schema.cpp, version 1, defines
-- them): building a GIN index at once is much faster than growing it row by row.
DROP INDEX helix_fleet.sessions_started, helix_fleet.sessions_uid, helix_fleet.digests_search,
  helix_fleet.usage_days_day, helix_fleet.events_search;
SET maintenance_work_mem = '1GB';

SELECT helix_fleet.ensure_months(ARRAY(
  SELECT generate_series(date '2025-12-01', date '2026-12-01', interval '1 month')::date));

INSERT INTO helix_fleet.hosts (team, host_id, host_name, member, helix_version, mark_version)
SELECT 'fleet', md5('host' || h), 'ws-' || lpad(h::text, 3, '0'),
  'member_' || lpad((h % 60)::text, 3, '0'), '0.1.0', 0
FROM generate_series(0, :hosts - 1) h;

INSERT INTO helix_fleet.sessions (team, host_id, session_uid, month, version, member, flavor,
  native_id, repo, model, title, title_source, started_at, ended_at, outcome, event_count,
  turns, retries, source_bytes, redactions, input_tokens, output_tokens, cache_read_tokens,
  cache_creation_tokens, reasoning_tokens, cost_usd, ingested_at, analyzed_at)
SELECT 'fleet', md5('host' || (i % :hosts)), f || ':' || md5('s' || i),
  date_trunc('month', t)::date, 1, 'member_' || lpad(((i % :hosts) % 60)::text, 3, '0'), f,
  md5('s' || i), 'repo-' || floor(200 * power(random(), 3))::int,
  (ARRAY['claude-opus-4-5', 'claude-sonnet-4-5', 'gpt-5-codex', 'gpt-5', 'grok-code-fast-1',
         'claude-haiku-4-5'])[1 + (i * 7) % 6],
  'session ' || i, 'first_prompt', t, t + (5 + random() * 120) * interval '1 minute',
  (ARRAY['success', 'success', 'fail', 'unknown'])[1 + i % 4], 40, 6, i % 3, 80000, 0,
  (random() * 20000)::bigint, (random() * 8000)::bigint, (random() * 400000)::bigint,
  (random() * 40000)::bigint, 0, 0, t, t
FROM (SELECT i, (ARRAY['claude', 'claude', 'codex', 'grok'])[1 + i % 4] AS f,
        timestamptz '2025-12-01' + random() * interval '364 days' AS t
      FROM generate_series(1, :sessions) i) g;

INSERT INTO helix_fleet.digests (team, host_id, session_uid, month, digester, member,
  plugin_version, digested_at, body, search_text)
SELECT team, host_id, session_uid, month, 'session_digest', member, '1.0.0', ended_at,
  json_build_object('session_uid', session_uid, 'outcome', outcome, 'first_prompt', text), text
FROM (SELECT s.*, pg_temp.words(20 + abs(hashtext(s.session_uid)) % 9) AS text
      FROM helix_fleet.sessions s) w;

INSERT INTO helix_fleet.usage_days (team, host_id, session_uid, month, day, model, member,
  flavor, repo, calls, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens,
  reasoning_tokens, cost_usd)
SELECT s.team, s.host_id, s.session_uid, date_trunc('month', d.day)::date,
  to_char(d.day, 'YYYY-MM-DD'), s.model, s.member, s.flavor, s.repo, 12,
  s.input_tokens / d.n, s.output_tokens / d.n, s.cache_read_tokens / d.n,
  s.cache_creation_tokens / d.n, 0, round((random() * 2)::numeric, 4)::float8
FROM helix_fleet.sessions s,
  LATERAL (SELECT s.started_at + k * interval '1 day' AS day, 1 + abs(hashtext(s.session_uid)) % 3 AS n
           FROM generate_series(0, abs(hashtext(s.session_uid)) % 3) k) d;

INSERT INTO helix_fleet.events (team, host_id, session_uid, month, seq, member, ts, kind, role,
  tool, summary, is_sidechain, text)
SELECT s.team, s.host_id, s.session_uid, s.month, k, s.member,
  s.started_at + k * interval '10 seconds',
  (ARRAY['user_msg', 'assistant_msg', 'tool_call', 'tool_result'])[1 + k % 4],
  (ARRAY['user', 'assistant', 'assistant', 'tool'])[1 + k % 4],
  CASE WHEN k % 4 >= 2 THEN 'Bash' END, 'event ' || k, false, pg_temp.words(30 + k % 7)
FROM (SELECT * FROM helix_fleet.sessions ORDER BY session_uid LIMIT :event_sessions) s,
  generate_series(0, 39) k;

UPDATE helix_fleet.digests d SET has_events = true
WHERE EXISTS (SELECT 1 FROM helix_fleet.events e WHERE e.team = d.team
                AND e.host_id = d.host_id AND e.session_uid = d.session_uid);

CREATE INDEX sessions_started ON helix_fleet.sessions (team, started_at);
CREATE INDEX sessions_uid ON helix_fleet.sessions (team, session_uid);
CREATE INDEX digests_search ON helix_fleet.digests USING gin (search);
CREATE INDEX usage_days_day ON helix_fleet.usage_days (team, day);
CREATE INDEX events_search ON helix_fleet.events USING gin (search);

ANALYZE helix_fleet.hosts, helix_fleet.sessions, helix_fleet.digests, helix_fleet.usage_days,
  helix_fleet.events;

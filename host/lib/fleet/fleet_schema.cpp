#include "fleet/fleet_schema.hpp"

#include "fleet/pg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace helix {
namespace {

// Roles are cluster-wide, so they may exist already (another database of the cluster, or an
// administrator made them first): each is created only when missing.
//   helix_fleet_owner   owns the schema and its objects; logs in never
//   helix_fleet_admin   sees and changes every team's rows (grant it to administrators)
//   helix_fleet_member  the privileges every team shares; rows are limited by the policies
//   helix_team_<team>   one per team (fleet grant), a member of helix_fleet_member
constexpr const char* kRoles = R"sql(
DO $roles$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'helix_fleet_owner') THEN
    CREATE ROLE helix_fleet_owner NOLOGIN;
  END IF;
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'helix_fleet_admin') THEN
    CREATE ROLE helix_fleet_admin NOLOGIN;
  END IF;
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'helix_fleet_member') THEN
    CREATE ROLE helix_fleet_member NOLOGIN;
  END IF;
END
$roles$;
GRANT helix_fleet_owner TO CURRENT_USER;
)sql";

// Version 1. Every fleet row carries its team, the host that pushed it and the member (the
// login) who pushed it. The large tables are partitioned by month (of the session's start; of
// the day for usage), so a month's queries read one partition and old months can be detached.
constexpr const char* kSchemaV1 = R"sql(
CREATE SCHEMA helix_fleet AUTHORIZATION helix_fleet_owner;
SET LOCAL ROLE helix_fleet_owner;

CREATE TABLE helix_fleet.schema_version (
  version    integer PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now()
);

-- The teams of the current login: the helix_team_<team> roles it is a member of.
CREATE FUNCTION helix_fleet.my_teams() RETURNS text[] LANGUAGE sql STABLE
  SET search_path = pg_catalog AS $f$
  SELECT coalesce(array_agg(substr(rolname, 12)), '{}') FROM pg_roles
  WHERE rolname LIKE 'helix\_team\_%' AND pg_has_role(current_user, oid, 'MEMBER')
$f$;

-- One row per pushing machine: its name, who pushes from it, and its push's high-water mark
-- (the last session, in the local store's change order, whose rows are here).
CREATE TABLE helix_fleet.hosts (
  team          text        NOT NULL,
  host_id       text        NOT NULL,
  host_name     text        NOT NULL,
  member        text        NOT NULL DEFAULT session_user,
  helix_version text,
  first_push_at timestamptz NOT NULL DEFAULT now(),
  last_push_at  timestamptz NOT NULL DEFAULT now(),
  mark_version  bigint      NOT NULL DEFAULT 0,
  mark_uid      text        NOT NULL DEFAULT '',
  PRIMARY KEY (team, host_id)
);

-- The Session of docs/schema.md as its host's store had it at `version` (the local change
-- stamp: the later of its last ingest and last digest, in ms).
CREATE TABLE helix_fleet.sessions (
  team                  text        NOT NULL,
  host_id               text        NOT NULL,
  session_uid           text        NOT NULL,
  month                 date        NOT NULL,  -- of started_at (UTC); 1970-01-01 when unknown
  version               bigint      NOT NULL,
  member                text        NOT NULL DEFAULT session_user,
  pushed_at             timestamptz NOT NULL DEFAULT now(),
  flavor                text        NOT NULL,
  native_id             text        NOT NULL,
  parent_uid            text,
  repo                  text,
  domain                text,
  cwd                   text,
  git_branch            text,
  model                 text,
  title                 text,
  title_source          text,
  agent_version         text,
  started_at            timestamptz,
  ended_at              timestamptz,
  outcome               text        NOT NULL,
  task_ref              text,
  event_count           bigint      NOT NULL,
  turns                 bigint      NOT NULL,
  retries               bigint      NOT NULL,
  source_bytes          bigint      NOT NULL,
  redactions            bigint      NOT NULL,
  input_tokens          bigint      NOT NULL,
  output_tokens         bigint      NOT NULL,
  cache_read_tokens     bigint      NOT NULL,
  cache_creation_tokens bigint      NOT NULL,
  reasoning_tokens      bigint      NOT NULL,
  usage_cost_usd        double precision NOT NULL DEFAULT 0,  -- per-call costs agents reported
  cost_usd              double precision,            -- at its host's price book
  agent_cost_usd        double precision,            -- the agent's own running total
  unpriced_tokens       bigint      NOT NULL DEFAULT 0,
  tool_calls            bigint      NOT NULL DEFAULT 0,
  infra_tool_calls      bigint      NOT NULL DEFAULT 0,
  discovered_at         timestamptz,
  ingested_at           timestamptz,
  analyzed_at           timestamptz,
  evicted_at            timestamptz,
  PRIMARY KEY (team, host_id, session_uid, month)
) PARTITION BY RANGE (month);
CREATE INDEX sessions_started ON helix_fleet.sessions (team, started_at);
CREATE INDEX sessions_uid ON helix_fleet.sessions (team, session_uid);

-- One digest per session and digester, as the host's digester wrote it. `search_text` is what
-- full-text search reads of it: the session's title, first prompt, last answer and errors.
-- `has_events`: the fleet held events of the session when the digest was pushed (search then
-- answers from the events, as local search answers from Tier 1 while it has it).
CREATE TABLE helix_fleet.digests (
  team           text        NOT NULL,
  host_id        text        NOT NULL,
  session_uid    text        NOT NULL,
  month          date        NOT NULL,
  digester       text        NOT NULL,
  member         text        NOT NULL DEFAULT session_user,
  plugin_version text        NOT NULL,
  digested_at    timestamptz,
  body           json        NOT NULL,
  search_text    text        NOT NULL,
  has_events     boolean     NOT NULL DEFAULT false,
  search         tsvector GENERATED ALWAYS AS
                   (to_tsvector('simple'::regconfig, left(search_text, 32768))) STORED,
  PRIMARY KEY (team, host_id, session_uid, month, digester)
) PARTITION BY RANGE (month);
CREATE INDEX digests_search ON helix_fleet.digests USING gin (search);

-- The usage ledger per session, UTC day and model (the store's usage_days), with the session's
-- flavor and repo copied in so that a month's report reads one partition and joins nothing.
CREATE TABLE helix_fleet.usage_days (
  team                  text   NOT NULL,
  host_id               text   NOT NULL,
  session_uid           text   NOT NULL,
  month                 date   NOT NULL,  -- of `day`; the session's month for day 'unknown'
  day                   text   NOT NULL,
  model                 text   NOT NULL,
  member                text   NOT NULL DEFAULT session_user,
  flavor                text   NOT NULL,
  repo                  text,
  calls                 bigint NOT NULL,
  input_tokens          bigint NOT NULL,
  output_tokens         bigint NOT NULL,
  cache_read_tokens     bigint NOT NULL,
  cache_creation_tokens bigint NOT NULL,
  reasoning_tokens      bigint NOT NULL,
  cost_usd              double precision,
  agent_cost_usd        double precision,
  unpriced_tokens       bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (team, host_id, session_uid, month, day, model)
) PARTITION BY RANGE (month);
CREATE INDEX usage_days_day ON helix_fleet.usage_days (team, day);

-- Redacted events (pushed when a host sets [fleet] events = true): the SessionEvent fields
-- without the raw record, its local position or its file. The searchable kinds are indexed as
-- the local store indexes them: tool name and text, at most 32 KiB of it.
CREATE TABLE helix_fleet.events (
  team         text    NOT NULL,
  host_id      text    NOT NULL,
  session_uid  text    NOT NULL,
  month        date    NOT NULL,  -- the session's
  seq          bigint  NOT NULL,
  member       text    NOT NULL DEFAULT session_user,
  parent_seq   bigint,
  ts           timestamptz,
  kind         text    NOT NULL,
  role         text,
  tool         text,
  summary      text,
  is_sidechain boolean NOT NULL,
  uid          text,
  parent_uid   text,
  call_id      text,
  model        text,
  text         text,
  search       tsvector GENERATED ALWAYS AS (CASE WHEN kind IN ('user_msg', 'assistant_msg',
                 'tool_call', 'test_run', 'edit', 'error', 'human_intervention', 'decision')
                 THEN to_tsvector('simple'::regconfig,
                                  left(coalesce(tool, '') || ' ' || coalesce(text, ''), 32768))
                 END) STORED,
  PRIMARY KEY (team, host_id, session_uid, month, seq)
) PARTITION BY RANGE (month);
CREATE INDEX events_search ON helix_fleet.events USING gin (search);

-- Creates the monthly partitions the given months need. Members call it before a push writes
-- a month seen for the first time; it runs as the schema's owner and does nothing else. Each
-- partition has row-level security on and no policy: reachable only through its parent.
CREATE FUNCTION helix_fleet.ensure_months(months date[]) RETURNS void LANGUAGE plpgsql
  SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $f$
DECLARE
  m date;
  parent text;
  part text;
BEGIN
  FOREACH m IN ARRAY months LOOP
    m := date_trunc('month', m)::date;
    FOREACH parent IN ARRAY ARRAY['sessions', 'digests', 'usage_days', 'events'] LOOP
      part := parent || to_char(m, '_YYYY_MM');
      CONTINUE WHEN to_regclass(format('helix_fleet.%I', part)) IS NOT NULL;
      PERFORM pg_advisory_xact_lock(hashtext('helix_fleet.ensure_months'));
      CONTINUE WHEN to_regclass(format('helix_fleet.%I', part)) IS NOT NULL;
      EXECUTE format('CREATE TABLE helix_fleet.%I PARTITION OF helix_fleet.%I '
                     'FOR VALUES FROM (%L) TO (%L)', part, parent, m,
                     (m + interval '1 month')::date);
      EXECUTE format('ALTER TABLE helix_fleet.%I ENABLE ROW LEVEL SECURITY', part);
    END LOOP;
  END LOOP;
END
$f$;

-- Isolation per team, in the database: a member reads the rows of their teams and writes only
-- rows of their teams that they pushed themselves; the admin role reads and writes all.
DO $policies$
DECLARE
  t text;
  mine constant text := 'team = ANY ((SELECT helix_fleet.my_teams())::text[])';
  own constant text := 'team = ANY ((SELECT helix_fleet.my_teams())::text[]) AND member = session_user';
BEGIN
  FOREACH t IN ARRAY ARRAY['hosts', 'sessions', 'digests', 'usage_days', 'events'] LOOP
    EXECUTE format('ALTER TABLE helix_fleet.%I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('ALTER TABLE helix_fleet.%I FORCE ROW LEVEL SECURITY', t);
    EXECUTE format('CREATE POLICY team_reads ON helix_fleet.%I FOR SELECT '
                   'TO helix_fleet_member USING (%s)', t, mine);
    EXECUTE format('CREATE POLICY member_inserts ON helix_fleet.%I FOR INSERT '
                   'TO helix_fleet_member WITH CHECK (%s)', t, own);
    EXECUTE format('CREATE POLICY member_updates ON helix_fleet.%I FOR UPDATE '
                   'TO helix_fleet_member USING (%s) WITH CHECK (%s)', t, own, own);
    EXECUTE format('CREATE POLICY member_deletes ON helix_fleet.%I FOR DELETE '
                   'TO helix_fleet_member USING (%s)', t, own);
    EXECUTE format('CREATE POLICY admin_all ON helix_fleet.%I FOR ALL '
                   'TO helix_fleet_admin USING (true) WITH CHECK (true)', t);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON helix_fleet.%I '
                   'TO helix_fleet_member, helix_fleet_admin', t);
  END LOOP;
END
$policies$;

GRANT USAGE ON SCHEMA helix_fleet TO helix_fleet_member, helix_fleet_admin;
GRANT SELECT ON helix_fleet.schema_version TO helix_fleet_member, helix_fleet_admin;
REVOKE ALL ON FUNCTION helix_fleet.ensure_months(date[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION helix_fleet.ensure_months(date[])
  TO helix_fleet_member, helix_fleet_admin;
)sql";

struct Migration {
  int version;
  const char* sql;
};
constexpr Migration kMigrations[] = {{1, kSchemaV1}};
static_assert(std::size(kMigrations) == kFleetSchemaVersion);

// The version recorded in the database; 0 without a helix_fleet schema.
int recorded_version(pg::Connection& db) {
  auto r =
      db.query("SELECT CASE WHEN to_regclass('helix_fleet.schema_version') IS NULL THEN 0 END");
  if (!r.is_null(0, 0)) return 0;
  return static_cast<int>(
      db.query("SELECT coalesce(max(version), 0) FROM helix_fleet.schema_version").integer(0, 0));
}

void require_utf8(pg::Connection& db) {
  const std::string encoding(db.query("SELECT pg_encoding_to_char(encoding) FROM pg_database "
                                      "WHERE datname = current_database()")
                                 .text(0, 0));
  if (encoding != "UTF8")
    throw std::runtime_error(
        fmt::format("the fleet database has encoding {}; Helix needs UTF8 (create it with "
                    "CREATE DATABASE ... ENCODING 'UTF8' TEMPLATE template0)",
                    encoding));
}

// Migrating creates roles and a schema: say so before PostgreSQL refuses half-way.
void require_administrator(pg::Connection& db) {
  auto r = db.query(
      "SELECT session_user, rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = session_user");
  if (r.rows() == 1 && r.text(0, 1) == "t") return;
  throw std::runtime_error(fmt::format(
      "fleet migrate creates roles and the helix_fleet schema: it runs as a PostgreSQL "
      "superuser or a role with CREATEROLE and CREATE on the database, and the login {} is "
      "neither; pass an administrator's --connection",
      r.rows() == 1 ? std::string(r.text(0, 0)) : "in use"));
}

// Full-text search under row-level security: PostgreSQL applies a table's policies before any
// condition of a query that is not LEAKPROOF, so `search @@ query` could not use the GIN
// indexes (every search would read every digest). The match function raises no error that
// depends on the values it compares; only a superuser may mark it, in this database alone.
bool mark_search_leakproof(pg::Connection& db) {
  const auto leakproof = [&] {
    return db.query(
                 "SELECT proleakproof FROM pg_proc WHERE oid = "
                 "'pg_catalog.ts_match_vq(tsvector, tsquery)'::regprocedure")
               .text(0, 0) == "t";
  };
  if (leakproof()) return true;
  if (db.query("SELECT rolsuper FROM pg_roles WHERE rolname = session_user").text(0, 0) != "t")
    return false;
  db.exec("ALTER FUNCTION pg_catalog.ts_match_vq(tsvector, tsquery) LEAKPROOF");
  return leakproof();
}

}  // namespace

int fleet_schema_version(pg::Connection& db) { return recorded_version(db); }

void require_fleet_schema(pg::Connection& db) {
  const int found = recorded_version(db);
  if (found == kFleetSchemaVersion) return;
  if (found < kFleetSchemaVersion)
    throw std::runtime_error(
        fmt::format("the fleet database has schema version {} and this helix-host needs {}: an "
                    "administrator runs 'helix-host fleet migrate' first (a push never migrates)",
                    found, kFleetSchemaVersion));
  throw std::runtime_error(fmt::format(
      "the fleet database has schema version {}, newer than this helix-host knows ({}): "
      "upgrade helix-host on this machine",
      found, kFleetSchemaVersion));
}

MigrationReport fleet_migrate(pg::Connection& db) {
  require_utf8(db);
  MigrationReport report;
  for (const auto& m : kMigrations) {
    pg::Transaction tx(db);
    // Two administrators migrating at once take turns; the second finds the work done.
    db.exec("SELECT pg_advisory_xact_lock(hashtext('helix_fleet.migrate'))");
    const int found = recorded_version(db);
    if (m.version == kMigrations[0].version) report.from = found;
    if (found > kFleetSchemaVersion)
      throw std::runtime_error(fmt::format(
          "the fleet database has schema version {}, newer than this helix-host knows ({}); "
          "migrate with a newer helix-host",
          found, kFleetSchemaVersion));
    if (found >= m.version) continue;
    require_administrator(db);
    db.exec(kRoles);
    db.exec(m.sql);
    db.query("INSERT INTO helix_fleet.schema_version (version) VALUES ($1)",
             {std::to_string(m.version)});
    tx.commit();
  }
  report.to = recorded_version(db);
  report.search_indexed = mark_search_leakproof(db);
  return report;
}

bool valid_team_name(const std::string& team) {
  if (team.empty() || team.size() > 40) return false;
  for (char c : team)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

namespace {

// A login role created when missing (its password is set apart: never in a script).
std::string login_sql(const std::string& login) {
  return fmt::format(
      "DO $grant$ BEGIN\n"
      "  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = {0}) THEN\n"
      "    CREATE ROLE {1} LOGIN;\n"
      "  END IF;\n"
      "END $grant$;\n",
      pg::quote_literal(login), pg::quote_identifier(login));
}

void check_login(const std::string& login) {
  const bool control = std::any_of(login.begin(), login.end(),
                                   [](char c) { return static_cast<unsigned char>(c) < 0x20; });
  if (login.empty() || login.size() > 63 || control || login.find("$grant$") != std::string::npos)
    throw std::invalid_argument(
        fmt::format("'{}' is not a login name for helix (1 to 63 bytes, no control characters, no "
                    "'$grant$')",
                    login));
}

}  // namespace

std::string fleet_grant_sql(const std::string& team, const std::vector<std::string>& members,
                            const std::vector<std::string>& admins) {
  std::string sql =
      "-- Run as a PostgreSQL superuser (or a role with CREATEROLE) in the fleet "
      "database,\n-- after 'helix-host fleet migrate'. Set each new login's "
      "password with \\password <login> in psql.\n";
  if (!team.empty() || !members.empty()) {
    if (!valid_team_name(team))
      throw std::invalid_argument(
          fmt::format("'{}' is not a team name (1 to 40 of a-z, 0-9 and _)", team));
    const std::string role = "helix_team_" + team;
    sql += fmt::format(
        "\n-- Team {0}: its role, once.\n"
        "DO $grant$ BEGIN\n"
        "  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{1}') THEN\n"
        "    CREATE ROLE {1} NOLOGIN;\n"
        "  END IF;\n"
        "END $grant$;\n"
        "GRANT helix_fleet_member TO {1};\n",
        team, role);
    for (const auto& member : members) {
      check_login(member);
      sql += fmt::format("\n-- Member {0} of team {1}: reads the team's rows, writes its own.\n",
                         member, team);
      sql += login_sql(member);
      sql += fmt::format("GRANT {} TO {};\n", role, pg::quote_identifier(member));
    }
  }
  for (const auto& admin : admins) {
    check_login(admin);
    sql += fmt::format("\n-- Administrator {}: reads and writes every team's rows.\n", admin);
    sql += login_sql(admin);
    sql += fmt::format("GRANT helix_fleet_admin TO {};\n", pg::quote_identifier(admin));
  }
  return sql;
}

}  // namespace helix

// The fleet's PostgreSQL schema (helix_fleet), its versions, and the SQL an administrator runs
// to give a team and its members access.
#pragma once

#include <string>
#include <vector>

namespace helix::pg {
class Connection;
}

namespace helix {

// The schema version this helix-host reads and writes.
inline constexpr int kFleetSchemaVersion = 1;

// What fleet_migrate did: the version found and the version left, and whether full-text
// search can use its indexes under row-level security (see fleet_schema.cpp).
struct MigrationReport {
  int from = 0, to = 0;
  bool search_indexed = false;
};

// Brings the schema to kFleetSchemaVersion, one transaction per version. Run by an
// administrator (a superuser, or a role with CREATEROLE and CREATE on the database); a
// member's push never migrates. Throws with a message an administrator can act on (the
// database's encoding is not UTF8, the schema is newer than this helix-host, a privilege is
// missing).
MigrationReport fleet_migrate(pg::Connection& db);

// The schema version of the fleet database (0 when it has none), for push and reads to refuse a
// database whose schema they do not match.
int fleet_schema_version(pg::Connection& db);

// Throws std::runtime_error saying what to run when the database's schema is not the one this
// helix-host uses.
void require_fleet_schema(pg::Connection& db);

// The SQL that creates a team's role and gives each login its membership (and, for each admin,
// the administrator role). Team names are [a-z0-9_]{1,40}; logins are any PostgreSQL role
// name. Throws std::invalid_argument for a bad team name.
std::string fleet_grant_sql(const std::string& team, const std::vector<std::string>& members,
                            const std::vector<std::string>& admins);

// True when `team` is a valid team name ([a-z0-9_]{1,40}).
bool valid_team_name(const std::string& team);

}  // namespace helix

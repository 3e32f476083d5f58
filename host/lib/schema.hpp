// The store's SQLite schema and its migrations (PRAGMA user_version).
#pragma once

namespace helix {

class Database;

inline constexpr int kStoreSchemaVersion = 10;

// Creates or upgrades the schema; refuses a store written by a newer helix-host.
void migrate(Database& db);

}  // namespace helix

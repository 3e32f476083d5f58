// The store's SQLite schema and its migrations (PRAGMA user_version).
#pragma once

namespace helix {

class Database;

inline constexpr int kStoreSchemaVersion = 16;

// Creates or upgrades the schema; refuses a store written by a newer helix-host.
void migrate(Database& db);

// The store's schema version: read-only commands do not migrate, so they read older layouts.
int user_version(Database& db);
// Throws std::runtime_error, naming the store and both versions, for a store written by a
// newer helix-host: read-only commands cannot know what its tables mean.
void refuse_newer_schema(Database& db);

}  // namespace helix

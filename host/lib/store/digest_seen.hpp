// The native records an evicted session's digests have seen, kept in Tier 2 as 64-bit keys: a
// resumed session repeats its earlier records (same uuids) in a new file, and once the
// originals are evicted nothing else would stop those copies from being digested twice.
#pragma once

#include "store/database.hpp"
#include "store/store.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace helix {

// The key of a record with a native id: XXH3-64 of the id, seeded with the event's ordinal.
uint64_t seen_record_key(std::string_view native_uid, int64_t ordinal);

// The session's keys (sorted), empty when it has none.
std::vector<uint64_t> seen_records(Store& store, const std::string& session_uid);

// Adds the keys of the session's stored events (visible or shadowed) to its seen records; run
// in the eviction's transaction, before its events go.
void remember_seen_records(Database& db, const std::string& session_uid);

}  // namespace helix

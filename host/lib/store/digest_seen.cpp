#include "store/digest_seen.hpp"

#include <xxhash.h>
#include <algorithm>

namespace helix {
namespace {

// Little-endian, 8 bytes a key, whatever the machine.
std::string pack(const std::vector<uint64_t>& keys) {
  std::string out;
  out.reserve(keys.size() * 8);
  for (uint64_t k : keys)
    for (int i = 0; i < 8; ++i) out += static_cast<char>((k >> (8 * i)) & 0xff);
  return out;
}

std::vector<uint64_t> unpack(std::string_view bytes) {
  std::vector<uint64_t> keys(bytes.size() / 8);
  for (std::size_t n = 0; n < keys.size(); ++n)
    for (int i = 0; i < 8; ++i)
      keys[n] |= uint64_t{static_cast<unsigned char>(bytes[n * 8 + static_cast<std::size_t>(i)])}
                 << (8 * i);
  return keys;
}

std::vector<uint64_t> stored_keys(Database& db, const std::string& session_uid) {
  auto st = db.prepare("SELECT keys FROM digest_seen_records WHERE session_uid = ?");
  st.bind(1, session_uid);
  return st.step() ? unpack(st.blob(0)) : std::vector<uint64_t>{};
}

}  // namespace

uint64_t seen_record_key(std::string_view native_uid, int64_t ordinal) {
  return XXH3_64bits_withSeed(native_uid.data(), native_uid.size(), static_cast<uint64_t>(ordinal));
}

std::vector<uint64_t> seen_records(Store& store, const std::string& session_uid) {
  return stored_keys(store.database(), session_uid);
}

void remember_seen_records(Database& db, const std::string& session_uid) {
  std::vector<uint64_t> keys = stored_keys(db, session_uid);
  auto events =
      db.prepare("SELECT uid, ordinal FROM events WHERE session_uid = ? AND uid IS NOT NULL");
  events.bind(1, session_uid);
  while (events.step()) keys.push_back(seen_record_key(events.text(0), events.integer(1)));
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  if (keys.empty()) return;
  auto put = db.prepare(R"sql(
    INSERT INTO digest_seen_records (session_uid, keys) VALUES (?, ?)
    ON CONFLICT (session_uid) DO UPDATE SET keys = excluded.keys)sql");
  put.bind(1, session_uid).bind_blob(2, pack(keys)).run();
}

}  // namespace helix

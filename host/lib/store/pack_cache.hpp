// Payload packs read back: each pack decompressed once per reader, its events' bytes sliced out.
#pragma once

#include "store/database.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace helix {

class PackCache {
 public:
  explicit PackCache(Database& db);

  // A pack's decompressed bytes; empty when the store holds no such pack. Throws when the pack's
  // frame disagrees with the size the store recorded (a damaged store).
  const std::string& raw(int64_t pack_id);
  // The bytes [off, off + len) of a pack; nothing when they lie outside it. The view lives as
  // long as this cache.
  std::optional<std::string_view> slice(int64_t pack_id, int64_t off, int64_t len);

 private:
  StatementLease select_;
  std::map<int64_t, std::string> raw_;
};

}  // namespace helix

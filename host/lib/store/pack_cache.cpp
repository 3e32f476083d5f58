#include "store/pack_cache.hpp"

#include "model/payload_pack.hpp"

#include <stdexcept>

namespace helix {

PackCache::PackCache(Database& db)
    : select_(db.cached("SELECT raw_bytes, data FROM payload_packs WHERE id = ?")) {}

const std::string& PackCache::raw(int64_t pack_id) {
  auto [it, fresh] = raw_.try_emplace(pack_id);
  if (!fresh) return it->second;
  select_->bind(1, pack_id);
  if (select_->step()) {
    it->second = unpack_payload(select_->blob(1));
    if (static_cast<int64_t>(it->second.size()) != select_->integer(0)) {
      select_->reset();
      raw_.erase(it);
      throw std::runtime_error("a payload pack in the store is corrupt (zstd could not read it)");
    }
  }
  select_->reset();
  return it->second;
}

std::optional<std::string_view> PackCache::slice(int64_t pack_id, int64_t off, int64_t len) {
  const std::string& pack = raw(pack_id);
  if (off < 0 || len < 0 || off + len > static_cast<int64_t>(pack.size())) return std::nullopt;
  return std::string_view(pack).substr(static_cast<std::size_t>(off),
                                       static_cast<std::size_t>(len));
}

}  // namespace helix

// Reading a payload pack (see payload_pack.hpp).
#include "payload_pack.hpp"

#include <zstd.h>

#include <stdexcept>

namespace helix {

std::string unpack_payload(std::string_view packed) {
  const unsigned long long size = ZSTD_getFrameContentSize(packed.data(), packed.size());
  if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN)
    throw std::runtime_error("a payload pack in the store is corrupt (zstd could not read it)");
  std::string out(static_cast<std::size_t>(size), '\0');
  const std::size_t n = ZSTD_decompress(out.data(), out.size(), packed.data(), packed.size());
  if (ZSTD_isError(n) || n != out.size())
    throw std::runtime_error("a payload pack in the store is corrupt (zstd could not read it)");
  return out;
}

}  // namespace helix

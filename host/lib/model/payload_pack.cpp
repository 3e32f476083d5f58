// Making and reading payload packs (see payload_pack.hpp).
#include "model/payload_pack.hpp"

#include "model/record_batch.hpp"

#include <set>
#include <stdexcept>

namespace helix {
namespace {

constexpr int kPackCompressionLevel = 3;

// Gives each session's pack its exact size before it is filled, so no pack grows by doubling
// (a pack of several MB would otherwise briefly need twice that).
void reserve_packs(const RecordBatch& batch, std::map<std::string, std::string>& packs) {
  std::map<std::string, std::size_t> sizes;
  std::set<std::pair<std::string_view, int64_t>> counted;  // a shared payload is packed once
  for (const auto& e : batch.events) {
    auto& size = sizes[e.session_id];
    if (e.payload_index >= 0 && counted.emplace(e.session_id, e.payload_index).second)
      size += batch.payloads[static_cast<std::size_t>(e.payload_index)].size();
    size += e.text.size();
  }
  for (const auto& [session, size] : sizes) packs[session].reserve(size);
}

}  // namespace

PackCompressor::PackCompressor() : ctx_(ZSTD_createCCtx()) {
  if (!ctx_) throw std::runtime_error("zstd: out of memory");
  ZSTD_CCtx_setParameter(ctx_, ZSTD_c_compressionLevel, kPackCompressionLevel);
}

PackCompressor::~PackCompressor() { ZSTD_freeCCtx(ctx_); }

std::string_view PackCompressor::compress(std::string_view raw) {
  const std::size_t bound = ZSTD_compressBound(raw.size());
  if (out_.size() < bound) out_.resize(bound);
  std::size_t n = ZSTD_compress2(ctx_, out_.data(), out_.size(), raw.data(), raw.size());
  if (ZSTD_isError(n)) throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(n));
  return std::string_view(out_.data(), n);
}

BatchPacks pack_batch(const RecordBatch& batch, PackCompressor& compressor) {
  std::map<std::string, std::string> raw_packs;              // session -> raw pack
  std::map<std::string, std::map<int64_t, int64_t>> shared;  // payload index -> offset
  reserve_packs(batch, raw_packs);
  BatchPacks out;
  out.slices.resize(batch.events.size());
  for (std::size_t i = 0; i < batch.events.size(); ++i) {
    const auto& e = batch.events[i];
    auto& raw = raw_packs[e.session_id];
    auto& slice = out.slices[i];
    if (e.payload_index >= 0) {
      const auto& payload = batch.payloads[static_cast<std::size_t>(e.payload_index)];
      auto [it, fresh] =
          shared[e.session_id].try_emplace(e.payload_index, static_cast<int64_t>(raw.size()));
      if (fresh) raw += payload;
      slice.payload_off = it->second;
      slice.payload_len = static_cast<int64_t>(payload.size());
    }
    if (!e.text.empty()) {
      slice.text_off = static_cast<int64_t>(raw.size());
      slice.text_len = static_cast<int64_t>(e.text.size());
      raw += e.text;
    }
  }
  for (auto& [session_id, raw] : raw_packs) {
    if (raw.empty()) continue;
    out.by_session[session_id] = {static_cast<int64_t>(raw.size()),
                                  std::string(compressor.compress(raw))};
    std::string().swap(raw);  // the raw bytes of a large session go as soon as they are packed
  }
  return out;
}

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

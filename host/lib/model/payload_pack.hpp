// Payload packs: the zstd frame a commit stores per session and chunk (the raw records and the
// event texts), made by the parsing thread and read back by queries and digests.
#pragma once

#include <zstd.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace helix {

struct RecordBatch;

// One zstd context and one output buffer for every pack a thread makes: no context built per
// pack, and the buffer grows to the largest bound once instead of being zeroed per call.
class PackCompressor {
 public:
  PackCompressor();
  ~PackCompressor();
  PackCompressor(const PackCompressor&) = delete;
  PackCompressor& operator=(const PackCompressor&) = delete;

  // The compressed frame, valid until the next call.
  std::string_view compress(std::string_view raw);

 private:
  ZSTD_CCtx* ctx_;
  std::string out_;
};

// One event's place in its session's pack (-1: it has no payload, or no text).
struct PackSlice {
  int64_t payload_off = -1, payload_len = 0, text_off = -1, text_len = 0;
};

// A batch's packs: each session's raw size and compressed frame (sessions whose pack would be
// empty are absent), and each event's slice, in the batch's event order.
struct BatchPacks {
  struct Pack {
    int64_t raw_bytes = 0;
    std::string frame;
  };
  std::map<std::string, Pack> by_session;  // by native session id
  std::vector<PackSlice> slices;
};

// Packs the batch's payloads and texts per session (a payload shared by events is packed once)
// and compresses each pack.
BatchPacks pack_batch(const RecordBatch& batch, PackCompressor& compressor);

// The pack's raw bytes. Throws std::runtime_error when zstd cannot read it or its size is not
// recorded in the frame (the store is damaged).
std::string unpack_payload(std::string_view packed);

}  // namespace helix

// Reading a payload pack: the zstd frame a commit stores per session (raw records and texts).
#pragma once

#include <string>
#include <string_view>

namespace helix {

// The pack's raw bytes. Throws std::runtime_error when zstd cannot read it or its size is not
// recorded in the frame (the store is damaged).
std::string unpack_payload(std::string_view packed);

}  // namespace helix

#include "privacy/base64.hpp"

#include <array>
#include <cstdint>

namespace helix {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr uint8_t kNotInAlphabet = 0xFF;  // a byte's value in the decoding table

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t chunk = 0;
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    for (std::size_t k = 0; k < 3; ++k)
      chunk = (chunk << 8) | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    for (std::size_t k = 0; k < 4; ++k)
      out += k <= n ? kAlphabet[(chunk >> (18 - 6 * k)) & 63] : '=';
  }
  return out;
}

std::string base64_decode_lines(std::string_view text) {
  static const auto kValues = [] {
    std::array<uint8_t, 256> v{};
    v.fill(kNotInAlphabet);
    for (std::size_t i = 0; i < kAlphabet.size(); ++i)
      v[static_cast<unsigned char>(kAlphabet[i])] = static_cast<uint8_t>(i);
    return v;
  }();
  std::string out;
  uint32_t bits = 0;
  int held = 0;
  for (char c : text) {
    if (c == '\r' || c == '\n') {
      held = 0;
      continue;
    }
    const uint8_t value = kValues[static_cast<unsigned char>(c)];
    if (value == kNotInAlphabet) break;
    bits = (bits << 6) | static_cast<uint32_t>(value);
    held += 6;
    if (held >= 8) {
      held -= 8;
      out += static_cast<char>((bits >> held) & 0xFF);
    }
  }
  return out;
}

}  // namespace helix

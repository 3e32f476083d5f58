#include "fleet/pg_text.hpp"

#include "base/text.hpp"

#include <fmt/format.h>

namespace helix {
namespace {

constexpr std::string_view kEscape = "\xE2\x90\x80";  // U+2400

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

std::string to_pg_text(std::string_view bytes) {
  if (is_valid_utf8(bytes) && bytes.find(kEscape) == std::string_view::npos)
    return std::string(bytes);
  std::string out;
  out.reserve(bytes.size() + 16);
  for (std::size_t i = 0; i < bytes.size();) {
    if (bytes.substr(i, kEscape.size()) == kEscape) {
      out.append(kEscape).append(kEscape);
      i += kEscape.size();
      continue;
    }
    const std::size_t n = utf8_sequence_length(bytes, i);  // 0: NUL or not valid UTF-8
    if (n == 0) {
      out.append(kEscape).append(fmt::format("{:02x}", static_cast<unsigned char>(bytes[i])));
      ++i;
      continue;
    }
    out.append(bytes.substr(i, n));
    i += n;
  }
  return out;
}

std::string from_pg_text(std::string_view text) {
  if (text.find(kEscape) == std::string_view::npos) return std::string(text);
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (text.substr(i, kEscape.size()) != kEscape) {
      out += text[i++];
      continue;
    }
    const std::size_t next = i + kEscape.size();
    if (text.substr(next, kEscape.size()) == kEscape) {
      out.append(kEscape);
      i = next + kEscape.size();
    } else if (next + 2 <= text.size() && hex_value(text[next]) >= 0 &&
               hex_value(text[next + 1]) >= 0) {
      out += static_cast<char>(hex_value(text[next]) * 16 + hex_value(text[next + 1]));
      i = next + 2;
    } else {
      out.append(kEscape);
      i = next;
    }
  }
  return out;
}

}  // namespace helix

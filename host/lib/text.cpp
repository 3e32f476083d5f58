#include "text.hpp"

namespace helix {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// Length of the valid UTF-8 sequence at s[i], or 0 if it is invalid.
std::size_t sequence_length(std::string_view s, std::size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return b0 == 0 ? 0 : 1;
  std::size_t n;
  unsigned char lo = 0x80, hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) n = 2;
  else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return 0;
  }
  return n;
}

}  // namespace

std::string valid_utf8(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size();) {
    std::size_t n = sequence_length(in, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
    } else {
      out.append(in.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string one_line(std::string_view in, std::size_t max_chars) {
  std::string out;
  std::size_t chars = 0;
  for (std::size_t i = 0; i < in.size();) {
    std::size_t n = sequence_length(in, i);
    if (n == 0) n = 1;
    if (chars == max_chars) {
      out += "\xE2\x80\xA6";
      break;
    }
    char c = in[i];
    if (n == 1 && (c == '\n' || c == '\r' || c == '\t' || c == ' ')) {
      if (!out.empty() && out.back() != ' ') out += ' ';
      else --chars;  // a folded run counts once
    } else {
      out.append(in.substr(i, n));
    }
    ++chars;
    i += n;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace helix

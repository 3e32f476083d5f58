#include "base/text.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>

namespace helix {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// The well-formed UTF-8 sequences by lead byte (Unicode, Table 3-7): how long each is, and the
// range of its second byte (later bytes are always 80..BF).
struct Utf8Lead {
  unsigned char first, last;
  std::size_t length;
  unsigned char second_lo, second_hi;
};
constexpr Utf8Lead kUtf8Leads[] = {
    {0xC2, 0xDF, 2, 0x80, 0xBF}, {0xE0, 0xE0, 3, 0xA0, 0xBF}, {0xE1, 0xEC, 3, 0x80, 0xBF},
    {0xED, 0xED, 3, 0x80, 0x9F}, {0xEE, 0xEF, 3, 0x80, 0xBF}, {0xF0, 0xF0, 4, 0x90, 0xBF},
    {0xF1, 0xF3, 4, 0x80, 0xBF}, {0xF4, 0xF4, 4, 0x80, 0x8F},
};

bool in_range(unsigned char b, unsigned char lo, unsigned char hi) { return b >= lo && b <= hi; }

// Length of the valid UTF-8 sequence at s[i], or 0 if it is invalid.
std::size_t sequence_length(std::string_view s, std::size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return b0 == 0 ? 0 : 1;
  const auto* lead = std::find_if(std::begin(kUtf8Leads), std::end(kUtf8Leads),
                                  [&](const Utf8Lead& l) { return in_range(b0, l.first, l.last); });
  if (lead == std::end(kUtf8Leads) || i + lead->length > s.size()) return 0;
  if (!in_range(static_cast<unsigned char>(s[i + 1]), lead->second_lo, lead->second_hi)) return 0;
  for (std::size_t k = 2; k < lead->length; ++k)
    if (!in_range(static_cast<unsigned char>(s[i + k]), 0x80, 0xBF)) return 0;
  return lead->length;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The code unit of the "\uXXXX" escape whose hex digits start at s[i], or -1.
long hex4(std::string_view s, std::size_t i) {
  if (i + 4 > s.size()) return -1;
  long v = 0;
  for (std::size_t k = i; k < i + 4; ++k) {
    const int d = hex_digit(s[k]);
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

void append_utf8(std::string& out, unsigned long cp) {
  auto byte = [](unsigned long b) { return static_cast<char>(b); };
  if (cp < 0x80) {
    out += byte(cp);
  } else if (cp < 0x800) {
    out += byte(0xC0 | (cp >> 6));
    out += byte(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += byte(0xE0 | (cp >> 12));
    out += byte(0x80 | ((cp >> 6) & 0x3F));
    out += byte(0x80 | (cp & 0x3F));
  } else {
    out += byte(0xF0 | (cp >> 18));
    out += byte(0x80 | ((cp >> 12) & 0x3F));
    out += byte(0x80 | ((cp >> 6) & 0x3F));
    out += byte(0x80 | (cp & 0x3F));
  }
}

// Decodes the escape sequence at s[i] (a backslash) into `out`; the index after it, or 0.
std::size_t decode_escape(std::string_view s, std::size_t i, std::string& out) {
  if (i + 1 >= s.size()) return 0;
  switch (s[i + 1]) {
    case '"':
      out += '"';
      return i + 2;
    case '\\':
      out += '\\';
      return i + 2;
    case '/':
      out += '/';
      return i + 2;
    case 'b':
      out += '\b';
      return i + 2;
    case 'f':
      out += '\f';
      return i + 2;
    case 'n':
      out += '\n';
      return i + 2;
    case 'r':
      out += '\r';
      return i + 2;
    case 't':
      out += '\t';
      return i + 2;
    case 'u':
      break;
    default:
      return 0;
  }
  const long unit = hex4(s, i + 2);
  if (unit < 0 || (unit >= 0xDC00 && unit <= 0xDFFF)) return 0;  // a lone trailing surrogate
  if (unit < 0xD800 || unit > 0xDBFF) {
    append_utf8(out, static_cast<unsigned long>(unit));
    return i + 6;
  }
  // A leading surrogate must be followed by the escape of a trailing one.
  if (i + 7 >= s.size() || s[i + 6] != '\\' || s[i + 7] != 'u') return 0;
  const long low = hex4(s, i + 8);
  if (low < 0xDC00 || low > 0xDFFF) return 0;
  append_utf8(out, 0x10000 + ((static_cast<unsigned long>(unit) - 0xD800) << 10) +
                       (static_cast<unsigned long>(low) - 0xDC00));
  return i + 12;
}

}  // namespace

bool decode_json_string(std::string_view contents, std::string& out) {
  out.clear();
  out.reserve(contents.size());
  for (std::size_t i = 0; i < contents.size();) {
    const auto c = static_cast<unsigned char>(contents[i]);
    if (c == '\\') {
      i = decode_escape(contents, i, out);
      if (i == 0) return false;
    } else if (c < 0x20 || c == '"') {
      return false;
    } else if (c < 0x80) {
      // A run of plain ASCII is copied at once.
      std::size_t end = i + 1;
      while (end < contents.size()) {
        const auto d = static_cast<unsigned char>(contents[end]);
        if (d < 0x20 || d >= 0x80 || d == '\\' || d == '"') break;
        ++end;
      }
      out.append(contents.data() + i, end - i);
      i = end;
    } else {
      const std::size_t n = sequence_length(contents, i);
      if (n == 0) return false;
      out.append(contents.data() + i, n);
      i += n;
    }
  }
  return true;
}

namespace {

// The length of the valid prefix of `in`: eight ASCII bytes at a time, where text mostly is.
std::size_t valid_prefix(std::string_view in) {
  constexpr uint64_t kHigh = 0x8080808080808080ull, kOnes = 0x0101010101010101ull;
  std::size_t i = 0;
  while (i < in.size()) {
    if (i + 8 <= in.size()) {
      uint64_t w;
      std::memcpy(&w, in.data() + i, 8);
      if (((w | ((w - kOnes) & ~w)) & kHigh) == 0) {  // no byte >= 0x80, no NUL
        i += 8;
        continue;
      }
    }
    const std::size_t n = sequence_length(in, i);
    if (n == 0) return i;
    i += n;
  }
  return i;
}

}  // namespace

bool is_valid_utf8(std::string_view in) { return valid_prefix(in) == in.size(); }

std::size_t utf8_sequence_length(std::string_view in, std::size_t i) {
  return sequence_length(in, i);
}

std::string valid_utf8(std::string_view in) {
  std::size_t i = valid_prefix(in);
  if (i == in.size()) return std::string(in);
  std::string out;
  out.reserve(in.size() + 16);
  out.append(in.data(), i);
  while (i < in.size()) {
    const std::size_t n = sequence_length(in, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    const std::size_t run = i + valid_prefix(in.substr(i));
    out.append(in.data() + i, run - i);
    i = run;
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
      if (!out.empty() && out.back() != ' ')
        out += ' ';
      else
        --chars;  // a folded run counts once
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

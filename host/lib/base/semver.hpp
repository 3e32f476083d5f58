// Semantic version helpers: plugins and digests compare versions by their major number.
#pragma once

#include <string>
#include <string_view>

namespace helix {

// The major number of a semantic version ("2.1.0" -> "2"); the whole text when it has no dot.
inline std::string major_version(std::string_view version) {
  return std::string(version.substr(0, version.find('.')));
}

// True when semantic version `a` is below `b`, comparing major, minor and patch as numbers
// ("1.9.0" < "1.10.0"); a missing or unreadable part counts as 0.
inline bool version_less(std::string_view a, std::string_view b) {
  auto next = [](std::string_view& v) {
    long n = 0;
    std::size_t i = 0;
    for (; i < v.size() && v[i] >= '0' && v[i] <= '9'; ++i) n = n * 10 + (v[i] - '0');
    const auto dot = v.find('.', i);
    v = dot == std::string_view::npos ? std::string_view() : v.substr(dot + 1);
    return n;
  };
  for (int part = 0; part < 3; ++part) {
    const long x = next(a), y = next(b);
    if (x != y) return x < y;
  }
  return false;
}

}  // namespace helix

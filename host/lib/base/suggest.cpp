#include "base/suggest.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace helix {
namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// Optimal string alignment distance (Damerau-Levenshtein without repeated edits of a substring).
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) &&
          lower(a[i - 2]) == lower(b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

bool starts_with_folded(std::string_view word, std::string_view prefix) {
  if (prefix.size() < 3 || prefix.size() > word.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (lower(word[i]) != lower(prefix[i])) return false;
  return true;
}

}  // namespace

std::string closest(std::string_view typed, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = SIZE_MAX;
  for (const auto& c : candidates) {
    std::size_t d = edit_distance(typed, c);
    const std::size_t allowed = std::max<std::size_t>(1, std::max(typed.size(), c.size()) / 3);
    if (d > allowed && !starts_with_folded(c, typed)) continue;
    if (starts_with_folded(c, typed)) d = std::min(d, std::size_t{1});
    if (d < best_distance) best = c, best_distance = d;
  }
  return best;
}

std::string did_you_mean(std::string_view typed, const std::vector<std::string>& candidates) {
  const std::string c = closest(typed, candidates);
  return c.empty() ? std::string() : fmt::format(" (did you mean '{}'?)", c);
}

std::string one_of(const std::vector<std::string>& values) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += i + 1 == values.size() ? " or " : ", ";
    out += values[i];
  }
  return out;
}

}  // namespace helix

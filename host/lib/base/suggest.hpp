// "Did you mean": the known word closest to a mistyped one, for commands, options and values.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace helix {

// The candidate closest to `typed` (case-insensitive edit distance, a transposition counting
// as one edit), or "" when none is close enough to be a plausible typo: at most a third of the
// longer word's letters, and at least one, may differ. A candidate that starts with `typed`
// (three letters or more) also counts.
std::string closest(std::string_view typed, const std::vector<std::string>& candidates);

// " (did you mean 'X'?)" for closest(), or "" when nothing is close.
std::string did_you_mean(std::string_view typed, const std::vector<std::string>& candidates);

// "a, b or c": a list of the valid values for an error message.
std::string one_of(const std::vector<std::string>& values);

}  // namespace helix

// Text hygiene for everything stored: valid UTF-8 and bounded one-line summaries.
#pragma once

#include <string>
#include <string_view>

namespace helix {

// Copies `in`, replacing every invalid UTF-8 sequence and NUL byte with U+FFFD.
std::string valid_utf8(std::string_view in);

// At most `max_chars` code points on one line (newlines and tabs become spaces), with "…"
// marking a cut.
std::string one_line(std::string_view in, std::size_t max_chars);

}  // namespace helix

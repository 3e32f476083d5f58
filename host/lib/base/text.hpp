// Text hygiene for everything stored: valid UTF-8 and bounded one-line summaries.
#pragma once

#include <string>
#include <string_view>

namespace helix {

// True when `in` is valid UTF-8 without NUL bytes, i.e. valid_utf8(in) == in.
bool is_valid_utf8(std::string_view in);

// The length of the valid UTF-8 sequence at in[i] (1 to 4), or 0 when it is invalid or NUL.
std::size_t utf8_sequence_length(std::string_view in, std::size_t i);

// Copies `in`, replacing every invalid UTF-8 sequence and NUL byte with U+FFFD.
std::string valid_utf8(std::string_view in);

// Decodes the contents of a JSON string literal (the bytes between its quotes) into `out`,
// exactly as Boost.JSON's parser does with its default options. False, with `out` unspecified,
// where that parser would fail: a bad escape, a lone surrogate, a control character or invalid
// UTF-8.
bool decode_json_string(std::string_view contents, std::string& out);

// At most `max_chars` code points on one line (newlines and tabs become spaces), with "…"
// marking a cut.
std::string one_line(std::string_view in, std::size_t max_chars);

}  // namespace helix

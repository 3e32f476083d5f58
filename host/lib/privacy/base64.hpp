// Standard base64 (RFC 4648, "+/" and "=" padding), as secrets are hidden in it: the redactor
// decodes runs that may hold one; tests and the config check encode secrets to make such runs.
#pragma once

#include <string>
#include <string_view>

namespace helix {

std::string base64_encode(std::string_view bytes);

// Decodes up to the padding or the first character outside the alphabet, each line (\n, \r\n)
// from its own start, as base64 wrapped at 64 or 76 columns keeps whole quanta on every line:
// a short line of text before an encoding does not shift it.
std::string base64_decode_lines(std::string_view text);

}  // namespace helix

// How any byte string is stored in a PostgreSQL text column and read back exactly.
//
// PostgreSQL text holds neither NUL bytes nor invalid UTF-8, which the local store may hold
// (SQLite text is any bytes). The fleet stores them with an escape: U+2400 (SYMBOL FOR NULL,
// "␀") followed by two lowercase hex digits stands for one such byte, and a literal U+2400 is
// doubled. Every other text, the usual case, is stored unchanged, so SQL, full-text search and
// psql see it as it is.
#pragma once

#include <string>
#include <string_view>

namespace helix {

// `bytes` as PostgreSQL text (unchanged unless it holds NUL, invalid UTF-8 or U+2400).
std::string to_pg_text(std::string_view bytes);

// The bytes to_pg_text was given. A U+2400 not followed by U+2400 or two hex digits (text
// written by something else) is kept as it is.
std::string from_pg_text(std::string_view text);

}  // namespace helix

// The shell of every HTML page Helix writes: one self-contained document (its style sheet and
// script inline, no fonts, images or links to the network) that reads on screen and prints.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace helix {

// Text for HTML element content and attribute values.
std::string html_escape(std::string_view text);

// Stored text for display: escaped, and each redaction marker ([REDACTED:rule]) shown as such.
std::string html_text(std::string_view text);

// "2026-01-06 16:27 UTC" in a <time> element; "unknown" when 0.
std::string html_time(int64_t unix_ms);

// A complete document. `body` is HTML; `script` (optional) runs at the end of the body.
std::string html_document(std::string_view title, std::string_view body,
                          std::string_view script = "");

// The file a session's page is written to: its uid with every character other than letters,
// digits, '.', '-' and '_' replaced by '_', plus ".html" (a ':' would read as a URL scheme).
std::string session_page_name(std::string_view uid);

// "1,234,567".
std::string thousands(int64_t n);

}  // namespace helix

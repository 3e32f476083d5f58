// The read side of full-text search: ranked hits over Tier 1 event texts and, for sessions whose
// Tier 1 rows are gone, over their Tier 2 digests.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "store/store.hpp"

namespace helix {

struct SearchQuery {
  std::string match;  // FTS5 query syntax: words, "phrases", prefix*, AND/OR/NOT
  // Instead of `match`: substrings that must all occur (case-insensitively), answered by the
  // trigram index of texts in scripts written without spaces (search_events_cjk).
  std::vector<std::string> substrings;
  std::string flavor, repo, kind;  // kind "digest" selects Tier 2 hits only
  int64_t since_ms = 0;            // hits at or after this time
  int64_t until_ms = INT64_MAX;    // and at or before this one
  int64_t limit = 20;
  std::string mark_open = "**", mark_close = "**";  // around matched terms in snippets
};

struct SearchHit {
  std::string session_uid, flavor, repo, title, kind, tool, snippet;
  int64_t ts_ms = 0;  // the event's time; for a digest hit the session's end
  int64_t seq = -1;   // the event's seq; -1 for a digest hit
  double rank = 0;    // bm25: lower is better
};

// A query FTS5 cannot parse; the message says why.
struct SearchSyntaxError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A user's plain text as a query that cannot be malformed: each word and each "quoted phrase"
// is an FTS5 string (so "README.md", "auth-bug" and "can't" are text, not syntax), all of them
// required; a trailing * keeps a prefix search. When a word is in a script written without
// spaces, every word becomes a substring of `substrings` instead.
SearchQuery plain_search(std::string_view text);

// Best first. Throws SearchSyntaxError for a malformed query.
std::vector<SearchHit> search(Store& store, const SearchQuery& query);

}  // namespace helix

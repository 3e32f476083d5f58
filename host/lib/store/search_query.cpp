// The read side of full-text search (see search_query.hpp).
#include "store/search_query.hpp"

#include "store/search_index.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace helix {
namespace {

constexpr int kSnippetTokens = 16;

// Tier 1: visible events only (shadows are indexed but invisible).
constexpr const char* kEventHits = R"sql(
  SELECT e.session_uid, s.flavor, COALESCE(s.title, s.prompt_title), e.kind, e.tool, e.ts_ms,
    e.seq, snippet(search_events, -1, ?2, ?3, '…', ?4), search_events.rank, s.repo
  FROM search_events
    JOIN events e ON e.id = search_events.rowid
    JOIN sessions s ON s.uid = e.session_uid
  WHERE search_events MATCH ?1 AND e.shadowed = 0
    AND (?5 = '' OR s.flavor = ?5) AND (?6 = '' OR s.repo = ?6)
    AND (?7 = 0 OR e.ts_ms >= ?7) AND (?8 = '' OR e.kind = ?8) AND COALESCE(e.ts_ms, 0) <= ?10
  ORDER BY search_events.rank LIMIT ?9)sql";

// Tier 1 texts in scripts without spaces, by substring: a trigram MATCH for the substrings of
// three characters or more ({0}), LIKE for shorter ones ({1}). Snippets are cut by the host.
constexpr const char* kSpacelessHits = R"sql(
  SELECT e.session_uid, s.flavor, COALESCE(s.title, s.prompt_title), e.kind, e.tool, e.ts_ms,
    e.seq, search_events_cjk.body, {2}, s.repo
  FROM search_events_cjk
    JOIN events e ON e.id = search_events_cjk.rowid
    JOIN sessions s ON s.uid = e.session_uid
  WHERE {0} {1} e.shadowed = 0
    AND (?5 = '' OR s.flavor = ?5) AND (?6 = '' OR s.repo = ?6)
    AND (?7 = 0 OR e.ts_ms >= ?7) AND (?8 = '' OR e.kind = ?8) AND COALESCE(e.ts_ms, 0) <= ?10
  ORDER BY 9, e.ts_ms DESC LIMIT ?9)sql";

// Tier 2: digests of sessions whose raw data was evicted (also when they grew since: the events
// stored since hold only the growth) or that have no visible events; the others answer from
// Tier 1, so a session is not listed twice for the same text.
constexpr const char* kDigestHits = R"sql(
  SELECT s.uid, s.flavor, COALESCE(s.title, s.prompt_title), s.repo,
    COALESCE(s.ended_at_ms, s.started_at_ms, 0),
    snippet(search_digests, -1, ?2, ?3, '…', ?4), search_digests.rank
  FROM search_digests JOIN sessions s ON s.uid = search_digests.session_uid
  WHERE search_digests MATCH ?1
    AND (s.evicted_at_ms IS NOT NULL
         OR NOT EXISTS (SELECT 1 FROM events e WHERE e.session_uid = s.uid AND e.shadowed = 0))
    AND (?5 = '' OR s.flavor = ?5) AND (?6 = '' OR s.repo = ?6)
    AND (?7 = 0 OR COALESCE(s.ended_at_ms, s.started_at_ms, 0) >= ?7)
    AND COALESCE(s.started_at_ms, 0) <= ?9
  ORDER BY search_digests.rank LIMIT ?8)sql";

std::size_t code_points(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// A window of `text` around the first occurrence of `needle` (ASCII case folded), with it
// marked: what snippet() gives for the word indexes.
std::string substring_snippet(const std::string& text, const std::string& needle,
                              const SearchQuery& q) {
  auto fold = [](std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  const std::size_t at = fold(text).find(fold(needle));
  if (at == std::string::npos) return text.substr(0, 120);
  constexpr std::size_t kAround = 60;
  std::size_t from = at > kAround ? at - kAround : 0,
              to = std::min(text.size(), at + needle.size() + kAround);
  while (from > 0 && (static_cast<unsigned char>(text[from]) & 0xC0) == 0x80) --from;
  while (to < text.size() && (static_cast<unsigned char>(text[to]) & 0xC0) == 0x80) ++to;
  return (from > 0 ? "…" : "") + text.substr(from, at - from) + q.mark_open +
         text.substr(at, needle.size()) + q.mark_close +
         text.substr(at + needle.size(), to - at - needle.size()) + (to < text.size() ? "…" : "");
}

// An FTS5 string: the text in double quotes, its quotes doubled.
std::string fts_string(std::string_view text) {
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string like_pattern(std::string_view text) {
  std::string out = "%";
  for (char c : text) {
    if (c == '%' || c == '_' || c == '\\') out += '\\';
    out += c;
  }
  return out + "%";
}

std::vector<SearchHit> spaceless_hits(Database& db, const SearchQuery& q) {
  std::string match, likes;
  std::vector<std::string> values;
  for (const auto& s : q.substrings) {
    if (code_points(s) >= 3) {
      match += (match.empty() ? "" : " ") + fts_string(s);
    } else {
      likes += fmt::format("search_events_cjk.body LIKE ?{} ESCAPE '\\' AND ", 11 + values.size());
      values.push_back(like_pattern(s));
    }
  }
  const std::string sql = fmt::format(fmt::runtime(kSpacelessHits),
                                      match.empty() ? "" : "search_events_cjk MATCH ?1 AND", likes,
                                      match.empty() ? "0" : "search_events_cjk.rank");
  auto st = db.prepare(sql);
  st.bind(1, match).bind(5, q.flavor).bind(6, q.repo).bind(7, q.since_ms).bind(8, q.kind);
  st.bind(9, q.limit).bind(10, q.until_ms);
  for (std::size_t i = 0; i < values.size(); ++i) st.bind(static_cast<int>(11 + i), values[i]);
  std::vector<SearchHit> hits;
  while (st.step())
    hits.push_back(SearchHit{st.text(0), st.text(1), st.text(9), st.text(2), st.text(3), st.text(4),
                             substring_snippet(st.text(7), q.substrings.front(), q), st.integer(5),
                             st.integer(6), st.real(8)});
  return hits;
}

// FTS5 reports query mistakes as errors of the statement; tell them from store failures.
bool is_query_error(const std::string& message) {
  for (const char* marker :
       {"fts5:", "no such column", "unterminated string", "unknown special query"})
    if (message.find(marker) != std::string::npos) return true;
  return false;
}

template <typename Collect>
void run(Statement& st, Collect&& collect) {
  try {
    while (st.step()) collect(st);
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    if (!is_query_error(message)) throw;
    const auto at = message.find("\": ");  // after 'store error while running "<sql>"'
    throw SearchSyntaxError(at == std::string::npos ? message : message.substr(at + 3));
  }
}

}  // namespace

std::vector<SearchHit> search(Store& store, const SearchQuery& q) {
  Database& db = store.database();
  {  // read-only commands do not migrate: a store older than version 3 has no index yet
    auto probe = db.prepare("SELECT COUNT(*) FROM sqlite_schema WHERE name = 'search_events'");
    probe.step();
    if (probe.integer(0) == 0)
      throw std::runtime_error(
          fmt::format("the store {} predates full-text search; run "
                      "'helix-host sweep' once to index it",
                      db.path().string()));
  }
  if (!q.substrings.empty()) return spaceless_hits(db, q);
  std::vector<SearchHit> hits;
  if (q.kind != "digest") {
    auto st = db.prepare(kEventHits);
    st.bind(1, q.match)
        .bind(2, q.mark_open)
        .bind(3, q.mark_close)
        .bind(4, static_cast<int64_t>(kSnippetTokens))
        .bind(5, q.flavor)
        .bind(6, q.repo)
        .bind(7, q.since_ms)
        .bind(8, q.kind)
        .bind(9, q.limit)
        .bind(10, q.until_ms);
    run(st, [&](Statement& r) {
      hits.push_back(SearchHit{r.text(0), r.text(1), r.text(9), r.text(2), r.text(3), r.text(4),
                               r.text(7), r.integer(5), r.integer(6), r.real(8)});
    });
  }
  if (q.kind.empty() || q.kind == "digest") {
    auto st = db.prepare(kDigestHits);
    st.bind(1, q.match)
        .bind(2, q.mark_open)
        .bind(3, q.mark_close)
        .bind(4, static_cast<int64_t>(kSnippetTokens))
        .bind(5, q.flavor)
        .bind(6, q.repo)
        .bind(7, q.since_ms)
        .bind(8, q.limit)
        .bind(9, q.until_ms);
    std::set<std::string> seen;  // several digesters may describe one session
    try {
      run(st, [&](Statement& r) {
        if (!seen.insert(r.text(0)).second) return;
        hits.push_back(SearchHit{r.text(0), r.text(1), r.text(3), r.text(2), "digest", "",
                                 r.text(5), r.integer(4), -1, r.real(6)});
      });
    } catch (const SearchSyntaxError&) {
      // Tier 1 read the query: it names an event column (tool:, body:) that digests lack.
      if (q.kind == "digest") throw;
    }
  }
  std::stable_sort(hits.begin(), hits.end(),
                   [](const SearchHit& a, const SearchHit& b) { return a.rank < b.rank; });
  const auto limit = static_cast<std::size_t>(std::max<int64_t>(q.limit, 0));
  if (hits.size() > limit) hits.resize(limit);
  return hits;
}

SearchQuery plain_search(std::string_view text) {
  // Words split at white space; a double-quoted run is one phrase.
  std::vector<std::pair<std::string, bool>> terms;  // (text, prefix*)
  std::string current;
  bool quoted = false;
  auto flush = [&] {
    if (current.empty()) return;
    const bool prefix = !quoted && current.size() > 1 && current.back() == '*';
    if (prefix) current.pop_back();
    terms.emplace_back(current, prefix);
    current.clear();
  };
  for (char c : text) {
    if (c == '"') {
      flush();
      quoted = !quoted;
    } else if (!quoted && std::isspace(static_cast<unsigned char>(c))) {
      flush();
    } else {
      current += c;
    }
  }
  flush();
  SearchQuery q;
  bool spaceless = false;
  for (const auto& [term, prefix] : terms) spaceless = spaceless || has_spaceless_script(term);
  for (const auto& [term, prefix] : terms) {
    if (spaceless)
      q.substrings.push_back(term);
    else
      q.match += (q.match.empty() ? "" : " ") + fts_string(term) + (prefix ? "*" : "");
  }
  return q;
}

}  // namespace helix

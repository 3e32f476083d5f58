// The read side of full-text search (see search_query.hpp).
#include "store/search_query.hpp"

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
    AND (?7 = 0 OR e.ts_ms >= ?7) AND (?8 = '' OR e.kind = ?8)
  ORDER BY search_events.rank LIMIT ?9)sql";

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
  ORDER BY search_digests.rank LIMIT ?8)sql";

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
        .bind(9, q.limit);
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
        .bind(8, q.limit);
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

}  // namespace helix

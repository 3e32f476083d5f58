// Ranked recall passages (see passages.hpp).
#include "recall/passages.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "store/search_query.hpp"

namespace helix {
namespace {

constexpr std::size_t kMaxTerms = 16;
constexpr int64_t kCandidatesPerSearch = 120;
constexpr std::size_t kPassageBytes = 600;      // a passage is a window this long of its event
constexpr std::size_t kLeadBytes = 120;         // kept before the first matched word
constexpr std::size_t kPassagesPerSession = 2;  // so that one long session cannot fill it all
constexpr double kDayMs = 86400e3;

// Words that carry no topic in a question.
const std::set<std::string_view>& stop_words() {
  static const std::set<std::string_view> words = {
      "a",    "about", "after",  "again",  "all",  "also",   "am",    "an",    "and",    "any",
      "are",  "as",    "at",     "be",     "been", "before", "but",   "by",    "can",    "could",
      "did",  "do",    "does",   "doing",  "done", "for",    "from",  "get",   "got",    "had",
      "has",  "have",  "how",    "i",      "if",   "in",     "into",  "is",    "it",     "its",
      "just", "last",  "me",     "my",     "no",   "not",    "of",    "on",    "or",     "our",
      "out",  "over",  "please", "should", "so",   "some",   "than",  "that",  "the",    "their",
      "them", "then",  "there",  "these",  "they", "this",   "those", "to",    "up",     "us",
      "was",  "we",    "were",   "what",   "when", "where",  "which", "while", "who",    "why",
      "will", "with",  "would",  "you",    "your", "ever",   "time",  "tell",  "remind", "us"};
  return words;
}

bool word_byte(unsigned char c) { return std::isalnum(c) || c >= 0x80; }

std::string lower_ascii(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A light English stem for ASCII words, searched as a prefix: "licenses" -> "license",
// "configured" -> "configur".
std::string stem(const std::string& word) {
  if (static_cast<unsigned char>(word[0]) >= 0x80) return word;
  for (std::string_view suffix :
       {"ations", "ation", "ings", "ing", "ies", "ied", "ed", "es", "s"}) {
    if (word.size() >= suffix.size() + 4 &&
        word.compare(word.size() - suffix.size(), suffix.size(), suffix) == 0)
      return word.substr(0, word.size() - suffix.size());
  }
  return word;
}

// FTS5: each stem a quoted prefix (quoted: no word can be read as syntax), any may match.
std::string fts_query(const std::vector<std::string>& stems) {
  std::string q;
  for (const auto& s : stems) {
    if (!q.empty()) q += " OR ";
    q += "\"" + s + "\"";
    if (s.size() >= 3) q += "*";
  }
  return q;
}

std::size_t utf8_start(std::string_view text, std::size_t at) {
  while (at > 0 && at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;
  return at;
}

// The window of `text` that holds the most of the stems, about kPassageBytes long, cut at word
// boundaries, with "…" where it was cut.
std::string window(const std::string& text, const std::vector<std::string>& stems) {
  if (text.size() <= kPassageBytes) return text;
  const std::string low = lower_ascii(text);
  std::vector<std::pair<std::size_t, std::size_t>> hits;  // (position, stem index)
  for (std::size_t s = 0; s < stems.size(); ++s)
    for (auto at = low.find(stems[s]); at != std::string::npos; at = low.find(stems[s], at + 1))
      hits.emplace_back(at, s);
  std::sort(hits.begin(), hits.end());
  std::size_t best_start = 0, best_count = 0;
  for (const auto& [pos, _] : hits) {
    const std::size_t start = pos > kLeadBytes ? pos - kLeadBytes : 0;
    std::set<std::size_t> seen;
    for (const auto& [p, s] : hits)
      if (p >= start && p < start + kPassageBytes) seen.insert(s);
    if (seen.size() > best_count) best_count = seen.size(), best_start = start;
  }
  std::size_t begin = best_start, end = std::min(text.size(), best_start + kPassageBytes);
  while (begin > 0 && begin < text.size() && word_byte(text[begin]) && word_byte(text[begin - 1]))
    ++begin;  // do not start inside a word
  while (end < text.size() && end > begin && word_byte(text[end - 1]) && word_byte(text[end]))
    --end;
  begin = utf8_start(text, begin);
  end = utf8_start(text, end);
  return (begin > 0 ? "…" : "") + text.substr(begin, end - begin) + (end < text.size() ? "…" : "");
}

double coverage(const std::string& text, const std::vector<std::string>& stems) {
  if (stems.empty()) return 0;
  const std::string low = lower_ascii(text);
  std::size_t found = 0;
  for (const auto& s : stems) found += low.find(s) != std::string::npos;
  return static_cast<double>(found) / static_cast<double>(stems.size());
}

double kind_weight(const std::string& kind) {
  if (kind == "user_msg" || kind == "assistant_msg" || kind == "decision") return 1.0;
  if (kind == "error" || kind == "digest") return 0.9;
  return 0.8;  // tool calls, edits, commands
}

std::vector<SearchHit> candidates(Store& store, const RecallQuery& q, const std::string& match) {
  std::vector<SearchHit> hits;
  auto run = [&](const std::string& repo) {
    SearchQuery sq;
    sq.match = match;
    sq.repo = repo;
    sq.flavor = q.flavor;
    sq.limit = kCandidatesPerSearch;
    sq.mark_open = sq.mark_close = "";
    auto found = search(store, sq);
    hits.insert(hits.end(), found.begin(), found.end());
  };
  if (q.repos.empty()) run("");
  for (const auto& repo : q.repos) run(repo);
  return hits;
}

}  // namespace

std::vector<std::string> question_terms(std::string_view question) {
  std::vector<std::string> terms;
  std::string word;
  auto flush = [&] {
    if (word.size() > 1 && !stop_words().count(word) &&
        std::find(terms.begin(), terms.end(), word) == terms.end() && terms.size() < kMaxTerms)
      terms.push_back(word);
    word.clear();
  };
  for (unsigned char c : question) {
    if (word_byte(c))
      word.push_back(static_cast<char>(std::tolower(c)));
    else
      flush();
  }
  flush();
  return terms;
}

RecallAnswer recall_passages(Store& store, const RecallQuery& q) {
  RecallAnswer answer;
  answer.terms = question_terms(q.question);
  if (answer.terms.empty()) return answer;
  std::vector<std::string> stems;
  for (const auto& t : answer.terms) stems.push_back(stem(t));
  const auto hits = candidates(store, q, fts_query(stems));
  double best_relevance = 0;
  for (const auto& h : hits) best_relevance = std::max(best_relevance, -h.rank);

  std::map<std::string, std::vector<int64_t>> seqs;  // the hits' whole texts, a session at a time
  for (const auto& h : hits)
    if (h.seq >= 0) seqs[h.session_uid].push_back(h.seq);
  std::map<std::string, std::map<int64_t, std::string>> texts_of;
  for (const auto& [uid, list] : seqs) texts_of[uid] = store.event_texts(uid, list);

  std::vector<Passage> ranked;
  for (const auto& h : hits) {
    Passage p{h.session_uid, h.flavor, h.repo, h.title, h.kind, h.tool, h.snippet, h.ts_ms, h.seq};
    if (h.seq >= 0)
      if (auto it = texts_of[h.session_uid].find(h.seq); it != texts_of[h.session_uid].end())
        p.text = it->second;
    p.text = window(p.text, stems);
    const double relevance = best_relevance > 0 ? -h.rank / best_relevance : 0;
    const double age_days = std::max(0.0, static_cast<double>(q.now_ms - h.ts_ms) / kDayMs);
    const double recency = 1.0 + 0.2 * std::exp(-age_days / 30.0);
    const bool boosted = !q.home_repo.empty() && h.repo == q.home_repo && q.repos.size() != 1;
    p.score = (0.6 * coverage(p.text, stems) + 0.4 * relevance) * recency * (boosted ? 1.2 : 1.0) *
              kind_weight(h.kind);
    ranked.push_back(std::move(p));
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const Passage& a, const Passage& b) { return a.score > b.score; });
  std::set<std::string> texts;  // the same words copied into several sessions count once
  std::map<std::string, std::size_t> per_session;
  for (auto& p : ranked) {
    if (answer.passages.size() >= q.max_passages) break;
    if (!texts.insert(p.text).second || per_session[p.session_uid] >= kPassagesPerSession) continue;
    ++per_session[p.session_uid];
    answer.passages.push_back(std::move(p));
  }
  return answer;
}

}  // namespace helix

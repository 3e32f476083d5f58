// helix-host search: plain words and phrases (or FTS5 syntax with --fts) over Tier 1 event
// texts and Tier 2 digests; hits grouped per session, best session first.
#include "base/json_text.hpp"
#include "base/suggest.hpp"
#include "base/text.hpp"
#include "cli/cmd_fleet.hpp"
#include "cli/cmd_recall.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/table.hpp"
#include "recall/session_json.hpp"
#include "store/search_query.hpp"
#include "store/store.hpp"

#include <fmt/format.h>

#include <iostream>
#include <map>

namespace helix {
namespace po = boost::program_options;
namespace {

constexpr std::size_t kHitsShownPerSession = 3;
constexpr int64_t kHitsReadPerSession = 10;  // hits read for each session asked for

struct SessionHits {
  std::string uid;
  std::vector<SearchHit> hits;  // best first
};

std::vector<SessionHits> by_session(const std::vector<SearchHit>& hits, std::size_t sessions) {
  std::vector<SessionHits> out;
  std::map<std::string, std::size_t> index;
  for (const auto& h : hits) {
    auto [it, added] = index.emplace(h.session_uid, out.size());
    if (added) {
      if (out.size() == sessions) continue;
      out.push_back({h.session_uid, {}});
    }
    if (it->second < out.size()) out[it->second].hits.push_back(h);
  }
  return out;
}

boost::json::value text_or_null(const std::string& s) {
  return s.empty() ? boost::json::value(nullptr) : boost::json::value(s);
}

boost::json::object hit_json(const SearchHit& h) {
  return {{"session_uid", h.session_uid},
          {"ts", h.ts_ms > 0 ? boost::json::value(iso8601(h.ts_ms)) : boost::json::value(nullptr)},
          {"kind", h.kind},
          {"tool", text_or_null(h.tool)},
          {"seq", h.seq >= 0 ? boost::json::value(h.seq) : boost::json::value(nullptr)},
          {"tier", h.kind == "digest" ? 2 : 1},
          {"rank", h.rank},
          {"snippet", h.snippet}};
}

boost::json::object session_hits_json(Store& store, const SessionHits& s) {
  const auto session = store.session(s.uid);
  boost::json::array hits;
  for (const auto& h : s.hits) hits.push_back(hit_json(h));
  const SearchHit& best = s.hits.front();
  return {{"session_uid", s.uid},
          {"flavor", best.flavor},
          {"repo", text_or_null(best.repo)},
          {"title", text_or_null(best.title)},
          {"started_at", session && session->started_at_ms > 0
                             ? boost::json::value(iso8601(session->started_at_ms))
                             : boost::json::value(nullptr)},
          {"hit_count", static_cast<int64_t>(s.hits.size())},
          {"hits", std::move(hits)}};
}

// The words of the query as one text; a UsageError without any.
std::string query_text(const po::variables_map& vm) {
  if (!vm.count("query"))
    throw UsageError("search needs words to find, e.g. helix-host search auth-bug README.md");
  std::string text;
  for (const auto& word : vm["query"].as<std::vector<std::string>>())
    text += (text.empty() ? "" : " ") + word;
  return text;
}

// The words as the store searches them: plain words and "phrases", or FTS5 syntax with --fts.
SearchQuery words_query(const po::variables_map& vm, const std::string& text) {
  const bool fts = vm.count("fts") > 0;
  SearchQuery q = fts ? SearchQuery{} : plain_search(text);
  if (fts) q.match = text;
  if (q.match.empty() && q.substrings.empty()) throw UsageError("search needs words to find");
  return q;
}

// Narrows `q` by the options (flavor, repository, kind, time) and reads enough hits for
// `sessions` sessions, each checked against the store.
void add_filters(SearchQuery& q, Store& store, const po::variables_map& vm, const TimeZone& zone,
                 int64_t sessions) {
  q.flavor = checked_flavor(store, vm);
  q.repo = checked_repo(store, vm);
  if (vm.count("kind")) q.kind = vm["kind"].as<std::string>();
  const TimeRange range = time_range(vm, zone);
  q.since_ms = range.since_ms;
  q.until_ms = range.until_ms;
  q.limit = sessions * kHitsReadPerSession;
}

// The store's hits; an FTS5 query the store cannot read is the user's to fix.
std::vector<SearchHit> search_or_explain(Store& store, const SearchQuery& q,
                                         const std::string& text) {
  try {
    return search(store, q);
  } catch (const SearchSyntaxError& e) {
    throw UsageError(fmt::format(
        "cannot read the FTS5 query '{}': {}. Without --fts, words and \"phrases\" are searched "
        "as they are",
        text, e.what()));
  }
}

// --jsonl: one hit a line, each carrying its session's title, repository and flavor.
void print_hit_lines(const std::vector<SessionHits>& groups) {
  for (const auto& s : groups)
    for (const auto& h : s.hits) {
      auto o = hit_json(h);
      o["title"] = text_or_null(h.title);
      o["repo"] = text_or_null(h.repo);
      o["flavor"] = h.flavor;
      std::cout << to_json(o) << "\n";
    }
}

// --json: one array of sessions, each with its hits.
void print_sessions_json(Store& store, const std::vector<SessionHits>& groups) {
  boost::json::array out;
  for (const auto& s : groups) out.push_back(session_hits_json(store, s));
  std::cout << to_json(out) << "\n";
}

// Where a hit is: its event (number, kind, tool) or the session's digest.
std::string hit_place(const SearchHit& h) {
  if (h.kind == "digest") return "digest";
  return fmt::format("#{} {}{}", h.seq, h.kind, h.tool.empty() ? "" : " " + h.tool);
}

// For people: each session's line (short id, start, repository, title) and its best hits.
void print_sessions_text(const Globals& g, Store& store, const TimeZone& zone,
                         const std::vector<SessionHits>& groups) {
  start_pager(g.style);
  const ShortIds short_id(store);
  const std::size_t width = g.style.width;
  auto print = [&](const std::string& line) {
    std::cout << (width ? fit_width(line, width) : line) << "\n";
  };
  for (const auto& s : groups) {
    const auto session = store.session(s.uid);
    const SearchHit& best = s.hits.front();
    std::string head =
        fmt::format("{}  {}  {}  {}", short_id(s.uid),
                    session && session->started_at_ms ? zone.minute(session->started_at_ms) : "-",
                    best.repo.empty() ? "-" : best.repo, best.title);
    print(bold(g.style, head));
    for (std::size_t i = 0; i < s.hits.size() && i < kHitsShownPerSession; ++i)
      // fit_width drops control characters: the snippet is cut first, then marked.
      print(fmt::format("    {}  {}", hit_place(s.hits[i]), one_line(s.hits[i].snippet, 400)));
    if (s.hits.size() > kHitsShownPerSession)
      std::cout << dim(g.style, fmt::format("    … {} more in this session",
                                            grouped(static_cast<int64_t>(s.hits.size() -
                                                                         kHitsShownPerSession))))
                << "\n";
  }
  std::cout << counted(static_cast<int64_t>(groups.size()), "session", "sessions") << " found\n";
}

}  // namespace

int cmd_search(const Globals& g, const std::vector<std::string>& args) {
  auto vm = parse_command("search", args);
  const std::string text = query_text(vm);
  SearchQuery q = words_query(vm, text);
  Config config = load_configuration(g);
  if (vm.count("fleet")) return fleet_search(g, config, vm, text);
  Store store = open_store_for_reading(g, config);
  const TimeZone zone = TimeZone::from_option(g.timezone);
  const int64_t sessions = *limit_option(vm);  // it has a default
  add_filters(q, store, vm, zone, sessions);
  const bool json = vm.count("json") || vm.count("jsonl");
  q.mark_open = json ? "" : g.style.color ? "\033[1;33m" : "";
  q.mark_close = json ? "" : g.style.color ? "\033[0m" : "";
  const auto groups =
      by_session(search_or_explain(store, q, text), static_cast<std::size_t>(sessions));
  if (vm.count("jsonl"))
    print_hit_lines(groups);
  else if (json)
    print_sessions_json(store, groups);
  else
    print_sessions_text(g, store, zone, groups);
  return kExitOk;
}

}  // namespace helix

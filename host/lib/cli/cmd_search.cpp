// helix-host search: ranked full-text hits over Tier 1 events and Tier 2 digests.
#include <fmt/format.h>
#include <unistd.h>

#include <iostream>

#include "base/text.hpp"
#include "cli/cmd_fleet.hpp"
#include "cli/cmd_recall.hpp"
#include "cli/exit_codes.hpp"
#include "recall/session_json.hpp"
#include "store/search_query.hpp"
#include "store/store.hpp"

namespace helix {
namespace po = boost::program_options;

int cmd_search(const Globals& g, const std::vector<std::string>& args) {
  po::options_description opts("search options");
  opts.add_options()("query", po::value<std::vector<std::string>>(), "FTS5 query")(
      "json", "JSON array of hits")("flavor", po::value<std::string>(), "only this flavor")(
      "repo", po::value<std::string>(), "only this repository")(
      "since", po::value<std::string>(), "only hits at or after DATE (YYYY-MM-DD)")(
      "kind", po::value<std::string>(), "only events of this kind ('digest': Tier 2 only)")(
      "limit", po::value<int64_t>()->default_value(20), "at most N hits")(
      "fleet", "search the team's pushed texts in the fleet database (web-search syntax)");
  po::positional_options_description pos;
  pos.add("query", -1);
  auto vm = parse_command(args, opts, pos);
  if (!vm.count("query"))
    throw UsageError("search needs a query, e.g. helix-host search '\"exact phrase\" OR pref*'");
  SearchQuery q;
  for (const auto& word : vm["query"].as<std::vector<std::string>>())
    q.match += (q.match.empty() ? "" : " ") + word;
  if (vm.count("flavor")) q.flavor = vm["flavor"].as<std::string>();
  if (vm.count("repo")) q.repo = vm["repo"].as<std::string>();
  if (vm.count("kind")) q.kind = vm["kind"].as<std::string>();
  q.limit = vm["limit"].as<int64_t>();
  if (q.limit < 1) throw UsageError("--limit must be at least 1");
  if (vm.count("since")) {
    try {
      q.since_ms = parse_date(vm["since"].as<std::string>());
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  const bool json = vm.count("json") > 0;
  if (!json && ::isatty(STDOUT_FILENO)) q.mark_open = "\033[1m", q.mark_close = "\033[0m";
  Config config = load_config(g.config_file);
  if (vm.count("fleet")) return fleet_search(config, q, json);
  Store store(store_file(g, config), /*read_only=*/true);
  std::vector<SearchHit> hits;
  try {
    hits = search(store, q);
  } catch (const SearchSyntaxError& e) {
    throw UsageError(fmt::format(
        "cannot read the search query '{}': {}. Words match words, \"a phrase\" matches in order, "
        "pref* matches a prefix, AND/OR/NOT combine; put text with punctuation in double quotes",
        q.match, e.what()));
  }
  if (json) {
    boost::json::array out;
    for (const auto& h : hits)
      out.push_back(
          {{"session_uid", h.session_uid},
           {"flavor", h.flavor},
           {"repo", h.repo.empty() ? boost::json::value(nullptr) : boost::json::value(h.repo)},
           {"title", h.title.empty() ? boost::json::value(nullptr) : boost::json::value(h.title)},
           {"ts", h.ts_ms > 0 ? boost::json::value(iso8601(h.ts_ms)) : boost::json::value(nullptr)},
           {"kind", h.kind},
           {"tool", h.tool.empty() ? boost::json::value(nullptr) : boost::json::value(h.tool)},
           {"seq", h.seq >= 0 ? boost::json::value(h.seq) : boost::json::value(nullptr)},
           {"tier", h.kind == "digest" ? 2 : 1},
           {"rank", h.rank},
           {"snippet", h.snippet}});
    std::cout << boost::json::serialize(out) << "\n";
    return kExitOk;
  }
  for (const auto& h : hits) {
    std::cout << fmt::format("{}  {}  {}{}  {}\n", h.session_uid, iso8601(h.ts_ms).substr(0, 19),
                             h.kind, h.tool.empty() ? "" : " " + h.tool, h.title);
    std::cout << fmt::format("    {}\n", one_line(h.snippet, 400));
  }
  std::cout << fmt::format("{} hit{}\n", hits.size(), hits.size() == 1 ? "" : "s");
  return kExitOk;
}

}  // namespace helix

// The team tools of the MCP server (see fleet_tools.hpp).
#include "mcp/fleet_tools.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "base/json_text.hpp"
#include "mcp/tools.hpp"
#include "recall/session_json.hpp"

namespace helix::mcp {
namespace {

namespace json = boost::json;
using Type = Param::Type;

Param param(const char* name, Type type, const char* description) {
  return Param{name, type, description, false, {}, {}, {}, {}, {}};
}

const char* kScopeNote =
    "Only the team's rows the fleet database lets this machine's login read, and only the "
    "repositories of the server's scope.";

// Words for websearch_to_tsquery, each a quoted phrase and all required: punctuation and a
// leading '-' are text, never syntax.
std::string all_words(const std::string& query) {
  std::string out, word;
  auto flush = [&] {
    if (!word.empty()) out += (out.empty() ? "\"" : " \"") + word + "\"";
    word.clear();
  };
  for (char ch : query) {
    if (std::isspace(static_cast<unsigned char>(ch)) || ch == '"')
      flush();
    else
      word += ch;
  }
  flush();
  return out;
}

std::string day_of(const Arguments& a, const char* name) {
  const int64_t ms = date_ms(a, name, false);
  return ms == 0 ? std::string() : iso8601(ms).substr(0, 10);
}

json::object team_usage(FleetReader& fleet, const Scope& scope, const Arguments& a) {
  const auto repos = repos_to_search(scope, a);
  const std::string by = a.string("by"), since = day_of(a, "since");
  std::map<std::string, UsageLine> rows;
  UsageLine total;
  for (const auto& repo : repos.empty() ? std::vector<std::string>{""} : repos)
    for (const auto& f : fleet.usage(by, since, a.string("flavor"), repo)) {
      rows[f.line.key] += f.line;
      total += f.line;
    }
  json::array list;
  for (const auto& [key, line] : rows)
    list.push_back(usage_json(key.empty() ? "(none)" : key, line));
  return {{"by", by},
          {"scope", scope.json()},
          {"since", since.empty() ? json::value(nullptr) : json::value(since)},
          {"rows", std::move(list)},
          {"totals", usage_json("", total)},
          {"note", kScopeNote}};
}

json::object team_search(FleetReader& fleet, const Scope& scope, const Arguments& a) {
  const auto repos = repos_to_search(scope, a);
  SearchQuery q;
  q.match = all_words(a.string("query"));
  if (q.match.empty()) throw ToolError("the query has no words to search for");
  q.flavor = a.string("flavor");
  q.since_ms = date_ms(a, "since", false);
  q.limit = a.integer("limit");
  std::vector<FleetHit> hits;
  for (const auto& repo : repos.empty() ? std::vector<std::string>{""} : repos) {
    q.repo = repo;
    auto found = fleet.search(q);
    hits.insert(hits.end(), found.begin(), found.end());
  }
  std::stable_sort(hits.begin(), hits.end(),
                   [](const FleetHit& x, const FleetHit& y) { return x.hit.rank < y.hit.rank; });
  json::array list;
  for (const auto& f : hits) {
    if (!scope.allows(f.hit.repo) || static_cast<int64_t>(list.size()) >= q.limit) continue;
    const SearchHit& h = f.hit;
    list.push_back({{"session_uid", h.session_uid},
                    {"flavor", h.flavor},
                    {"repo", h.repo.empty() ? json::value(nullptr) : json::value(h.repo)},
                    {"title", h.title.empty() ? json::value(nullptr) : json::value(h.title)},
                    {"kind", h.kind},
                    {"ts", h.ts_ms > 0 ? json::value(iso8601(h.ts_ms)) : json::value(nullptr)},
                    {"snippet", h.snippet},
                    {"host_name", f.origin.host_name},
                    {"member", f.origin.member}});
  }
  return {{"query", a.string("query")},
          {"scope", scope.json()},
          {"hits", std::move(list)},
          {"note", kScopeNote}};
}

json::object object_schema(json::object properties, json::array required) {
  return {{"type", "object"}, {"properties", std::move(properties)}, {"required", required}};
}

json::object usage_row_schema() {
  json::object p;
  for (const char* f : {"input_tokens", "output_tokens", "cache_creation_tokens",
                        "cache_read_tokens", "reasoning_tokens", "calls"})
    p[f] = {{"type", "integer"}};
  p["cost_usd"] = {{"type", "number"}};
  p["key"] = {{"type", "string"}};
  return object_schema(std::move(p), {"input_tokens", "output_tokens", "cost_usd"});
}

ToolSpec team_usage_spec() {
  Param by = param("by", Type::string, "day, month, model, repo, flavor, host or member.");
  by.choices = {"day", "month", "model", "repo", "flavor", "host", "member"};
  by.default_string = "day";
  return {"team_usage",
          "The team's token and cost totals",
          "Tokens and cost of the whole team's sessions (every member's machine, as pushed to the "
          "team's fleet database), grouped by day (UTC), month, model, repository, agent flavor, "
          "host or member, with totals.",
          {by, param("since", Type::string, "Only days from this date on: YYYY-MM-DD."),
           param("repo", Type::string, "Only this repository (within the server's scope)."),
           param("flavor", Type::string, "Only sessions of this agent: claude, codex, grok...")},
          object_schema({{"by", {{"type", "string"}}},
                         {"scope", json::object{}},
                         {"since", {{"type", json::array{"string", "null"}}}},
                         {"rows", {{"type", "array"}, {"items", usage_row_schema()}}},
                         {"totals", usage_row_schema()},
                         {"note", {{"type", "string"}}}},
                        {"by", "scope", "rows", "totals"})};
}

ToolSpec team_search_spec() {
  Param query = param("query", Type::string, "Words to find, all required.");
  query.required = true;
  Param limit = param("limit", Type::integer, "How many hits at most.");
  limit.minimum = 1;
  limit.maximum = 100;
  limit.default_integer = 10;
  json::object hit;
  for (const char* f : {"session_uid", "flavor", "kind", "snippet", "host_name", "member"})
    hit[f] = {{"type", "string"}};
  for (const char* f : {"repo", "title", "ts"}) hit[f] = {{"type", json::array{"string", "null"}}};
  return {"team_search",
          "Search the team's sessions",
          "Full-text search over what the team's machines pushed to the fleet database: the "
          "texts of pushed events, and the digests of sessions whose events were not pushed. "
          "Best first, each hit with its session, member and host.",
          {query, param("repo", Type::string, "Only this repository (within the server's scope)."),
           param("flavor", Type::string, "Only sessions of this agent: claude, codex, grok..."),
           param("since", Type::string, "Only hits from this date on: YYYY-MM-DD."), limit},
          object_schema(
              {{"query", {{"type", "string"}}},
               {"scope", json::object{}},
               {"hits",
                {{"type", "array"},
                 {"items", object_schema(std::move(hit), {"session_uid", "kind", "snippet"})}}},
               {"note", {{"type", "string"}}}},
              {"query", "scope", "hits"})};
}

}  // namespace

const std::vector<ToolSpec>& fleet_tool_specs() {
  static const std::vector<ToolSpec> specs = {team_usage_spec(), team_search_spec()};
  return specs;
}

json::object run_fleet_tool(FleetReader& fleet, const Scope& scope, const ToolSpec& tool,
                            const Arguments& args) {
  try {
    if (tool.name == "team_usage") return team_usage(fleet, scope, args);
    if (tool.name == "team_search") return team_search(fleet, scope, args);
  } catch (const ToolError&) {
    throw;
  } catch (const std::exception& e) {  // the database's refusal or a lost connection
    throw ToolError(fmt::format("the team's fleet database could not answer: {}", e.what()));
  }
  throw std::logic_error("no handler for tool " + tool.name);
}

}  // namespace helix::mcp

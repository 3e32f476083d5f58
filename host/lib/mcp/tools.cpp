// The MCP tools (see tools.hpp).
#include "mcp/tools.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "base/json_text.hpp"
#include "recall/passages.hpp"
#include "recall/resume_command.hpp"
#include "recall/session_json.hpp"
#include "recall/session_view.hpp"
#include "recall/token_budget.hpp"
#include "store/digest_store.hpp"
#include "store/search_query.hpp"

namespace helix::mcp {
namespace {

namespace json = boost::json;
using Type = Param::Type;

constexpr std::size_t kAmbiguousShown = 8;
constexpr std::size_t kHitsPerSession = 3;
constexpr int64_t kDayMs = 86400000;

// ---- result schemas ----

json::object typed(const char* type) { return {{"type", type}}; }
json::object nullable(const char* type) { return {{"type", json::array{type, "null"}}}; }
json::object array_of(json::object items) {
  return {{"type", "array"}, {"items", std::move(items)}};
}
json::object object_of(json::object properties, std::initializer_list<const char*> required) {
  json::array names;
  for (const char* r : required) names.emplace_back(r);
  return {
      {"type", "object"}, {"properties", std::move(properties)}, {"required", std::move(names)}};
}

json::object brief_schema() {
  return object_of({{"uid", typed("string")},
                    {"flavor", typed("string")},
                    {"repo", nullable("string")},
                    {"title", nullable("string")},
                    {"started_at", nullable("string")},
                    {"ended_at", nullable("string")},
                    {"outcome", nullable("string")},
                    {"turns", typed("integer")},
                    {"input_tokens", typed("integer")},
                    {"output_tokens", typed("integer")},
                    {"cost_usd", typed("number")}},
                   {"uid", "flavor", "repo", "title", "started_at", "ended_at", "outcome", "turns",
                    "input_tokens", "output_tokens", "cost_usd"});
}

json::object scope_schema() {
  return {{"oneOf", json::array{json::object{{"type", "string"}, {"enum", json::array{"all"}}},
                                array_of(typed("string"))}}};
}

json::object budget_schema() {
  return object_of({{"max_tokens", typed("integer")}, {"used_tokens", typed("integer")}},
                   {"max_tokens", "used_tokens"});
}

json::object usage_fields_schema(bool with_key) {
  json::object p{{"input_tokens", typed("integer")},
                 {"output_tokens", typed("integer")},
                 {"cache_creation_tokens", typed("integer")},
                 {"cache_read_tokens", typed("integer")},
                 {"reasoning_tokens", typed("integer")},
                 {"calls", typed("integer")},
                 {"cost_usd", typed("number")}};
  if (with_key) p["key"] = typed("string");
  return with_key ? object_of(std::move(p), {"key", "input_tokens", "output_tokens", "cost_usd"})
                  : object_of(std::move(p), {"input_tokens", "output_tokens", "cost_usd"});
}

json::object view_schema() {
  json::object next = nullable("object");
  return object_of(
      {{"session", brief_schema()},
       {"part", {{"type", "string"}, {"enum", json::array{"summary", "digest", "turns"}}}},
       {"budget", budget_schema()},
       {"left_out", array_of(typed("string"))},
       {"next", std::move(next)},
       {"summary", typed("object")},
       {"digest", nullable("object")},
       {"turn_total", typed("integer")},
       {"turns",
        array_of(object_of({{"turn", typed("integer")},
                            {"started_at", nullable("string")},
                            {"events", array_of(object_of({{"seq", typed("integer")},
                                                           {"kind", typed("string")},
                                                           {"ts", nullable("string")},
                                                           {"text", typed("string")}},
                                                          {"seq", "kind", "ts", "text"}))}},
                           {"turn", "events"}))}},
      {"session", "part", "budget", "left_out", "next"});
}

// ---- parameters ----

Param text(const char* name, const char* description, bool required = false) {
  return Param{name, Type::string, description, required, {}, {}, {}, {}, {}};
}
Param integer(const char* name, const char* description, int64_t min, int64_t max,
              std::optional<int64_t> fallback) {
  return Param{name, Type::integer, description, false, {}, min, max, fallback, {}};
}
Param choice(const char* name, const char* description, std::vector<std::string> choices,
             const char* fallback) {
  return Param{name, Type::string, description, false, std::move(choices), {}, {}, {}, fallback};
}

const char* kDateHelp = "YYYY-MM-DD or an ISO-8601 time (UTC)";

Param repo_param() {
  return text("repo",
              "Only this repository (its directory name). Must be within the server's "
              "scope; by default the scope is the repository the agent runs in.");
}
Param flavor_param() {
  return text("flavor",
              "Only sessions of this agent: claude, codex, grok (or another installed "
              "adapter's flavor).");
}
Param since_param() {
  return text("since",
              fmt::format("Only sessions or hits at or after this date: {}.", kDateHelp).c_str());
}
Param until_param() {
  return text("until", fmt::format("Only sessions or hits up to this date (a whole day when a "
                                   "date): {}.",
                                   kDateHelp)
                           .c_str());
}
Param id_param() {
  return text("id",
              "The session: its uid (\"claude:cf564e14-...\"), a unique prefix of it, or a "
              "prefix of the agent's own session id (\"cf564e14\").",
              true);
}
Param budget_param(int64_t fallback, int64_t max) {
  return integer("max_tokens",
                 "The most tokens the answer may cost (estimated as 4 bytes of its "
                 "JSON per token). What does not fit is named in left_out, with "
                 "the arguments that fetch it in next.",
                 200, max, fallback);
}

}  // namespace

// ---- shared reading (tools.hpp) ----

int64_t date_ms(const Arguments& a, const char* name, bool end_of_day) {
  const std::string value = a.string(name);
  if (value.empty()) return 0;
  try {
    const int64_t ms = parse_date(value);
    return end_of_day && value.size() == 10 ? ms + kDayMs - 1 : ms;
  } catch (const std::invalid_argument&) {
    throw ToolError(
        fmt::format("'{}' is not a date: use {} (for example 2026-01-31)", value, kDateHelp));
  }
}

std::vector<std::string> repos_to_search(const Scope& scope, const Arguments& a) {
  const std::string repo = a.string("repo");
  if (!repo.empty()) {
    if (!scope.allows(repo))
      throw ToolError(outside_scope(scope, fmt::format("repository '{}'", repo)));
    return {repo};
  }
  return scope.all() ? std::vector<std::string>{} : scope.repos();
}

json::object usage_json(const std::string& key, const UsageLine& l) {
  json::object o{{"input_tokens", l.input_tokens},
                 {"output_tokens", l.output_tokens},
                 {"cache_creation_tokens", l.cache_creation_tokens},
                 {"cache_read_tokens", l.cache_read_tokens},
                 {"reasoning_tokens", l.reasoning_tokens},
                 {"calls", l.calls},
                 {"cost_usd", round_micro(l.cost_usd)}};
  if (!key.empty()) o["key"] = key;
  return o;
}

namespace {

bool repo_wanted(const std::vector<std::string>& repos, const std::string& repo) {
  return repos.empty() || std::find(repos.begin(), repos.end(), repo) != repos.end();
}

double cost_of(const std::map<std::string, double>& costs, const std::string& uid) {
  const auto it = costs.find(uid);
  return it == costs.end() ? 0.0 : it->second;
}

// The hits of `q` in each of `repos` (all repositories when empty), best first.
std::vector<SearchHit> search_repos(Store& store, SearchQuery q,
                                    const std::vector<std::string>& repos) {
  std::vector<SearchHit> hits;
  try {
    for (const auto& repo : repos.empty() ? std::vector<std::string>{""} : repos) {
      q.repo = repo;
      auto found = search(store, q);
      hits.insert(hits.end(), found.begin(), found.end());
    }
  } catch (const SearchSyntaxError& e) {
    throw ToolError(fmt::format("the query cannot be searched: {}", e.what()));
  }
  std::stable_sort(hits.begin(), hits.end(),
                   [](const SearchHit& x, const SearchHit& y) { return x.rank < y.rank; });
  return hits;
}

json::object hit_brief(const SearchHit& h) {
  const std::string ts = iso8601(h.ts_ms);
  return {{"seq", h.seq >= 0 ? json::value(h.seq) : json::value(nullptr)},
          {"kind", h.kind},
          {"tool", h.tool.empty() ? json::value(nullptr) : json::value(h.tool)},
          {"ts", ts.empty() ? json::value(nullptr) : json::value(ts)},
          {"snippet", h.snippet}};
}

// Hits (best first) gathered under their sessions: at most `limit` sessions in the scope, each
// with its first kHitsPerSession hits; hits after `until` (when not 0) left out.
json::array sessions_of_hits(const ToolContext& c, const std::vector<SearchHit>& hits,
                             int64_t limit, int64_t until) {
  const auto costs = session_costs(c.store);
  json::array sessions;
  std::map<std::string, std::size_t> index;  // session uid -> its entry
  for (const auto& h : hits) {
    if ((until > 0 && h.ts_ms > until) || !c.scope.allows(h.repo)) continue;
    auto it = index.find(h.session_uid);
    if (it == index.end()) {
      if (static_cast<int64_t>(sessions.size()) >= limit) continue;
      const auto row = c.store.session(h.session_uid);
      if (!row) continue;
      it = index.emplace(h.session_uid, sessions.size()).first;
      sessions.push_back(
          {{"session", session_brief(*row, cost_of(costs, row->uid))}, {"hits", json::array()}});
    }
    auto& list = sessions[it->second].as_object()["hits"].as_array();
    if (list.size() < kHitsPerSession) list.push_back(hit_brief(h));
  }
  return sessions;
}

// ---- the tools ----

json::object search_sessions(const ToolContext& c, const Arguments& a) {
  const auto repos = repos_to_search(c.scope, a);
  // Plain words as the command line takes them: punctuation is text, never syntax.
  SearchQuery q = plain_search(a.string("query"));
  if (q.match.empty() && q.substrings.empty())
    throw ToolError("the query has no words to search for");
  const int64_t limit = a.integer("limit"), until = date_ms(a, "until", true);
  q.flavor = a.string("flavor");
  q.since_ms = date_ms(a, "since", false);
  q.limit = std::min<int64_t>(limit * 20, 1000);
  const auto hits = search_repos(c.store, std::move(q), repos);
  return {{"query", a.string("query")},
          {"scope", c.scope.json()},
          {"sessions", sessions_of_hits(c, hits, limit, until)}};
}

json::object list_sessions(const ToolContext& c, const Arguments& a) {
  const auto repos = repos_to_search(c.scope, a);
  const int64_t until = date_ms(a, "until", true);
  SessionFilter filter{a.string("flavor"), repos.size() == 1 ? repos.front() : "",
                       date_ms(a, "since", false)};
  std::vector<SessionRow> rows;
  c.store.for_each_session(filter, [&](const SessionRow& s) {
    if (!c.scope.allows(s.repo) || !repo_wanted(repos, s.repo)) return;
    if (until > 0 && s.started_at_ms > until) return;
    rows.push_back(s);
  });
  std::stable_sort(rows.begin(), rows.end(), [](const SessionRow& x, const SessionRow& y) {
    return x.started_at_ms > y.started_at_ms;
  });
  const auto costs = session_costs(c.store);
  json::array list;
  for (std::size_t i = 0; i < rows.size() && static_cast<int64_t>(i) < a.integer("limit"); ++i)
    list.push_back(session_brief(rows[i], cost_of(costs, rows[i].uid)));
  return {{"scope", c.scope.json()},
          {"total", static_cast<int64_t>(rows.size())},
          {"sessions", std::move(list)}};
}

json::object get_session(const ToolContext& c, const Arguments& a) {
  const SessionRow s = resolve_session(c.store, c.scope, a.string("id"));
  ViewRequest r;
  r.primary_digester = c.primary_digester;
  r.max_tokens = a.integer("max_tokens");
  r.from_turn = a.integer("from_turn");
  r.turn_count = a.integer("turn_count");
  r.from_event = a.integer("from_event");
  const double cost = cost_of(session_costs(c.store), s.uid);
  const std::string part = a.string("part");
  if (part == "digest") return digest_view(c.store, s, cost, r);
  if (part == "turns") return turns_view(c.store, s, cost, r);
  return summary_view(c.store, s, cost, r);
}

// The UTC day (YYYY-MM-DD) of a date argument; empty when it is not given.
std::string utc_day_argument(const Arguments& a, const char* name, bool end_of_day) {
  const int64_t ms = date_ms(a, name, end_of_day);
  return ms == 0 ? std::string() : iso8601(ms).substr(0, 10);
}

// Usage cells summed by the key session_usage groups on, and per model to tell which models
// used tokens without a price.
struct UsageTally {
  std::string by;
  std::map<std::string, UsageLine> rows;
  std::map<std::string, std::pair<int64_t, double>> models;  // tokens, cost
  UsageLine total;

  void add(const UsageCell& cell) {
    const std::string& key = by == "model"    ? cell.model
                             : by == "repo"   ? cell.repo
                             : by == "flavor" ? cell.flavor
                                              : cell.day;
    rows[key] += cell.totals;
    total += cell.totals;
    auto& m = models[cell.model];
    m.first += cell.totals.input_tokens + cell.totals.output_tokens +
               cell.totals.cache_read_tokens + cell.totals.cache_creation_tokens;
    m.second += cell.totals.cost_usd;
  }

  json::array rows_json() const {
    json::array list;
    for (const auto& [key, line] : rows)
      list.push_back(usage_json(key.empty() ? "(none)" : key, line));
    return list;
  }

  json::array unpriced_models() const {
    json::array unpriced;
    for (const auto& [model, m] : models)
      if (m.first > 0 && m.second == 0)
        unpriced.emplace_back(model.empty() ? "(no model named)" : model);
    return unpriced;
  }
};

json::object session_usage(const ToolContext& c, const Arguments& a) {
  const auto repos = repos_to_search(c.scope, a);
  const std::string flavor = a.string("flavor");
  const std::string since = utc_day_argument(a, "since", false),
                    until = utc_day_argument(a, "until", true);
  UsageTally tally{a.string("by"), {}, {}, {}};
  for (const auto& cell : usage_cells(c.store, since, until))
    if (c.scope.allows(cell.repo) && repo_wanted(repos, cell.repo) &&
        (flavor.empty() || cell.flavor == flavor))
      tally.add(cell);
  return {{"by", tally.by},
          {"scope", c.scope.json()},
          {"since", since.empty() ? json::value(nullptr) : json::value(since)},
          {"until", until.empty() ? json::value(nullptr) : json::value(until)},
          {"rows", tally.rows_json()},
          {"totals", usage_json("", tally.total)},
          {"unpriced_models", tally.unpriced_models()},
          {"note",
           "Tokens per UTC day of each model call; cost as the primary digest priced it. "
           "Models in unpriced_models have no price and add nothing to cost_usd."}};
}

json::object resume_command(const ToolContext& c, const Arguments& a) {
  const SessionRow s = resolve_session(c.store, c.scope, a.string("id"));
  return resume_json(s.uid, plan_resume(c.store, s, c.resume_recipe_of));
}

json::object passage_json(const Passage& p) {
  return {{"session_uid", p.session_uid},
          {"title", p.title.empty() ? json::value(nullptr) : json::value(p.title)},
          {"flavor", p.flavor},
          {"repo", p.repo.empty() ? json::value(nullptr) : json::value(p.repo)},
          {"ts", iso8601(p.ts_ms).empty() ? json::value(nullptr) : json::value(iso8601(p.ts_ms))},
          {"kind", p.kind},
          {"seq", p.seq >= 0 ? json::value(p.seq) : json::value(nullptr)},
          {"score", std::round(p.score * 1000) / 1000},
          {"text", p.text}};
}

json::object recall(const ToolContext& c, const Arguments& a) {
  RecallQuery q;
  q.question = a.string("question");
  q.repos = repos_to_search(c.scope, a);
  q.home_repo = c.scope.home();
  q.flavor = a.string("flavor");
  q.now_ms = c.now_ms;
  q.max_passages = static_cast<std::size_t>(a.integer("limit"));
  const RecallAnswer answer = recall_passages(c.store, q);
  json::array terms;
  for (const auto& t : answer.terms) terms.emplace_back(t);
  std::vector<json::value> passages;
  for (const auto& p : answer.passages) passages.push_back(passage_json(p));
  const int64_t max_tokens = a.integer("max_tokens");
  json::object out{{"question", q.question},
                   {"terms", std::move(terms)},
                   {"scope", c.scope.json()},
                   {"budget", {{"max_tokens", max_tokens}, {"used_tokens", 0}}}};
  pack_within_budget(out, "passages", passages, max_tokens, [&](json::object& o, std::size_t kept) {
    const std::size_t left = passages.size() - kept;
    o["left_out"] = {{"passages", static_cast<int64_t>(left)},
                     {"note", left == 0 ? ""
                                        : "more passages matched than fit: raise max_tokens, "
                                          "or read a session with get_session"}};
    o["budget"].as_object()["used_tokens"] = json_tokens(o) + 1;
  });
  if (answer.terms.empty())
    out["left_out"].as_object()["note"] = "the question has no words to search for";
  return out;
}

// ---- the tool table ----

struct Tool {
  ToolSpec spec;
  json::object (*run)(const ToolContext&, const Arguments&);
};

const std::vector<Tool>& tools() {
  static const std::vector<Tool> table = [] {
    std::vector<Tool> t;
    t.push_back(
        {{"search_sessions",
          "Search past sessions",
          "Full-text search over the prompts, answers, tool calls and errors of past coding-agent "
          "sessions (Claude Code, Codex, Grok Build...) in this repository. Plain words, all "
          "required; punctuation is literal. Returns sessions best first, each with its title, "
          "dates, outcome and up to 3 matching snippets (matched words between **).",
          {text("query", "Words to find, e.g. \"flaky auth test\" or \"hello.txt\".", true),
           repo_param(), flavor_param(), since_param(), until_param(),
           integer("limit", "How many sessions at most.", 1, 50, 10)},
          object_of({{"query", typed("string")},
                     {"scope", scope_schema()},
                     {"sessions", array_of(object_of(
                                      {{"session", brief_schema()},
                                       {"hits", array_of(object_of({{"seq", nullable("integer")},
                                                                    {"kind", typed("string")},
                                                                    {"tool", nullable("string")},
                                                                    {"ts", nullable("string")},
                                                                    {"snippet", typed("string")}},
                                                                   {"kind", "snippet"}))}},
                                      {"session", "hits"}))}},
                    {"query", "scope", "sessions"})},
         search_sessions});
    t.push_back({{"list_sessions",
                  "List recent sessions",
                  "The most recent coding-agent sessions of this repository, newest first: title, "
                  "agent (flavor), dates, turns, tokens, cost and outcome (success, fail, "
                  "abandoned, unknown). total counts every session that matched.",
                  {repo_param(), flavor_param(), since_param(), until_param(),
                   integer("limit", "How many sessions at most.", 1, 200, 20)},
                  object_of({{"scope", scope_schema()},
                             {"total", typed("integer")},
                             {"sessions", array_of(brief_schema())}},
                            {"scope", "total", "sessions"})},
                 list_sessions});
    t.push_back(
        {{"get_session",
          "Read a past session",
          "One session within a token budget. part \"summary\" (default): where, when, tokens, "
          "first prompt, last answer, top tools. part \"digest\": the digest (outcome, tools, "
          "errors with fingerprints, decisions, usage per day). part \"turns\": the conversation "
          "turn by turn (prompts, answers, tool calls and results, subagents, compactions), "
          "from from_turn, turn_count turns. Anything cut is named in left_out; call again with "
          "the arguments in next to read on.",
          {id_param(),
           choice("part", "summary, digest or turns.", {"summary", "digest", "turns"}, "summary"),
           integer("from_turn", "part turns: the first turn to return (1-based).", 1, 1000000, 1),
           integer("turn_count", "part turns: how many turns at most (default: as many as fit).", 1,
                   1000000, std::nullopt),
           integer("from_event",
                   "part turns: events of from_turn to skip (next sets it when a page ends "
                   "inside a turn).",
                   0, 1000000, 0),
           budget_param(4000, 100000)},
          view_schema()},
         get_session});
    t.push_back(
        {{"session_usage",
          "Token and cost totals",
          "Tokens and cost of this repository's sessions, grouped by day (UTC), model, "
          "repository or agent flavor, with totals; unpriced_models names the models "
          "whose cost is unknown (counted as 0).",
          {choice("by", "day, model, repo or flavor.", {"day", "model", "repo", "flavor"}, "day"),
           since_param(), until_param(), repo_param(), flavor_param()},
          object_of({{"by", typed("string")},
                     {"scope", scope_schema()},
                     {"since", nullable("string")},
                     {"until", nullable("string")},
                     {"rows", array_of(usage_fields_schema(true))},
                     {"totals", usage_fields_schema(false)},
                     {"unpriced_models", array_of(typed("string"))},
                     {"note", typed("string")}},
                    {"by", "scope", "rows", "totals", "unpriced_models"})},
         session_usage});
    t.push_back({{"resume_command",
                  "How to resume a session",
                  "The agent's own command that continues a past session (claude --resume, codex "
                  "resume, grok -r), run in the session's working directory; or why it cannot be "
                  "resumed (transcript or directory gone, a subagent, an old format).",
                  {id_param()},
                  object_of({{"session_uid", typed("string")},
                             {"possible", typed("boolean")},
                             {"command", nullable("string")},
                             {"argv", array_of(typed("string"))},
                             {"cwd", nullable("string")},
                             {"reason", nullable("string")}},
                            {"session_uid", "possible", "command", "argv", "cwd", "reason"})},
                 resume_command});
    t.push_back(
        {{"recall",
          "Recall what past sessions said",
          "Answers \"have we done this before?\": the passages of past sessions (of every agent) "
          "most relevant to a question, each with its session, time and score, best first, "
          "packed within max_tokens. Ranked by full-text relevance, how many of the question's "
          "words a passage holds, recency, and this repository first; no model is called.",
          {text("question",
                "A question or a few words, e.g. \"why did the migration to "
                "schema 11 fail?\".",
                true),
           budget_param(1500, 20000), integer("limit", "How many passages at most.", 1, 40, 8),
           repo_param(), flavor_param()},
          object_of(
              {{"question", typed("string")},
               {"terms", array_of(typed("string"))},
               {"scope", scope_schema()},
               {"budget", budget_schema()},
               {"passages",
                array_of(object_of({{"session_uid", typed("string")},
                                    {"title", nullable("string")},
                                    {"flavor", typed("string")},
                                    {"repo", nullable("string")},
                                    {"ts", nullable("string")},
                                    {"kind", typed("string")},
                                    {"seq", nullable("integer")},
                                    {"score", typed("number")},
                                    {"text", typed("string")}},
                                   {"session_uid", "flavor", "ts", "kind", "score", "text"}))},
               {"left_out", object_of({{"passages", typed("integer")}, {"note", typed("string")}},
                                      {"passages"})}},
              {"question", "terms", "scope", "budget", "passages", "left_out"})},
         recall});
    return t;
  }();
  return table;
}

}  // namespace

const std::vector<ToolSpec>& tool_specs() {
  static const std::vector<ToolSpec> specs = [] {
    std::vector<ToolSpec> s;
    for (const auto& t : tools()) s.push_back(t.spec);
    return s;
  }();
  return specs;
}

json::object tool_descriptor(const ToolSpec& tool) {
  return {{"name", tool.name},
          {"title", tool.title},
          {"description", tool.description},
          {"inputSchema", input_schema(tool)},
          {"outputSchema", tool.output_schema},
          {"annotations",
           {{"title", tool.title},
            {"readOnlyHint", true},
            {"destructiveHint", false},
            {"idempotentHint", true},
            {"openWorldHint", false}}}};
}

json::object run_tool(const ToolContext& context, const ToolSpec& tool, const Arguments& args) {
  for (const auto& t : tools())
    if (t.spec.name == tool.name) return t.run(context, args);
  throw std::logic_error("no handler for tool " + tool.name);
}

SessionRow resolve_session(Store& store, const Scope& scope, const std::string& id) {
  const auto found = store.sessions_by_id(id, 50);
  std::vector<const SessionRow*> inside;
  for (const auto& s : found)
    if (scope.allows(s.repo)) inside.push_back(&s);
  if (inside.empty() && !found.empty())
    throw ToolError(outside_scope(scope, found.size() == 1
                                             ? fmt::format("session {}", found.front().uid)
                                             : fmt::format("every session matching '{}'", id)));
  if (inside.empty())
    throw ToolError(
        fmt::format("no session matches '{}'; list_sessions or search_sessions "
                    "show the sessions there are",
                    id));
  if (inside.size() > 1) {
    std::string names;
    for (std::size_t i = 0; i < inside.size() && i < kAmbiguousShown; ++i)
      names += (names.empty() ? "" : ", ") + inside[i]->uid;
    throw ToolError(fmt::format("'{}' matches {}{} sessions: {}{}; give more of the id", id,
                                inside.size() >= 50 ? "at least " : "", inside.size(), names,
                                inside.size() > kAmbiguousShown ? ", ..." : ""));
  }
  return *inside.front();
}

}  // namespace helix::mcp

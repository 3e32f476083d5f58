// helix-host usage (totals by day, week, month, session, model, repo or flavor, optionally per
// model), usage blocks (5-hour billing windows as ccusage computes them) and statusline.
#include "base/clock.hpp"
#include "base/json_text.hpp"
#include "cli/cmd_digest.hpp"
#include "cli/commands.hpp"
#include "cli/cost_notes.hpp"
#include "cli/exit_codes.hpp"
#include "cli/table.hpp"
#include "fleet/fleet_reader.hpp"
#include "recall/session_json.hpp"
#include "store/catalog.hpp"
#include "store/digest_store.hpp"
#include "store/price_store.hpp"
#include "store/usage_query.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <iostream>
#include <map>

namespace helix {
namespace po = boost::program_options;
namespace {

constexpr int64_t kHourMs = 3600000, kMinuteMs = 60000, kDayMs = 86400000;
constexpr int64_t kBlockMs = 5 * kHourMs;    // Claude's billing window
constexpr int64_t kOpenEnd = INT64_MAX / 4;  // "no --until", kept clear of overflow in SQL

// One line of a usage report, and per model when broken down.
struct UsageRow {
  std::string key;
  UsageTokens tokens;
  std::map<std::string, UsageTokens> by_model;
  // --by session: the session's facts
  std::string title, repo, flavor;
  int64_t started_at_ms = 0;
  std::string host_name;  // --fleet --by host: the name of the host whose id is the key
};

struct UsageRequest {
  std::string by;
  bool breakdown = false;
  PriceBook book;    // what single calls are priced with (as usage_days are)
  UsageScope scope;  // flavor and repo; days filled when the report reads usage_days
  TimeRange range;
  TimeZone zone = TimeZone::utc();
};

bool time_keyed(const std::string& by) { return by == "day" || by == "week" || by == "month"; }

std::string time_key(const UsageRequest& r, int64_t ms) {
  if (r.by == "week") return r.zone.week(ms);
  if (r.by == "month") return r.zone.month(ms);
  return r.zone.day(ms);
}

// usage_days answers when days are UTC days and the range covers whole UTC days.
bool whole_utc_days(const UsageRequest& r) {
  return r.zone.is_utc() && r.range.since_ms % kDayMs == 0 &&
         (r.range.until_ms == INT64_MAX || (r.range.until_ms + 1) % kDayMs == 0);
}

std::string utc_day(int64_t ms) { return TimeZone::utc().day(ms); }

void add(std::map<std::string, UsageRow>& rows, const UsageRequest& r, const std::string& key,
         const std::string& model, const UsageTokens& t) {
  UsageRow& row = rows[key];
  row.key = key;
  row.tokens += t;
  if (r.breakdown) row.by_model[model] += t;
}

constexpr int64_t kNoTime = INT64_MIN;  // a call without a time, in a session without one

std::string group_key(const UsageRequest& r, const std::string& session, const std::string& model,
                      const std::string& flavor, const std::string& repo, int64_t ms) {
  if (time_keyed(r.by)) return ms == kNoTime ? "unknown" : time_key(r, ms);
  if (r.by == "session") return session;
  if (r.by == "model") return model;
  if (r.by == "repo") return repo;
  return flavor;
}

// Rows from single calls, for ranges that are not whole UTC days (local days, times).
void add_single_calls(Store& store, const UsageRequest& r, std::map<std::string, UsageRow>& rows) {
  std::map<std::string, std::pair<std::string, std::string>> facts;  // uid -> flavor, repo
  UsagePricer prices(r.book);
  for_each_usage_call(
      store, r.scope, r.range.since_ms, std::min(r.range.until_ms, kOpenEnd), prices,
      [&](const UsageCall& c) {
        auto it = facts.find(c.session_uid);
        if (it == facts.end()) {
          const auto s = store.session(c.session_uid);
          it = facts.emplace(c.session_uid, std::make_pair(s->flavor, s->repo)).first;
        }
        add(rows, r,
            group_key(r, c.session_uid, c.model, it->second.first, it->second.second, c.ts_ms),
            c.model, c.tokens);
      });
}

std::vector<UsageRow> read_rows(Store& store, UsageRequest& r) {
  std::map<std::string, UsageRow> rows;
  if (whole_utc_days(r)) {
    const bool rollup = !r.breakdown && r.scope.repo.empty() &&
                        (r.by == "day" || r.by == "model" || r.by == "flavor");
    if (rollup) {  // the per-day rollup: no session row is read
      for (const auto& l : usage_report(store, r.by, r.scope.since_day, r.scope.flavor,
                                        UsageSource::rollup_when_current, r.scope.until_day)) {
        UsageTokens t{l.input_tokens,      l.output_tokens,    l.cache_creation_tokens,
                      l.cache_read_tokens, l.reasoning_tokens, l.calls,
                      l.cost_usd,          l.agent_cost_usd,   l.unpriced_tokens};
        add(rows, r, l.key, "", t);
      }
    } else {
      for_each_usage_day(store, r.scope, [&](const UsageDayRow& d) {
        const int64_t day_ms =
            d.day.size() == 10 ? TimeZone::utc().day_start_ms(d.day) : kNoTime;  // "unknown"
        add(rows, r, group_key(r, d.session_uid, d.model, d.flavor, d.repo, day_ms), d.model,
            d.tokens);
      });
    }
  } else {
    add_single_calls(store, r, rows);
  }
  std::vector<UsageRow> out;
  out.reserve(rows.size());
  for (auto& [key, row] : rows) out.push_back(std::move(row));
  if (r.by == "session") {
    for (auto& row : out)
      if (const auto s = store.session(row.key)) {
        row.title = s->title;
        row.repo = s->repo;
        row.flavor = s->flavor;
        row.started_at_ms = s->started_at_ms;
      }
    std::stable_sort(out.begin(), out.end(), [](const UsageRow& a, const UsageRow& b) {
      return a.started_at_ms < b.started_at_ms;
    });
  } else if (!time_keyed(r.by)) {  // the biggest spenders first
    std::stable_sort(out.begin(), out.end(), [](const UsageRow& a, const UsageRow& b) {
      return a.tokens.cost_usd > b.tokens.cost_usd ||
             (a.tokens.cost_usd == b.tokens.cost_usd && a.tokens.total() > b.tokens.total());
    });
  }
  return out;
}

boost::json::object tokens_json(const UsageTokens& t) {
  return {{"input_tokens", t.input},
          {"output_tokens", t.output},
          {"cache_creation_tokens", t.cache_creation},
          {"cache_read_tokens", t.cache_read},
          {"reasoning_tokens", t.reasoning},
          {"total_tokens", t.total()},
          {"calls", t.calls},
          {"cost_usd", t.cost_usd},
          {"agent_cost_usd",
           t.agent_cost_usd ? boost::json::value(*t.agent_cost_usd) : boost::json::value(nullptr)},
          {"unpriced_tokens", t.unpriced_tokens}};
}

boost::json::object row_json(const UsageRequest& r, const UsageRow& row) {
  auto o = tokens_json(row.tokens);
  o[r.by] = row.key;
  if (r.by == "host") o["host_name"] = row.host_name;
  if (r.by == "session") {
    o["title"] = row.title.empty() ? boost::json::value(nullptr) : boost::json::value(row.title);
    o["repo"] = row.repo.empty() ? boost::json::value(nullptr) : boost::json::value(row.repo);
    o["flavor"] = row.flavor;
    o["started_at"] = row.started_at_ms > 0 ? boost::json::value(iso8601(row.started_at_ms))
                                            : boost::json::value(nullptr);
  }
  if (r.breakdown) {
    boost::json::array models;
    for (const auto& [model, t] : row.by_model) {
      auto m = tokens_json(t);
      m["model"] = model;
      models.push_back(std::move(m));
    }
    o["models"] = std::move(models);
  }
  return o;
}

// The heading of the key column for `--by KEY`.
const char* key_header(const std::string& by) {
  static const std::map<std::string, const char*> kHeaders = {
      {"session", "SESSION"}, {"day", "DAY"},   {"week", "WEEK OF"}, {"month", "MONTH"},
      {"model", "MODEL"},     {"repo", "REPO"}, {"host", "HOST"},    {"member", "MEMBER"}};
  const auto it = kHeaders.find(by);
  return it == kHeaders.end() ? "FLAVOR" : it->second;
}

// The key cell of a row: a host as "name (id)", no key as "(none)".
std::string key_cell(const UsageRow& row) {
  if (row.key.empty()) return "(none)";
  return row.host_name.empty() ? row.key : fmt::format("{} ({})", row.host_name, row.key);
}

// The usage table's layout: under 130 columns the cache columns merge and the agents' own
// costs are left out; --by session adds what says which session it was.
struct UsageLayout {
  bool compact = false, by_session = false;

  std::vector<Column> columns(const std::string& by) const {
    std::vector<Column> columns{{key_header(by), false, by_session ? 0u : 12u}};
    if (by_session)  // what says which session it was goes last
      columns.insert(columns.end(),
                     {{"STARTED", false, 0, 3}, {"REPO", false, 6, 4}, {"TITLE", false, 8, 5}});
    if (compact)
      columns.insert(columns.end(),
                     {{"INPUT", true, 0, 1}, {"OUTPUT", true, 0, 1}, {"CACHE", true, 0, 2}});
    else
      columns.insert(columns.end(), {{"INPUT", true},
                                     {"OUTPUT", true},
                                     {"CACHE WRITE", true},
                                     {"CACHE READ", true},
                                     {"REASONING", true}});
    columns.insert(columns.end(), {{"TOTAL", true}, {"COST USD", true}});
    if (!compact) columns.push_back({"AGENT USD", true});  // what the agents said it cost
    return columns;
  }

  // `head` (the key cell, and the session's cells when by session) followed by the numbers.
  std::vector<std::string> cells(std::vector<std::string> head, const UsageTokens& t) const {
    head.insert(head.end(), {grouped(t.input), grouped(t.output)});
    if (compact)
      head.push_back(grouped(t.cache_creation + t.cache_read));
    else
      head.insert(head.end(),
                  {grouped(t.cache_creation), grouped(t.cache_read), grouped(t.reasoning)});
    head.insert(head.end(), {grouped(t.total()), dollars(t.cost_usd)});
    if (!compact) head.push_back(t.agent_cost_usd ? dollars(*t.agent_cost_usd) : "-");
    return head;
  }

  // A line that is no session of its own (a model's share, the total): its session cells empty.
  std::vector<std::string> unkeyed(std::string label) const {
    std::vector<std::string> head{std::move(label)};
    if (by_session) head.insert(head.end(), {"", "", ""});
    return head;
  }
};

// `session_label`: how a session's uid is shown (the local store's short ids; the fleet's
// sessions by their full uid).
void print_usage_table(const Globals& g, const UsageRequest& r,
                       const std::function<std::string(const std::string&)>& session_label,
                       const std::vector<UsageRow>& rows, const UsageTokens& total) {
  const UsageLayout layout{g.style.width > 0 && g.style.width < 130, r.by == "session"};
  Table table(layout.columns(r.by));
  for (const auto& row : rows) {
    std::vector<std::string> head{layout.by_session ? session_label(row.key) : key_cell(row)};
    if (layout.by_session)
      head.insert(head.end(), {row.started_at_ms ? r.zone.minute(row.started_at_ms) : "-", row.repo,
                               row.title});
    table.add(layout.cells(std::move(head), row.tokens));
    for (const auto& [model, t] : row.by_model)
      table.add(layout.cells(
          layout.unkeyed("  └ " + (model.empty() ? std::string("(none)") : model)), t));
  }
  table.add_footer(layout.cells(layout.unkeyed("total"), total));
  std::cout << table.render(g.style.width);
}

// --- 5-hour blocks, as ccusage identifies them: a block starts at the UTC hour of its first
// call and ends 5 hours later; a call more than 5 hours after the block's start, or after the
// previous call, starts the next one (with a gap block between when the pause was longer).
struct Block {
  int64_t start = 0, end = 0, last = 0;  // last: the last call's time
  bool active = false, gap = false;
  UsageTokens tokens;
  std::vector<std::string> models;  // in order of first use
  int64_t first_call = 0;
};

std::vector<Block> identify_blocks(const std::vector<UsageCall>& calls, int64_t now) {
  std::vector<Block> blocks;
  Block current;
  bool open = false;
  auto close = [&] {
    current.active = now - current.last < kBlockMs && now < current.end;
    blocks.push_back(current);
  };
  for (const auto& c : calls) {
    if (c.ts_ms <= 0) continue;  // no time of its own nor its session's: in no window
    if (open && (c.ts_ms - current.start > kBlockMs || c.ts_ms - current.last > kBlockMs)) {
      close();
      if (c.ts_ms - current.last > kBlockMs)
        blocks.push_back(Block{current.last + kBlockMs, c.ts_ms, 0, false, true, {}, {}, 0});
      open = false;
    }
    if (!open) {
      current = Block{};
      current.start = c.ts_ms - ((c.ts_ms % kHourMs) + kHourMs) % kHourMs;
      current.end = current.start + kBlockMs;
      current.first_call = c.ts_ms;
      open = true;
    }
    current.last = c.ts_ms;
    current.tokens += c.tokens;
    if (!c.model.empty() &&
        std::find(current.models.begin(), current.models.end(), c.model) == current.models.end())
      current.models.push_back(c.model);
  }
  if (open) close();
  return blocks;
}

struct BurnRate {
  double tokens_per_minute = 0, cost_per_hour = 0;
};

std::optional<BurnRate> burn_rate(const Block& b) {
  const double minutes = static_cast<double>(b.last - b.first_call) / kMinuteMs;
  if (b.gap || minutes <= 0) return std::nullopt;
  return BurnRate{static_cast<double>(b.tokens.total()) / minutes,
                  b.tokens.cost_usd / minutes * 60};
}

std::string hours_minutes(int64_t ms) {
  const int64_t minutes = std::max<int64_t>(0, ms / kMinuteMs);
  return fmt::format("{}h {}m", minutes / 60, minutes % 60);
}

std::vector<UsageCall> calls_for_blocks(Store& store, const UsageScope& scope, int64_t since_ms,
                                        int64_t until_ms, const PriceBook& book) {
  std::vector<UsageCall> calls;
  UsagePricer prices(book);
  // A day earlier than asked: the first block asked for starts as it would with all history.
  for_each_usage_call(store, scope, since_ms > kDayMs ? since_ms - kDayMs : 0, until_ms, prices,
                      [&](const UsageCall& c) { calls.push_back(c); });
  return calls;
}

// What every cost report says with its figures: the book they were priced with when it is not
// the current one, and the models it has no price for (cost_notes.hpp).
std::vector<UnpricedModel> cost_warnings(Store& store, const UsageRequest& r) {
  warn_if_costs_stale(store, r.book);
  auto unpriced = unpriced_models(store, r.scope.since_day, r.scope.flavor, r.scope.until_day);
  warn_unpriced(unpriced);
  return unpriced;
}

boost::json::object block_json(const Block& b, int64_t now) {
  boost::json::array models;
  for (const auto& m : b.models) models.emplace_back(m);
  boost::json::value burn = nullptr, projection = nullptr;
  if (b.active)
    if (auto rate = burn_rate(b)) {
      burn = {{"tokens_per_minute", rate->tokens_per_minute},
              {"cost_per_hour", rate->cost_per_hour}};
      const double remaining = std::round(static_cast<double>(b.end - now) / kMinuteMs);
      projection = {{"total_tokens", std::llround(static_cast<double>(b.tokens.total()) +
                                                  rate->tokens_per_minute * remaining)},
                    {"cost_usd", b.tokens.cost_usd + rate->cost_per_hour / 60 * remaining},
                    {"remaining_minutes", static_cast<int64_t>(remaining)}};
    }
  auto o = tokens_json(b.tokens);
  o["start"] = iso8601(b.start);
  o["end"] = iso8601(b.end);
  o["last_call"] = b.gap ? boost::json::value(nullptr) : boost::json::value(iso8601(b.last));
  o["active"] = b.active;
  o["gap"] = b.gap;
  o["models"] = std::move(models);
  o["burn_rate"] = std::move(burn);
  o["projection"] = std::move(projection);
  return o;
}

int usage_blocks(const Globals& g, const po::variables_map& vm, Store& store,
                 const UsageRequest& r) {
  const int64_t now = now_ms();
  auto blocks = identify_blocks(calls_for_blocks(store, r.scope, r.range.since_ms,
                                                 std::min(r.range.until_ms, kOpenEnd), r.book),
                                now);
  // As ccusage: blocks whose start falls on the asked-for days.
  std::erase_if(blocks, [&](const Block& b) {
    return b.start < r.range.since_ms || b.start > r.range.until_ms;
  });
  if (vm.count("limit")) {
    const auto n = static_cast<std::size_t>(std::max<int64_t>(1, vm["limit"].as<int64_t>()));
    if (blocks.size() > n) blocks.erase(blocks.begin(), blocks.end() - static_cast<long>(n));
  }
  if (vm.count("reverse")) std::reverse(blocks.begin(), blocks.end());
  if (vm.count("json")) {
    boost::json::array out;
    for (const auto& b : blocks) out.push_back(block_json(b, now));
    std::cout << to_json(
                     boost::json::object{{"timezone", r.zone.name()}, {"blocks", std::move(out)}})
              << "\n";
    return kExitOk;
  }
  start_pager(g.style);
  Table table(
      {{"BLOCK START"}, {"STATUS"}, {"MODELS", false, 6}, {"TOKENS", true}, {"COST", true}});
  for (const auto& b : blocks) {
    if (b.gap) {
      table.add({r.zone.minute(b.start), fmt::format("gap {}", hours_minutes(b.end - b.start)), "-",
                 "-", "-"});
      continue;
    }
    std::string models;
    for (const auto& m : b.models) models += (models.empty() ? "" : ", ") + m;
    table.add({r.zone.minute(b.start),
               b.active ? "ACTIVE " + hours_minutes(b.end - now) + " left"
                        : hours_minutes(b.last - b.start),
               models, grouped(b.tokens.total()), dollars(b.tokens.cost_usd)});
  }
  std::cout << table.render(g.style.width);
  for (const auto& b : blocks)
    if (b.active)
      if (auto rate = burn_rate(b))
        std::cout << fmt::format(
            "active block: {} tokens/min, ${}/h; at this rate ${} by {}\n",
            grouped(std::llround(rate->tokens_per_minute)), dollars(rate->cost_per_hour),
            dollars(b.tokens.cost_usd +
                    rate->cost_per_hour / 60 * static_cast<double>(b.end - now) / kMinuteMs),
            r.zone.minute(b.end).substr(11));
  if (blocks.empty()) std::cout << "no usage in this range\n";
  cost_warnings(store, r);
  return kExitOk;
}

// "5h", "7d", "90m": a window's length as people say it ("-" when unknown).
std::string window_length(int64_t minutes) {
  constexpr int64_t kMinutesPerDay = int64_t{24} * 60;
  if (minutes <= 0) return "-";
  if (minutes % kMinutesPerDay == 0) return fmt::format("{}d", minutes / kMinutesPerDay);
  if (minutes % 60 == 0) return fmt::format("{}h", minutes / 60);
  return fmt::format("{}m", minutes);
}

boost::json::object limit_json(const RateLimitState& l, int64_t now) {
  auto at = [](int64_t ms) { return ms ? boost::json::value(iso8601(ms)) : nullptr; };
  return {{"flavor", l.flavor},
          {"limit_id", l.limit_id},
          {"window", l.window},
          {"used_percent", l.used_percent},
          {"left_percent", std::max(0.0, 100 - l.used_percent)},
          {"window_minutes", l.window_minutes ? boost::json::value(l.window_minutes) : nullptr},
          {"resets_at", at(l.resets_at_ms)},
          {"reset_passed", l.resets_at_ms != 0 && l.resets_at_ms <= now},
          {"reported_at", at(l.reported_at_ms)},
          {"session", l.session_uid}};
}

// usage --limits: how much of each rate-limit window is left, as the agent last reported it.
// A window whose reset time has passed has started again since: its figure is only history.
int usage_limits(const Globals& g, const po::variables_map& vm, Store& store,
                 const UsageRequest& r) {
  const int64_t now = now_ms();
  const auto limits = latest_rate_limits(store, r.scope.flavor);
  if (vm.count("json")) {
    boost::json::array out;
    for (const auto& l : limits) out.push_back(limit_json(l, now));
    std::cout << to_json(
                     boost::json::object{{"timezone", r.zone.name()}, {"limits", std::move(out)}})
              << "\n";
    return kExitOk;
  }
  if (limits.empty()) {
    std::cout << "no rate limits reported (Codex CLI writes them with its token counts)\n";
    return kExitOk;
  }
  auto when = [&](int64_t ms) { return ms ? r.zone.minute(ms) : std::string("-"); };
  Table table({{"AGENT"},
               {"LIMIT"},
               {"WINDOW"},
               {"USED", true},
               {"LEFT", true},
               {"LENGTH", true},
               {"RESETS"},
               {"REPORTED"}});
  for (const auto& l : limits)
    table.add({l.flavor, l.limit_id.empty() ? "-" : l.limit_id, l.window,
               fmt::format("{:g}%", l.used_percent),
               fmt::format("{:g}%", std::max(0.0, 100 - l.used_percent)),
               window_length(l.window_minutes),
               when(l.resets_at_ms) + (l.resets_at_ms && l.resets_at_ms <= now ? " (passed)" : ""),
               when(l.reported_at_ms)});
  std::cout << table.render(g.style.width);
  std::cout << fmt::format("times in {}; a window whose reset has passed has started again\n",
                           r.zone.name());
  return kExitOk;
}

// --limit (the newest, or the biggest rows) and --reverse.
void keep_limit(const po::variables_map& vm, const UsageRequest& r, std::vector<UsageRow>& rows) {
  if (vm.count("limit")) {
    const auto n = static_cast<std::size_t>(vm["limit"].as<int64_t>());
    if (rows.size() > n) {
      if (time_keyed(r.by) || r.by == "session")
        rows.erase(rows.begin(), rows.end() - static_cast<long>(n));
      else
        rows.resize(n);
    }
  }
  if (vm.count("reverse")) std::reverse(rows.begin(), rows.end());
}

// The rows the fleet's usage ledger answers; its days are UTC days and its costs each host's.
std::vector<UsageRow> fleet_rows(const Config& config, const UsageRequest& r) {
  std::vector<UsageRow> out;
  try {
    for (auto& f :
         FleetReader(config.fleet).usage(r.by, r.scope.since_day, r.scope.flavor, r.scope.repo)) {
      const UsageLine& l = f.line;
      UsageRow row;
      row.key = l.key;
      row.tokens = {l.input_tokens,      l.output_tokens,    l.cache_creation_tokens,
                    l.cache_read_tokens, l.reasoning_tokens, l.calls,
                    l.cost_usd,          l.agent_cost_usd,   l.unpriced_tokens};
      row.host_name = std::move(f.host_name);
      out.push_back(std::move(row));
    }
  } catch (const std::invalid_argument& e) {  // no [fleet], a bad team, a password in clear
    throw UsageError(e.what());
  }
  return out;
}

// usage --fleet: the team's totals. Only the ledger's whole UTC days from --since are there:
// the options that need single calls or local days are refused, not answered approximately.
int fleet_usage(const Globals& g, const Config& config, const po::variables_map& vm,
                UsageRequest& r) {
  if (vm.count("report"))
    throw UsageError(
        "usage blocks needs each call's time, which the fleet does not hold: it "
        "cannot be used with --fleet");
  reject_with_fleet(vm, {"breakdown", "until"});
  if (r.by == "week") throw UsageError("--by week cannot be used with --fleet (day or month can)");
  r.zone = TimeZone::utc();
  r.scope.flavor = vm.count("flavor") ? vm["flavor"].as<std::string>() : "";
  r.scope.repo = repo_option(vm);
  std::vector<UsageRow> rows = fleet_rows(config, r);
  if (!time_keyed(r.by) && r.by != "session")  // the biggest spenders first, as locally
    std::stable_sort(rows.begin(), rows.end(), [](const UsageRow& a, const UsageRow& b) {
      return a.tokens.cost_usd > b.tokens.cost_usd;
    });
  keep_limit(vm, r, rows);
  UsageTokens total;
  for (const auto& row : rows) total += row.tokens;
  if (vm.count("json")) {
    boost::json::array out;
    for (const auto& row : rows) out.push_back(row_json(r, row));
    // No price notes: each host priced its own usage with its own book.
    std::cout << to_json(boost::json::object{{"by", r.by},
                                             {"timezone", r.zone.name()},
                                             {"team", config.fleet.team},
                                             {"totals", tokens_json(total)},
                                             {"rows", std::move(out)},
                                             {"unpriced_models", boost::json::array()},
                                             {"prices", nullptr}})
              << "\n";
    return kExitOk;
  }
  start_pager(g.style);
  print_usage_table(
      g, r, [](const std::string& uid) { return uid; }, rows, total);
  return kExitOk;
}

}  // namespace

int cmd_usage(const Globals& g, const std::vector<std::string>& args) {
  auto vm = parse_command("usage", args);
  Config config = load_configuration(g);
  UsageRequest r;
  r.by = vm["by"].as<std::string>();
  r.breakdown = vm.count("breakdown") > 0;
  r.zone = TimeZone::from_option(g.timezone);
  r.range = time_range(vm, r.zone);
  // The UTC days the range touches (exactly the range when it is whole UTC days).
  if (r.range.since_ms > 0) r.scope.since_day = utc_day(r.range.since_ms);
  if (r.range.until_ms != INT64_MAX) r.scope.until_day = utc_day(r.range.until_ms);
  (void)limit_option(vm);  // checked before any store is opened; each report reads it
  if (vm.count("fleet") && vm.count("limits"))
    throw UsageError("--limits reads this machine's store: it cannot be used with --fleet");
  if (vm.count("fleet")) return fleet_usage(g, config, vm, r);
  if (r.by == "host" || r.by == "member")
    throw UsageError(fmt::format("--by {} groups the team's usage: it needs --fleet", r.by));
  Store store = open_store_for_reading(g, config);
  r.book = effective_price_book(store);
  r.scope.flavor = checked_flavor(store, vm);
  r.scope.repo = checked_repo(store, vm);
  if (vm.count("report")) return usage_blocks(g, vm, store, r);
  if (vm.count("limits")) return usage_limits(g, vm, store, r);
  std::vector<UsageRow> rows = read_rows(store, r);
  keep_limit(vm, r, rows);
  UsageTokens total;
  for (const auto& row : rows) total += row.tokens;
  const auto unpriced = cost_warnings(store, r);
  if (vm.count("json")) {
    boost::json::array out;
    for (const auto& row : rows) out.push_back(row_json(r, row));
    std::cout << to_json(boost::json::object{{"by", r.by},
                                             {"timezone", r.zone.name()},
                                             {"totals", tokens_json(total)},
                                             {"rows", std::move(out)},
                                             {"unpriced_models", unpriced_json(unpriced)},
                                             {"prices", r.book.source()}})
              << "\n";
  } else {
    start_pager(g.style);
    const ShortIds short_id(store);
    print_usage_table(
        g, r, [&](const std::string& uid) { return short_id(uid); }, rows, total);
  }
  return kExitOk;
}

int cmd_statusline(const Globals& g, const std::vector<std::string>& args) {
  auto vm = parse_command("statusline", args);
  std::string input;
  if (!::isatty(STDIN_FILENO)) {
    char buf[8192];
    ssize_t n;
    while ((n = ::read(STDIN_FILENO, buf, sizeof buf)) > 0 && input.size() < (1 << 20))
      input.append(buf, static_cast<std::size_t>(n));
  }
  boost::system::error_code ec;
  const boost::json::value event = boost::json::parse(input, ec);
  std::string session_id;
  if (!ec && event.is_object())
    if (const auto* id = event.as_object().if_contains("session_id"); id && id->is_string())
      session_id = std::string(id->get_string());
  Config config = load_configuration(g);
  Store store = open_store_for_reading(g, config);
  const TimeZone zone = TimeZone::from_option(g.timezone);
  const int64_t now = now_ms();
  const int64_t today_start = zone.day_start_ms(zone.day(now));
  double today = 0;
  auto calls = calls_for_blocks(store, UsageScope{}, std::min(today_start, now - kDayMs), now,
                                effective_price_book(store));
  for (const auto& c : calls)
    if (c.ts_ms >= today_start) today += c.tokens.cost_usd;
  std::optional<SessionRow> session;
  if (!session_id.empty()) {
    const auto uids = sessions_matching(store, "claude:" + session_id, 2);
    if (uids.size() == 1) session = store.session(uids[0]);
  }
  const auto blocks = identify_blocks(calls, now);
  const auto active = std::find_if(blocks.begin(), blocks.end(), [](auto& b) { return b.active; });
  if (vm.count("json")) {
    std::cout << to_json(boost::json::object{
                     {"timezone", zone.name()},
                     {"today", {{"day", zone.day(now)}, {"cost_usd", today}}},
                     {"session",
                      session ? boost::json::value{{"session_uid", session->uid},
                                                   {"cost_usd", session->cost_usd.value_or(0)}}
                              : boost::json::value()},
                     {"block", active != blocks.end() ? boost::json::value(block_json(*active, now))
                                                      : boost::json::value()}})
              << "\n";
    return kExitOk;
  }
  std::string line = fmt::format("helix · today ${}", dollars(today));
  if (session) line += fmt::format(" · session ${}", dollars(session->cost_usd.value_or(0)));
  if (active != blocks.end()) {
    const auto& b = *active;
    line += fmt::format(" · block ${} ({} left", dollars(b.tokens.cost_usd),
                        hours_minutes(b.end - now));
    if (auto rate = burn_rate(b)) line += fmt::format(", ${}/h", dollars(rate->cost_per_hour));
    line += ")";
  }
  std::cout << line << "\n";
  return kExitOk;
}

}  // namespace helix

// helix-host sessions, show, status, warnings, plugins and config.
#include "cli/cmd_sessions.hpp"

#include "base/json_text.hpp"
#include "base/suggest.hpp"
#include "cli/cmd_fleet.hpp"
#include "cli/cmd_retention.hpp"
#include "cli/commands.hpp"
#include "cli/cost_notes.hpp"
#include "cli/exit_codes.hpp"
#include "cli/table.hpp"
#include "digest/digest_runner.hpp"
#include "recall/conversation.hpp"
#include "recall/session_json.hpp"
#include "recall/session_tree.hpp"
#include "store/catalog.hpp"
#include "store/digest_store.hpp"
#include "store/price_store.hpp"

#include <fmt/format.h>
#include <helix/helix_plugin.h>
#include <iostream>

namespace helix {
namespace po = boost::program_options;
namespace {

std::string duration_text(int64_t ms) {
  const int64_t minutes = ms / 60000;
  if (minutes < 60) return fmt::format("{} min", minutes);
  return fmt::format("{} h {:02} min", minutes / 60, minutes % 60);
}

// Records of agent plumbing that say nothing about the work: hidden by `show` unless --all. A
// compaction stays: it says why the agent forgot what came before.
bool bookkeeping(const EventRow& e) {
  return e.kind == "other" || (e.kind == "lifecycle" && !is_compaction_marker(e));
}

std::string text_at(const boost::json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

int64_t number_at(const boost::json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  return v && v->is_number() ? v->to_number<int64_t>() : 0;
}

// The session's tokens as ccusage counts them: input, output and both cache counts.
int64_t total_tokens(const UsageTotals& u) {
  return u.input_tokens + u.output_tokens + u.cache_creation_tokens + u.cache_read_tokens;
}

void print_header(const Globals& g, const SessionRow& s, int64_t shown) {
  const std::size_t width = g.style.width;
  auto out = [&](const std::string& line) {
    std::cout << (width ? fit_width(line, width) : line) << "\n";
  };
  out(bold(g.style, s.uid));
  if (!s.title.empty()) out("  " + s.title);
  std::string facts = "  repo " + (s.repo.empty() ? "-" : s.repo);
  if (!s.cwd.empty()) facts += " · cwd " + s.cwd;
  if (!s.git_branch.empty()) facts += " · branch " + s.git_branch;
  if (!s.model.empty()) facts += " · " + s.model;
  facts += " · outcome " + s.outcome;
  out(facts);
  if (!s.parent_uid.empty()) out("  subagent of " + s.parent_uid);
  if (!s.forked_from.empty())
    out("  forked from " + s.forked_from + " (the records it copied are listed there)");
  const TimeZone zone = TimeZone::from_option(g.timezone);
  if (s.started_at_ms > 0) {
    const std::string start = zone.minute(s.started_at_ms), end = zone.minute(s.ended_at_ms);
    out(fmt::format(
        "  {} → {} ({}) · {} · {}", start,
        end.substr(0, 10) == start.substr(0, 10) ? end.substr(11) : end,  // the same local day
        duration_text(s.ended_at_ms - s.started_at_ms), counted(s.turns, "turn", "turns"),
        shown >= 0 ? fmt::format("{} events, {} shown", grouped(s.event_count), grouped(shown))
                   : counted(s.event_count, "event", "events")));
  }
  out(fmt::format("  tokens {} (in {} · out {} · cache write {} · cache read {})",
                  grouped(total_tokens(s.usage)), grouped(s.usage.input_tokens),
                  grouped(s.usage.output_tokens), grouped(s.usage.cache_creation_tokens),
                  grouped(s.usage.cache_read_tokens)));
  out("  " + cost_line(s));
}

// An array (`lines` false) or one object per line.
void print_sessions_json(const std::vector<SessionRow>& rows, bool lines) {
  std::cout << (lines ? "" : "[");
  for (std::size_t i = 0; i < rows.size(); ++i)
    std::cout << (i > 0 && !lines ? "," : "") << to_json(session_json(rows[i]))
              << (lines ? "\n" : "");
  std::cout << (lines ? "" : "]\n");
}

int show_evicted(const Globals& g, Store& store, const Config& config, const SessionRow& s,
                 bool json) {
  auto digest = find_digest(store, s.uid, primary_digester(config));
  boost::json::value digest_json = nullptr;
  if (digest) digest_json = parse_stored_digest(*digest);
  const int64_t kept = s.event_count;  // events stored since the eviction (a grown session)
  const auto unpriced = session_unpriced_models(store, s.uid);
  warn_if_costs_stale(store, effective_price_book(store));
  warn_unpriced(unpriced);
  if (json) {
    std::cout << to_json(boost::json::object{{"session", session_json(s)},
                                             {"events", boost::json::array()},
                                             {"evicted", true},
                                             {"digest", digest_json},
                                             {"unpriced_models", unpriced_json(unpriced)}})
              << "\n";
    return kExitOk;
  }
  print_header(g, s, -1);
  const TimeZone zone = TimeZone::from_option(g.timezone);
  std::cout << fmt::format(
      "\n  The raw transcript (events and their texts) was evicted by retention on {}.\n"
      "  Still here: {}the usage ledger (tokens and cost above){}, and search over the digest.\n",
      zone.minute(s.evicted_at_ms),
      digest ? fmt::format("the digest by {} ({}), ", digest->digester, digest->version) : "",
      kept > 0 ? fmt::format(", {} recorded since", counted(kept, "event", "events")) : "");
  if (digest_json.is_object())
    std::cout << "\n" << digest_summary(digest_json.get_object(), g.style.width, "  ");
  return kExitOk;
}

// One event a line; a subagent's events are indented under the call that launched them.
void print_event(const Globals& g, const TimeZone& zone, const EventRow& e, int depth,
                 bool bodies) {
  std::string what = e.kind;
  if (e.kind == "user_msg") what = "user";
  if (e.kind == "assistant_msg") what = "assistant";
  if (e.kind == "tool_call" || e.kind == "edit" || e.kind == "test_run") what = "→ " + e.tool;
  if (e.kind == "tool_result") what = "← " + e.tool;
  if (e.kind == "error") what = "✗ " + (e.tool.empty() ? std::string("error") : e.tool);
  const std::string time = e.ts_ms > 0 ? zone.minute(e.ts_ms).substr(11) : "     ";
  std::string line = fmt::format("{:>5} {} {:<14} {}{}{}", e.seq, time, fit_width(what, 14),
                                 std::string(2 * static_cast<std::size_t>(depth), ' '),
                                 e.is_sidechain ? "[side] " : "", e.summary);
  if (g.style.width) line = fit_width(line, g.style.width);
  std::cout << (e.kind == "user_msg" ? bold(g.style, line) : line) << "\n";
  if (bodies && !e.text.empty()) std::cout << e.text << "\n";
}

}  // namespace

namespace {

// The digest's cost object as one line; "" without one.
std::string digest_cost_line(const boost::json::object& d) {
  const auto* cost = d.if_contains("cost");
  if (!cost || !cost->is_object()) return {};
  const auto& c = cost->get_object();
  const auto* usd = c.if_contains("cost_usd");
  std::string text = fmt::format(
      "tokens in {} · out {} · cache read {} · cache write {} · {} · cost ${}",
      grouped(number_at(c, "input_tokens")), grouped(number_at(c, "output_tokens")),
      grouped(number_at(c, "cache_read_tokens")), grouped(number_at(c, "cache_creation_tokens")),
      counted(number_at(c, "turns"), "turn", "turns"),
      dollars(usd && usd->is_number() ? usd->to_number<double>() : 0));
  const auto* u = c.if_contains("unpriced_models");
  if (!u || !u->is_array() || u->get_array().empty()) return text;
  std::vector<std::string> models;
  for (const auto& m : u->get_array())
    if (m.is_string()) models.emplace_back(m.get_string());
  return text + " (no price for " + one_of(models) + ")";
}

// The eight most used tools with their counts; "" without a histogram.
std::string digest_tools_line(const boost::json::object& d) {
  const auto* tools = d.if_contains("tool_histogram");
  if (!tools || !tools->is_object()) return {};
  std::vector<std::pair<int64_t, std::string>> counts;
  for (const auto& [tool, n] : tools->get_object())
    counts.emplace_back(n.is_number() ? n.to_number<int64_t>() : 0, std::string(tool));
  std::sort(counts.rbegin(), counts.rend());
  std::string text;
  for (std::size_t i = 0; i < counts.size() && i < 8; ++i)
    text += fmt::format("{}{} {}", i ? ", " : "", counts[i].second, counts[i].first);
  return text;
}

// "errors (N):" and one line per error fingerprint.
std::vector<std::string> digest_error_lines(const boost::json::object& d) {
  const auto* errors = d.if_contains("error_snippets");
  if (!errors || !errors->is_array() || errors->get_array().empty()) return {};
  std::vector<std::string> lines{fmt::format("errors ({}):", errors->get_array().size())};
  for (const auto& e : errors->get_array())
    if (e.is_object())
      lines.push_back(fmt::format("  {}× {}", number_at(e.get_object(), "count"),
                                  text_at(e.get_object(), "sample")));
  return lines;
}

}  // namespace

std::string digest_summary(const boost::json::object& d, std::size_t width,
                           std::string_view indent) {
  std::string out;
  auto line = [&](const std::string& text) {
    const std::string full = std::string(indent) + text;
    out += (width ? fit_width(full, width) : full) + "\n";
  };
  line("outcome " + text_at(d, "outcome"));
  if (auto p = text_at(d, "first_prompt"); !p.empty()) line("first prompt: " + p);
  if (auto a = text_at(d, "last_assistant"); !a.empty()) line("last answer: " + a);
  if (auto cost = digest_cost_line(d); !cost.empty()) line(cost);
  if (auto tools = digest_tools_line(d); !tools.empty()) line("tools: " + tools);
  for (const auto& e : digest_error_lines(d)) line(e);
  if (auto t = text_at(d, "task_ref"); !t.empty()) line("task: " + t);
  return out;
}

int cmd_sessions(const Globals& g, const std::vector<std::string>& args) {
  auto vm = parse_command("sessions", args);
  Config config = load_configuration(g);
  if (vm.count("fleet")) return fleet_sessions(g, config, vm);
  Store store = open_store_for_reading(g, config);
  const TimeZone zone = TimeZone::from_option(g.timezone);
  SessionFilter filter;
  filter.flavor = checked_flavor(store, vm);
  filter.repo = checked_repo(store, vm);
  const TimeRange range = time_range(vm, zone);
  filter.since_ms = range.since_ms;
  filter.until_ms = range.until_ms;
  if (const auto limit = limit_option(vm)) filter.limit = *limit;
  filter.newest_first = true;  // --limit keeps the newest; --reverse then turns the list over
  std::vector<SessionRow> rows = store.sessions(filter);
  if (vm.count("reverse")) std::reverse(rows.begin(), rows.end());
  std::vector<std::string> unpriced;  // sessions with unpriced usage, named after the listing
  for (const auto& s : rows)
    if (s.unpriced_tokens > 0) unpriced.push_back(s.uid);
  warn_if_costs_stale(store, effective_price_book(store));
  warn_unpriced_sessions(store, unpriced);
  if (vm.count("json") || vm.count("jsonl")) {
    print_sessions_json(rows, vm.count("jsonl") > 0);
    return kExitOk;
  }
  start_pager(g.style);
  const ShortIds short_id(store);
  Table table({{"SESSION"},
               {"STARTED"},
               {"REPO", false, 8, 3},
               {"TOKENS", true, 0, 2},
               {"COST", true, 0, 1},
               {"TITLE", false, 16}});
  auto add = [&](const SessionRow& s, int depth) {
    std::string title = s.title;
    if (depth > 0 && !s.forked_from.empty() && s.parent_uid.empty()) title = "(fork) " + title;
    table.add({std::string(2 * static_cast<std::size_t>(depth), ' ') + short_id(s.uid),
               s.started_at_ms ? zone.minute(s.started_at_ms) : "-", s.repo,
               grouped(total_tokens(s.usage)), dollars(s.cost_usd.value_or(0)), title});
  };
  if (vm.count("tree")) {  // subagents under their parents, forks under their origins
    for (const auto& node : session_tree(rows)) add(rows[node.index], node.depth);
  } else {
    for (const auto& s : rows) add(s, 0);
  }
  std::cout << table.render(g.style.width);
  std::cout << counted(static_cast<int64_t>(rows.size()), "session", "sessions") << "\n";
  return kExitOk;
}

int cmd_show(const Globals& g, const std::vector<std::string>& args) {
  auto vm = parse_command("show", args);
  if (vm.count("host") && !vm.count("fleet"))
    throw UsageError("--host selects a host's copy in the fleet: it needs --fleet");
  Config config = load_configuration(g);
  if (vm.count("fleet")) return fleet_show(g, config, vm);
  Store store = open_store_for_reading(g, config);
  const SessionRow session = required_session(store, vm, "show");
  const bool json = vm.count("json") > 0;
  if (session.evicted_at_ms > 0 && session.event_count == 0)
    return show_evicted(g, store, config, session, json);
  auto events = store.events(session.uid, vm.count("bodies") > 0 || json);
  const auto unpriced = session_unpriced_models(store, session.uid);
  warn_if_costs_stale(store, effective_price_book(store));
  warn_unpriced(unpriced);
  if (json) {
    boost::json::array list;
    for (const auto& e : events) list.push_back(event_json(e, true));
    std::cout << to_json(boost::json::object{{"session", session_json(session)},
                                             {"events", std::move(list)},
                                             {"unpriced_models", unpriced_json(unpriced)}})
              << "\n";
    return kExitOk;
  }
  const bool all = vm.count("all") > 0;
  int64_t shown = 0;
  for (const auto& e : events) shown += all || !bookkeeping(e);
  start_pager(g.style);
  print_header(g, session, shown);
  if (shown < static_cast<int64_t>(events.size()))
    std::cout << dim(g.style,
                     fmt::format(
                         "  ({} bookkeeping and context events not listed; --all lists them)",
                         grouped(static_cast<int64_t>(events.size()) - shown)))
              << "\n";
  std::cout << "\n";
  const TimeZone zone = TimeZone::from_option(g.timezone);
  for (const auto& node : nest_subagents(events))  // subagents' events under their calls
    if (const EventRow& e = events[node.index]; all || !bookkeeping(e))
      print_event(g, zone, e, node.depth, vm.count("bodies") > 0);
  return kExitOk;
}

int cmd_status(const Globals& g, const std::vector<std::string>& args) {
  auto vm = parse_command("status", args);
  Config config = load_configuration(g);
  const auto file = store_file(g, config);
  Store store = open_store_for_reading(g, config);
  StoreStatus s = store.status();
  if (vm.count("json")) {
    auto out = status_json(s, file.string());
    add_retention_status(out, store, config, s.tier2_bytes);
    std::cout << to_json(out) << "\n";
    return kExitOk;
  }
  std::cout << fmt::format(
      "store {}\n  {} · {} · {} · {}\n", file.string(), counted(s.sessions, "session", "sessions"),
      counted(s.events, "event", "events"), counted(s.sources, "source", "sources"),
      counted(s.warnings, "warning", "warnings"));
  std::cout << fmt::format("  tier 1 {}  tier 2 {}  file {}\n", human_bytes(s.tier1_bytes),
                           human_bytes(s.tier2_bytes), human_bytes(s.file_bytes));
  for (const auto& [state, n] : s.sources_by_state)
    std::cout << fmt::format("  sources {}: {}\n", state, grouped(n));
  for (const auto& u : s.unread_sources)
    std::cout << (u.state == SourceState::quarantined
                      ? fmt::format("  quarantined {} (plugin '{}'): {}\n", u.path, u.adapter,
                                    u.reason)
                      : fmt::format("  orphaned {} (plugin '{}' is not loaded)\n", u.path,
                                    u.adapter));
  boost::json::object retention;
  add_retention_status(retention, store, config, s.tier2_bytes);
  std::cout << fmt::format("  analyzed {}  evicted {}  evictable {}  data loss events {}\n",
                           grouped(retention["analyzed_sessions"].as_int64()),
                           grouped(retention["evicted_sessions"].as_int64()),
                           human_bytes(retention["evictable_bytes"].as_int64()),
                           grouped(retention["data_loss_events"].as_int64()));
  if (s.warnings > 0) std::cout << "  ('helix-host warnings' lists the warnings)\n";
  return kExitOk;
}

int cmd_warnings(const Globals& g, const std::vector<std::string>& args) {
  auto vm = parse_command("warnings", args);
  Config config = load_configuration(g);
  Store store = open_store_for_reading(g, config);
  const auto counts = warning_counts(store);
  const std::string category = vm.count("category") ? vm["category"].as<std::string>() : "";
  if (!category.empty()) {
    std::vector<std::string> names;
    names.reserve(counts.size());
    for (const auto& c : counts) names.push_back(c.category);
    if (std::find(names.begin(), names.end(), category) == names.end())
      throw UsageError(fmt::format(
          "no warning of category '{}' in the store{}", category,
          names.empty() ? std::string(" (there are none)")
                        : "; categories: " + one_of(names) + did_you_mean(category, names)));
  }
  const int64_t limit = vm["limit"].as<int64_t>();
  const TimeZone zone = TimeZone::from_option(g.timezone);
  if (vm.count("json")) {
    boost::json::array out;
    for_each_warning(store, category, limit, [&](const WarningRow& w) {
      out.push_back({{"category", w.category},
                     {"message", w.message},
                     {"source_path", w.source_path},
                     {"source_offset", w.source_offset},
                     {"at", iso8601(w.at_ms)}});
    });
    std::cout << to_json(out) << "\n";
    return kExitOk;
  }
  start_pager(g.style);
  for (const auto& c : counts)
    if (category.empty() || c.category == category)
      std::cout << fmt::format("{} {}\n", bold(g.style, c.category), grouped(c.count));
  std::string current;
  for_each_warning(store, category, limit, [&](const WarningRow& w) {
    if (w.category != current) std::cout << fmt::format("\n{}:\n", w.category);
    current = w.category;
    const std::string line = fmt::format("  {}  {}:{}  {}", zone.minute(w.at_ms), w.source_path,
                                         w.source_offset, w.message);
    std::cout << (g.style.width ? fit_width(line, g.style.width) : line) << "\n";
  });
  if (counts.empty()) std::cout << "no warnings\n";
  return kExitOk;
}

namespace {

// Sources the plugins could not read (quarantined, orphaned), when there is a store to ask.
std::vector<SourceProblem> unread_sources(const Globals& g, const Config& config) {
  const auto db_file = store_file(g, config);
  std::error_code ec;
  if (!std::filesystem::exists(db_file, ec)) return {};
  Store store(db_file, /*read_only=*/true);
  return store.unread_sources();
}

}  // namespace

int cmd_plugins(const Globals& g, const std::vector<std::string>& args) {
  auto vm = parse_command("plugins", args);
  Config config = load_configuration(g);
  PluginRegistry registry;
  load_plugins(registry, g, config);
  const std::vector<SourceProblem> unread = unread_sources(g, config);
  if (vm.count("json")) {
    boost::json::array loaded, refused;
    for (const auto& p : registry.loaded())
      loaded.push_back({{"name", p.name},
                        {"kind", p.kind},
                        {"version", p.version},
                        {"abi", fmt::format("{}.{}", p.abi_major, p.abi_minor)},
                        {"flavor", p.adapter ? boost::json::value(p.adapter->flavor)
                                             : boost::json::value(nullptr)},
                        {"description", p.description},
                        {"path", p.path.string()}});
    for (const auto& r : registry.refused())
      refused.push_back({{"path", r.path.string()}, {"reason", r.reason}});
    boost::json::array unread_json;
    for (const auto& u : unread)
      unread_json.push_back({{"path", u.path},
                             {"state", to_string(u.state)},
                             {"plugin", u.adapter},
                             {"reason", u.reason}});
    std::cout << to_json(boost::json::object{
                     {"host_abi", fmt::format("{}.{}", HELIX_ABI_MAJOR, HELIX_ABI_MINOR)},
                     {"loaded", std::move(loaded)},
                     {"refused", std::move(refused)},
                     {"unread_sources", std::move(unread_json)}})
              << "\n";
    return kExitOk;
  }
  Table table({{"NAME"}, {"KIND"}, {"VERSION"}, {"ABI"}, {"PATH", false, 20}});
  for (const auto& p : registry.loaded())
    table.add({p.name, p.kind, p.version, fmt::format("{}.{}", p.abi_major, p.abi_minor),
               p.path.string()});
  std::cout << table.render(g.style.width);
  for (const auto& u : unread)
    if (u.state == SourceState::quarantined)
      std::cout << fmt::format("quarantined: {} by plugin '{}': {}\n", u.path, u.adapter, u.reason);
    else
      std::cout << fmt::format("orphaned: {}: its plugin '{}' is not loaded\n", u.path, u.adapter);
  for (const auto& r : registry.refused())
    std::cout << fmt::format("refused: {}: {}\n", r.path.string(), r.reason);
  return kExitOk;
}

int cmd_config(const Globals& g, const std::vector<std::string>& args) {
  auto vm = parse_command("config", args);
  Config config = load_configuration(g);
  const auto file = store_file(g, config);
  const std::string source = describe_store_choice(g.store_dir, config.store_dir);
  if (vm.count("json")) {
    boost::json::object out{
        {"config_file", config.file.empty() ? boost::json::value(nullptr)
                                            : boost::json::value(config.file.string())},
        {"store", file.string()},
        {"store_source", source},
        {"plugin_dirs",
         boost::json::value_from(g.plugin_dirs.empty() ? config.plugin_dirs : g.plugin_dirs)},
        {"digesters", boost::json::value_from(config.digesters)},
        {"retention",
         {{"raw_soft_cap_bytes", config.retention.raw_soft_cap_bytes},
          {"raw_hard_cap_bytes", config.retention.raw_hard_cap_bytes},
          {"raw_max_age_days", config.retention.raw_max_age_days},
          {"distilled_cap_bytes", config.retention.distilled_cap_bytes},
          {"cadence", config.retention.cadence}}},
        {"toml", to_toml(config)}};
    std::cout << to_json(out) << "\n";
    return kExitOk;
  }
  // The directories in effect: --plugins replaces [plugins] dirs (see load_plugins).
  if (!g.plugin_dirs.empty()) config.plugin_dirs = g.plugin_dirs;
  std::cout << to_toml(config);
  if (!g.plugin_dirs.empty()) std::cout << "# [plugins] dirs in effect: from --plugins\n";
  std::cout << fmt::format("# store file in effect: {} ({})\n", file.string(), source);
  return kExitOk;
}

}  // namespace helix

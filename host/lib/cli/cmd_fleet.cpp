#include "cli/cmd_fleet.hpp"

#include "base/json_text.hpp"
#include "base/text.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/table.hpp"
#include "fleet/fleet_connection.hpp"
#include "fleet/fleet_push.hpp"
#include "fleet/fleet_reader.hpp"
#include "fleet/fleet_schema.hpp"
#include "fleet/pg.hpp"
#include "recall/session_json.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <memory>

namespace helix {
namespace po = boost::program_options;

namespace {

// Connected and its schema checked; a configuration mistake (no [fleet], a bad team, a password
// in clear) is the user's to fix: exit 2.
std::unique_ptr<FleetReader> open_fleet(const Config& config) {
  try {
    return std::make_unique<FleetReader>(config.fleet);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

boost::json::value text_or_null(const std::string& s) {
  return s.empty() ? boost::json::value(nullptr) : boost::json::value(s);
}

void add_origin(boost::json::object& o, const FleetOrigin& origin) {
  o["team"] = origin.team;
  o["host_id"] = origin.host_id;
  o["host_name"] = origin.host_name;
  o["member"] = origin.member;
}

boost::json::object fleet_session_json(const FleetSession& f) {
  auto o = session_json(f.row);
  add_origin(o, f.origin);
  o["pushed_at"] = iso8601(f.pushed_at_ms);
  return o;
}

// A pushed event: what show --json prints of a local event, without what never leaves its
// host (the raw record's reference, the file and the position in it) or the per-event tokens.
boost::json::object fleet_event_json(const EventRow& e) {
  auto o = event_json(e, /*with_bodies=*/true);
  for (const char* local_only :
       {"payload_ref", "source_path", "source_offset", "ordinal", "tokens"})
    o.erase(local_only);
  return o;
}

std::string report_line(const PushReport& r) {
  return fmt::format(
      "push: {} sessions ({} already there), {} digests, {} usage rows, {} events in {:.2f} s "
      "({}) to team {} as host {} ({}), login {}",
      r.sessions, r.unchanged, r.digests, r.usage_rows, r.events, r.seconds, human_bytes(r.bytes),
      r.team, r.host_name, r.host_id, r.member);
}

boost::json::object report_json(const PushReport& r) {
  return {{"team", r.team},
          {"host_id", r.host_id},
          {"host_name", r.host_name},
          {"member", r.member},
          {"sessions", r.sessions},
          {"unchanged", r.unchanged},
          {"digests", r.digests},
          {"usage_rows", r.usage_rows},
          {"events", r.events},
          {"batches", r.batches},
          {"bytes", r.bytes},
          {"seconds", r.seconds},
          {"mark", {{"version", r.mark.version}, {"session_uid", r.mark.uid}}}};
}

// What the user reads when a push stops early: how far it got and that the next one resumes.
std::string stopped_message(const std::exception& e, const PushReport& progress) {
  return fmt::format(
      "push stopped: {}\n  {} sessions were pushed before it stopped; the fleet keeps them and "
      "the next push resumes after them",
      e.what(), progress.sessions);
}

int migrate_command(const Config& config, const po::variables_map& vm) {
  const std::string connection = vm.count("connection") ? vm["connection"].as<std::string>() : "";
  std::unique_ptr<pg::Connection> db;
  try {
    db = connect_fleet(config.fleet, /*need_team=*/false, connection);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const auto report = fleet_migrate(*db);
  if (vm.count("json"))
    std::cout << to_json(boost::json::object{{"from", report.from},
                                             {"to", report.to},
                                             {"search_indexed", report.search_indexed}})
              << "\n";
  else if (report.from == report.to)
    std::cout << fmt::format("fleet schema: version {}, up to date\n", report.to);
  else
    std::cout << fmt::format("fleet schema: migrated from version {} to {}\n", report.from,
                             report.to);
  if (!report.search_indexed)
    std::cerr << "helix-host: fleet search cannot use its indexes under row-level security "
                 "until a superuser runs 'helix-host fleet migrate' once (it marks "
                 "ts_match_vq LEAKPROOF in this database); until then every search reads "
                 "every text\n";
  return kExitOk;
}

int grant_command(const po::variables_map& vm) {
  auto list = [&](const char* name) {
    return vm.count(name) ? vm[name].as<std::vector<std::string>>() : std::vector<std::string>();
  };
  const std::string team = vm.count("team") ? vm["team"].as<std::string>() : "";
  if (team.empty() && !vm.count("admin"))
    throw UsageError("fleet grant needs --team T (with --member LOGIN...) or --admin LOGIN");
  try {
    const std::string sql = fleet_grant_sql(team, list("member"), list("admin"));
    if (vm.count("json"))
      std::cout << to_json(boost::json::object{{"team", team.empty() ? boost::json::value(nullptr)
                                                                     : boost::json::value(team)},
                                               {"members", boost::json::value_from(list("member"))},
                                               {"admins", boost::json::value_from(list("admin"))},
                                               {"sql", sql}})
                << "\n";
    else
      std::cout << sql;
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  return kExitOk;
}

}  // namespace

int cmd_push(const Globals& g, const std::vector<std::string>& args) {
  auto vm = parse_command("push", args);
  Config config = load_configuration(g);
  try {
    check_fleet_config(config.fleet, /*need_team=*/true);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  Store store = open_store_for_reading(g, config);
  const bool live = ::isatty(STDERR_FILENO) && !vm.count("quiet") && !vm.count("json");
  PushReport progress;
  PushOptions options;
  options.full = vm.count("full") > 0;
  options.after_batch = [&](const PushReport& r) {
    progress = r;
    if (live) std::cerr << fmt::format("\rhelix: pushed {} sessions", r.sessions) << std::flush;
  };
  PushReport report;
  try {
    report = push_to_fleet(store, config.fleet, options);
  } catch (const PushBusy& e) {
    std::cerr << fmt::format("helix-host: {}; try again when it has finished\n", e.what());
    return kExitBusy;
  } catch (const pg::Error& e) {
    if (live) std::cerr << "\n";
    std::cerr << "helix-host: " << stopped_message(e, progress) << "\n";
    return kExitFailure;
  }
  if (live) std::cerr << "\n";
  if (vm.count("json"))
    std::cout << to_json(report_json(report)) << "\n";
  else if (!vm.count("quiet"))
    std::cout << report_line(report) << "\n";
  return kExitOk;
}

int cmd_fleet(const Globals& g, const std::vector<std::string>& args) {
  auto vm = parse_command("fleet", args);
  if (!vm.count("action"))
    throw UsageError("fleet needs a subcommand: migrate or grant (helix-host fleet --help)");
  const std::string action = vm["action"].as<std::string>();
  // Each subcommand's options are its own: one given to the other is a mistake, not ignored.
  const bool grant = action == "grant";
  for (const char* name : grant ? std::vector<const char*>{"connection"}
                                : std::vector<const char*>{"team", "member", "admin"})
    if (vm.count(name))
      throw UsageError(fmt::format("--{} is an option of 'fleet {}', not of 'fleet {}'", name,
                                   grant ? "migrate" : "grant", action));
  if (grant) return grant_command(vm);
  return migrate_command(load_configuration(g), vm);
}

std::string push_step_line(const PushStep& step) {
  if (step.problem.empty()) return report_line(step.report);
  if (step.busy) return fmt::format("push skipped: {}", step.problem);
  return stopped_message(std::runtime_error(step.problem), step.report);
}

namespace {

SessionFilter fleet_session_filter(const po::variables_map& vm, const TimeZone& zone) {
  SessionFilter filter;
  if (vm.count("flavor")) filter.flavor = vm["flavor"].as<std::string>();
  filter.repo = repo_option(vm);
  const TimeRange range = time_range(vm, zone);
  filter.since_ms = range.since_ms;
  filter.until_ms = range.until_ms;
  if (const auto limit = limit_option(vm)) filter.limit = *limit;
  filter.newest_first = true;  // as the local listing: --limit keeps the newest
  return filter;
}

// One session of a JSON array (`lines` false: `written` says whether a comma goes first) or
// of JSON lines.
void write_session_json(const FleetSession& s, bool lines, std::size_t& written) {
  if (!lines && written++ > 0) std::cout << ',';
  std::cout << to_json(fleet_session_json(s)) << (lines ? "\n" : "");
}

void print_sessions_table(const Globals& g, const TimeZone& zone,
                          const std::vector<FleetSession>& sessions, const std::string& team) {
  start_pager(g.style);
  Table table({{"SESSION"},
               {"HOST", false, 8, 4},
               {"MEMBER", false, 6, 5},
               {"STARTED"},
               {"REPO", false, 8, 3},
               {"TOKENS", true, 0, 2},
               {"COST", true, 0, 1},
               {"TITLE", false, 16}});
  for (const auto& f : sessions) {
    const SessionRow& s = f.row;
    const UsageTotals& u = s.usage;
    table.add(
        {s.uid, f.origin.host_name, f.origin.member,
         s.started_at_ms ? zone.minute(s.started_at_ms) : "-", s.repo,
         grouped(u.input_tokens + u.output_tokens + u.cache_creation_tokens + u.cache_read_tokens),
         dollars(s.cost_usd.value_or(0)), s.title});
  }
  std::cout << table.render(g.style.width);
  std::cout << counted(static_cast<int64_t>(sessions.size()), "session", "sessions") << " in team "
            << team << "\n";
}

}  // namespace

int fleet_sessions(const Globals& g, const Config& config, const po::variables_map& vm) {
  reject_with_fleet(vm, {"tree"});
  const TimeZone zone = TimeZone::from_option(g.timezone);
  const SessionFilter filter = fleet_session_filter(vm, zone);
  const auto fleet = open_fleet(config);
  const bool json = vm.count("json") > 0, jsonl = vm.count("jsonl") > 0;
  // JSON is written as read (flat memory for a large team) unless --reverse turns it over.
  const bool stream = (json || jsonl) && !vm.count("reverse");
  std::vector<FleetSession> sessions;
  std::size_t written = 0;
  if (json) std::cout << '[';
  fleet->for_each_session(filter, [&](const FleetSession& s) {
    if (stream)
      write_session_json(s, jsonl, written);
    else
      sessions.push_back(s);
  });
  if (vm.count("reverse")) std::reverse(sessions.begin(), sessions.end());
  if (!json && !jsonl) {
    print_sessions_table(g, zone, sessions, config.fleet.team);
    return kExitOk;
  }
  for (const auto& s : sessions) write_session_json(s, jsonl, written);
  if (json) std::cout << "]\n";
  return kExitOk;
}

namespace {

void print_fleet_copy(const Globals& g, const TimeZone& zone, const FleetSessionDetail& c,
                      bool bodies) {
  const auto& s = c.session.row;
  auto when = [&](int64_t ms) { return ms > 0 ? zone.minute(ms) : std::string("-"); };
  std::cout << bold(g.style, fmt::format("{}  {}", s.uid, s.title)) << "\n";
  std::cout << fmt::format("  host {} ({})  member {}  pushed {}\n", c.session.origin.host_name,
                           c.session.origin.host_id, c.session.origin.member,
                           when(c.session.pushed_at_ms));
  std::cout << fmt::format("  repo {}  cwd {}  branch {}  model {}  outcome {}\n", s.repo, s.cwd,
                           s.git_branch, s.model, s.outcome);
  std::cout << fmt::format("  {} -> {}  events {}  tokens in {} out {} cache read {} write {}\n",
                           when(s.started_at_ms), when(s.ended_at_ms), grouped(s.event_count),
                           grouped(s.usage.input_tokens), grouped(s.usage.output_tokens),
                           grouped(s.usage.cache_read_tokens),
                           grouped(s.usage.cache_creation_tokens));
  for (const auto& d : c.digests)
    std::cout << fmt::format("  digest by {} {}: {}\n", d.digester, d.version,
                             one_line(d.json, 300));
  if (c.events.empty())
    std::cout << dim(g.style, "  (no events pushed: [fleet] events = false on its host)") << "\n";
  for (const auto& e : c.events) {
    const std::string line =
        fmt::format("{:>5} {:<16} {:<18} {:<14} {}{}", e.seq, when(e.ts_ms), e.kind, e.tool,
                    e.is_sidechain ? "[side] " : "", one_line(e.summary, 400));
    std::cout << (g.style.width ? fit_width(line, g.style.width) : line) << "\n";
    if (bodies && !e.text.empty()) std::cout << e.text << "\n";
  }
}

}  // namespace

int fleet_show(const Globals& g, const Config& config, const po::variables_map& vm) {
  reject_with_fleet(vm, {"all"});
  if (!vm.count("id"))
    throw UsageError("show --fleet needs a session uid, e.g. claude:b95b85fd-...");
  const std::string uid = vm["id"].as<std::string>();
  const std::string host_id = vm.count("host") ? vm["host"].as<std::string>() : "";
  const auto fleet = open_fleet(config);
  const auto copies = fleet->show(uid, host_id);
  if (copies.empty())
    throw NotFound(
        fmt::format("no session {} in team {}'s fleet{} (the fleet knows sessions by "
                    "their full uid: helix-host sessions --fleet lists them)",
                    uid, config.fleet.team, host_id.empty() ? "" : " from host " + host_id));
  if (vm.count("json")) {  // one object per host that pushed the session
    boost::json::array out;
    for (const auto& c : copies) {
      boost::json::array digests, events;
      for (const auto& d : c.digests)
        digests.push_back({{"digester", d.digester},
                           {"version", d.version},
                           {"digested_at", text_or_null(iso8601(d.digested_at_ms))},
                           {"digest", boost::json::parse(d.json)}});
      for (const auto& e : c.events) events.push_back(fleet_event_json(e));
      out.push_back({{"session", fleet_session_json(c.session)},
                     {"digests", std::move(digests)},
                     {"events", std::move(events)}});
    }
    std::cout << to_json(out) << "\n";
    return kExitOk;
  }
  start_pager(g.style);
  const TimeZone zone = TimeZone::from_option(g.timezone);
  for (const auto& c : copies) print_fleet_copy(g, zone, c, vm.count("bodies") > 0);
  return kExitOk;
}

namespace {

boost::json::object fleet_hit_json(const FleetHit& f) {
  const auto& h = f.hit;
  boost::json::object o{{"session_uid", h.session_uid},
                        {"flavor", h.flavor},
                        {"repo", text_or_null(h.repo)},
                        {"title", text_or_null(h.title)},
                        {"ts", text_or_null(iso8601(h.ts_ms))},
                        {"kind", h.kind},
                        {"tool", text_or_null(h.tool)},
                        {"seq", h.seq >= 0 ? boost::json::value(h.seq) : nullptr},
                        {"tier", h.kind == "digest" ? 2 : 1},
                        {"rank", h.rank},
                        {"snippet", h.snippet}};
  add_origin(o, f.origin);
  return o;
}

SearchQuery fleet_query(const Globals& g, const po::variables_map& vm, const std::string& text) {
  SearchQuery q;
  q.match = text;  // web-search syntax: PostgreSQL reads any text without a syntax error
  if (vm.count("flavor")) q.flavor = vm["flavor"].as<std::string>();
  q.repo = repo_option(vm);
  if (vm.count("kind")) q.kind = vm["kind"].as<std::string>();
  q.since_ms = time_range(vm, TimeZone::from_option(g.timezone)).since_ms;
  q.limit = *limit_option(vm);  // it has a default
  const bool marked = g.style.color && !vm.count("json") && !vm.count("jsonl");
  q.mark_open = marked ? "\033[1;33m" : "";
  q.mark_close = marked ? "\033[0m" : "";
  return q;
}

void print_hits(const Globals& g, const std::vector<FleetHit>& hits, const std::string& team) {
  start_pager(g.style);
  const TimeZone zone = TimeZone::from_option(g.timezone);
  auto print = [&](const std::string& line) {
    std::cout << (g.style.width ? fit_width(line, g.style.width) : line) << "\n";
  };
  for (const auto& f : hits) {
    const auto& h = f.hit;
    const std::string where = h.kind == "digest" ? "digest"
                                                 : fmt::format("#{} {}{}", h.seq, h.kind,
                                                               h.tool.empty() ? "" : " " + h.tool);
    print(bold(g.style, fmt::format("{}  {}  {}  {} ({}, {})", h.session_uid,
                                    h.ts_ms > 0 ? zone.minute(h.ts_ms) : "-", where, h.title,
                                    f.origin.host_name, f.origin.member)));
    print(fmt::format("    {}", one_line(h.snippet, 400)));
  }
  std::cout << counted(static_cast<int64_t>(hits.size()), "hit", "hits") << " in team " << team
            << "\n";
}

}  // namespace

int fleet_search(const Globals& g, const Config& config, const po::variables_map& vm,
                 const std::string& text) {
  reject_with_fleet(vm, {"until", "fts"});
  const SearchQuery q = fleet_query(g, vm, text);
  const auto fleet = open_fleet(config);
  const auto hits = fleet->search(q);
  if (vm.count("jsonl")) {
    for (const auto& f : hits) std::cout << to_json(fleet_hit_json(f)) << "\n";
  } else if (vm.count("json")) {
    boost::json::array out;
    for (const auto& f : hits) out.push_back(fleet_hit_json(f));
    std::cout << to_json(out) << "\n";
  } else {
    print_hits(g, hits, config.fleet.team);
  }
  return kExitOk;
}

}  // namespace helix

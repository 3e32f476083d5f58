#include "cli/cmd_fleet.hpp"

#include "base/text.hpp"
#include "cli/exit_codes.hpp"
#include "fleet/fleet_connection.hpp"
#include "fleet/fleet_push.hpp"
#include "fleet/fleet_reader.hpp"
#include "fleet/fleet_schema.hpp"
#include "fleet/pg.hpp"
#include "recall/session_json.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <iostream>

namespace helix {
namespace po = boost::program_options;

namespace {

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

int migrate_command(const Config& config, const std::vector<std::string>& args) {
  po::options_description opts("fleet migrate options");
  opts.add_options()("connection", po::value<std::string>(),
                     "libpq connection string of an administrator (default: [fleet] connection)");
  auto vm = parse_command(args, opts);
  const std::string connection = vm.count("connection") ? vm["connection"].as<std::string>() : "";
  std::unique_ptr<pg::Connection> db;
  try {
    db = connect_fleet(config.fleet, /*need_team=*/false, connection);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const auto report = fleet_migrate(*db);
  if (report.from == report.to)
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

int grant_command(const std::vector<std::string>& args) {
  po::options_description opts("fleet grant options");
  opts.add_options()("team", po::value<std::string>(), "the team ([a-z0-9_], 1 to 40)")(
      "member", po::value<std::vector<std::string>>()->composing(),
      "a login that pushes and reads for the team (repeatable)")(
      "admin", po::value<std::vector<std::string>>()->composing(),
      "a login that reads and writes every team (repeatable)");
  auto vm = parse_command(args, opts);
  auto list = [&](const char* name) {
    return vm.count(name) ? vm[name].as<std::vector<std::string>>() : std::vector<std::string>();
  };
  const std::string team = vm.count("team") ? vm["team"].as<std::string>() : "";
  if (team.empty() && !vm.count("admin"))
    throw UsageError("fleet grant needs --team T (with --member LOGIN...) or --admin LOGIN");
  try {
    std::cout << fleet_grant_sql(team, list("member"), list("admin"));
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  return kExitOk;
}

}  // namespace

int cmd_push(const Globals& g, const std::vector<std::string>& args) {
  po::options_description opts("push options");
  opts.add_options()("full", "offer every session again, not only those changed since the mark")(
      "json", "the report as JSON")("quiet,q", "print only problems");
  auto vm = parse_command(args, opts);
  Config config = load_config(g.config_file);
  try {
    check_fleet_config(config.fleet, /*need_team=*/true);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  Store store(store_file(g, config), /*read_only=*/true);
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
    std::cout << boost::json::serialize(report_json(report)) << "\n";
  else if (!vm.count("quiet"))
    std::cout << report_line(report) << "\n";
  return kExitOk;
}

int cmd_fleet(const Globals& g, const std::vector<std::string>& args) {
  if (args.empty()) throw UsageError("fleet needs a subcommand: migrate or grant");
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "grant") return grant_command(rest);
  if (args[0] == "migrate") return migrate_command(load_config(g.config_file), rest);
  throw UsageError(fmt::format("unknown fleet subcommand '{}' (migrate or grant)", args[0]));
}

std::string push_step_line(const PushStep& step) {
  if (step.problem.empty()) return report_line(step.report);
  if (step.busy) return fmt::format("push skipped: {}", step.problem);
  return stopped_message(std::runtime_error(step.problem), step.report);
}

int fleet_sessions(const Config& config, const po::variables_map& vm, const SessionFilter& filter) {
  FleetReader fleet(config.fleet);
  const int64_t limit = vm.count("limit") ? vm["limit"].as<int64_t>() : 0;
  std::size_t n = 0;
  if (vm.count("json")) {
    std::cout << '[';
    fleet.for_each_session(filter, limit, [&](const FleetSession& s) {
      if (n++ > 0) std::cout << ',';
      std::cout << boost::json::serialize(fleet_session_json(s));
    });
    std::cout << "]\n";
    return kExitOk;
  }
  std::cout << fmt::format("{:<50} {:<16} {:<12} {:<20} {:>7} {:>10} {:>9}  {:<20} {}\n", "SESSION",
                           "HOST", "MEMBER", "STARTED", "EVENTS", "INPUT", "OUTPUT", "REPO",
                           "TITLE");
  fleet.for_each_session(filter, limit, [&](const FleetSession& f) {
    ++n;
    const auto& s = f.row;
    std::cout << fmt::format("{:<50} {:<16} {:<12} {:<20} {:>7} {:>10} {:>9}  {:<20} {}\n", s.uid,
                             one_line(f.origin.host_name, 16), one_line(f.origin.member, 12),
                             iso8601(s.started_at_ms).substr(0, 19), s.event_count,
                             s.usage.input_tokens, s.usage.output_tokens, s.repo,
                             one_line(s.title, 60));
  });
  std::cout << fmt::format("{} sessions in team {}\n", n, config.fleet.team);
  return kExitOk;
}

int fleet_show(const Config& config, const std::string& uid, const std::string& host_id, bool json,
               bool bodies) {
  FleetReader fleet(config.fleet);
  const auto copies = fleet.show(uid, host_id);
  if (copies.empty()) {
    std::cerr << fmt::format("helix-host: no session {} in team {}'s fleet{}\n", uid,
                             config.fleet.team, host_id.empty() ? "" : " from host " + host_id);
    return kExitNotFound;
  }
  if (json) {  // one object per host that pushed the session
    boost::json::array out;
    for (const auto& c : copies) {
      boost::json::array digests, events;
      for (const auto& d : c.digests)
        digests.push_back({{"digester", d.digester},
                           {"version", d.version},
                           {"digested_at", text_or_null(iso8601(d.digested_at_ms))},
                           {"digest", boost::json::parse(d.json)}});
      for (const auto& e : c.events) events.push_back(fleet_event_json(e));
      boost::json::object o{{"session", fleet_session_json(c.session)},
                            {"digests", std::move(digests)},
                            {"events", std::move(events)}};
      out.push_back(std::move(o));
    }
    std::cout << boost::json::serialize(out) << "\n";
    return kExitOk;
  }
  for (const auto& c : copies) {
    const auto& s = c.session.row;
    std::cout << fmt::format("{}  {}\n  host {} ({})  member {}  pushed {}\n", s.uid, s.title,
                             c.session.origin.host_name, c.session.origin.host_id,
                             c.session.origin.member, iso8601(c.session.pushed_at_ms));
    std::cout << fmt::format("  repo {}  cwd {}  branch {}  model {}  outcome {}\n", s.repo, s.cwd,
                             s.git_branch, s.model, s.outcome);
    std::cout << fmt::format("  {} -> {}  events {}  tokens in {} out {} cache read {} write {}\n",
                             iso8601(s.started_at_ms), iso8601(s.ended_at_ms), s.event_count,
                             s.usage.input_tokens, s.usage.output_tokens, s.usage.cache_read_tokens,
                             s.usage.cache_creation_tokens);
    for (const auto& d : c.digests)
      std::cout << fmt::format("  digest by {} {}: {}\n", d.digester, d.version,
                               one_line(d.json, 300));
    if (c.events.empty()) std::cout << "  (no events pushed: [fleet] events = false on its host)\n";
    for (const auto& e : c.events) {
      std::cout << fmt::format("{:>5} {:<19} {:<18} {:<14} {}{}\n", e.seq,
                               iso8601(e.ts_ms).substr(0, 19), e.kind, e.tool,
                               e.is_sidechain ? "[side] " : "", e.summary);
      if (bodies && !e.text.empty()) std::cout << e.text << "\n";
    }
  }
  return kExitOk;
}

int fleet_search(const Config& config, const SearchQuery& query, bool json) {
  FleetReader fleet(config.fleet);
  const auto hits = fleet.search(query);
  if (json) {
    boost::json::array out;
    for (const auto& f : hits) {
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
      out.push_back(std::move(o));
    }
    std::cout << boost::json::serialize(out) << "\n";
    return kExitOk;
  }
  for (const auto& f : hits) {
    const auto& h = f.hit;
    std::cout << fmt::format(
        "{}  {}  {}{}  {} ({}, {})\n", h.session_uid, iso8601(h.ts_ms).substr(0, 19), h.kind,
        h.tool.empty() ? "" : " " + h.tool, h.title, f.origin.host_name, f.origin.member);
    std::cout << fmt::format("    {}\n", one_line(h.snippet, 400));
  }
  std::cout << fmt::format("{} hit{}\n", hits.size(), hits.size() == 1 ? "" : "s");
  return kExitOk;
}

}  // namespace helix

#include "cli/cli.hpp"
#include "cli/exit_codes.hpp"

#include "app/pipeline.hpp"
#include "cli/cli_support.hpp"
#include "cli/cmd_digest.hpp"
#include "cli/cmd_fleet.hpp"
#include "cli/cmd_hook.hpp"
#include "cli/cmd_prices.hpp"
#include "cli/cmd_recall.hpp"
#include "cli/cmd_retention.hpp"
#include "cli/cost_notes.hpp"
#include "recall/session_json.hpp"
#include "recall/session_tree.hpp"
#include "store/digest_store.hpp"
#include "store/price_store.hpp"
#include "store/store.hpp"
#include "store/sweep_lock.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>
#include <boost/program_options.hpp>
#include <iostream>

namespace helix {
namespace po = boost::program_options;

namespace {

constexpr const char* kUsage = R"(usage: helix-host [global options] <command> [command options]

commands:
  sweep                 ingest new and changed agent transcripts into the store
  sessions              list stored sessions   [--json --tree --flavor F --repo R --since DATE
                                                --fleet --limit N]
  show <uid>            one session and its events   [--json --bodies --all --fleet --host ID]
  status                store counts and sizes   [--json]
  plugins               loaded and refused plugins
  config                the effective configuration
  search <query>        full-text search   [--json --flavor F --repo R --since DATE --kind K --limit N --fleet]
  export <uid>          a session as markdown, HTML, JSON or JSONL   [--format md|html|json|jsonl --out FILE]
  resume <uid>          the agent's own command that resumes a session   [--json]
  report --html         a dashboard of a date range, with a page per session   [--since D --until D --out DIR]
  mcp                   a Model Context Protocol server on stdin/stdout, for agents   [--all-repos --fleet]
  digest <uid>          one session's digest, without sweeping   [--json --digester NAME]
  env <uid>             the HELIX_* export lines of a digested session
  usage                 token and cost totals   [--by day|session|model|repo|flavor --since DATE --flavor F --json]
                        --fleet: the team's, also --by month|host|member
  prices                the price book every cost is computed with   [--json]
  prices import FILE    add a newer LiteLLM price file to the store (prices forget: drop them)
  evict                 drop analyzed raw data under the retention budget   [--dry-run --json]
  hook <flavor>         ingest one session now, from an agent hook (always exits 0)
  push                  send what changed since the last push to the team's fleet database   [--full --json --quiet]
  fleet migrate         create or upgrade the fleet database's schema (administrators)   [--connection C]
  fleet grant           print the SQL that gives a team and its members access   [--team T --member LOGIN --admin LOGIN]

)";

void print_sweep_step(const SweepReport& r, const std::filesystem::path& db_file, bool quiet);

int cmd_sweep(const Globals& g, const std::vector<std::string>& args) {
  po::options_description opts("sweep options");
  opts.add_options()("quiet,q", "print only problems")(
      "retry-quarantined", "read quarantined sources again (a plugin crashed or hung on them)")(
      "reparse", po::value<std::vector<std::string>>()->composing(),
      "read every source of this adapter plugin again from its start (repeatable)");
  auto vm = parse_command(args, opts);
  SweepOptions options;
  options.retry_quarantined = vm.count("retry-quarantined") > 0;
  if (vm.count("reparse")) options.reparse = vm["reparse"].as<std::vector<std::string>>();
  Config config = load_config(g.config_file);
  PluginRegistry registry;
  load_plugins(registry, g, config);
  print_refusals(registry);
  if (registry.adapters().empty())
    throw UsageError("no adapter plugins loaded; pass --plugins DIR or set [plugins] dirs");
  for (const auto& name : options.reparse)
    if (const PluginInfo* p = registry.find(name); !p || !p->adapter)
      throw UsageError(fmt::format("--reparse {}: no adapter plugin of that name is loaded", name));
  auto db_file = store_file(g, config);
  SweepLock lock(db_file);
  if (!lock.acquired()) {
    std::cerr << fmt::format(
        "helix-host: another sweep is running on {}; try again when it "
        "has finished\n",
        db_file.string());
    return kExitBusy;
  }
  Store store(db_file);
  const bool quiet = vm.count("quiet") > 0;
  const bool live = ::isatty(STDERR_FILENO) && !quiet;
  Pipeline pipeline(store, registry, config);
  const PipelineReport report = pipeline.sweep_all(
      [&](std::size_t done, std::size_t total, const std::string&) {
        if (live && (done % 16 == 0 || done == total))
          std::cerr << fmt::format("\rhelix: swept {}/{} sources", done, total) << std::flush;
        if (live && done == total) std::cerr << "\n";
      },
      options);
  print_sweep_step(report.sweep, db_file, quiet);
  print_digest_step(report.digest, quiet);
  if (report.retention) print_retention_step(*report.retention, quiet);
  if (report.push) {  // a failed push does not fail the sweep
    if (!report.push->problem.empty())
      std::cerr << "helix-host: " << push_step_line(*report.push) << "\n";
    else if (!quiet)
      std::cout << "  " << push_step_line(*report.push) << "\n";
  }
  const SweepReport& r = report.sweep;
  if (r.store_failures > 0) return kExitStoreFailed;
  return r.sources_quarantined + r.sources_still_quarantined > 0 ? kExitQuarantined : kExitOk;
}

void print_sweep_step(const SweepReport& r, const std::filesystem::path& db_file, bool quiet) {
  if (!quiet) {
    std::cout << fmt::format(
        "sweep: {} sources ({} new, {} changed, {} unchanged, {} rewritten, {} unclaimed, "
        "{} missing, {} failed)\n",
        r.sources_seen, r.sources_new, r.sources_changed, r.sources_unchanged, r.sources_rewritten,
        r.sources_unclaimed, r.sources_missing, r.sources_failed);
    std::cout << fmt::format(
        "  sessions touched {}, events added {} ({} copies skipped), usage "
        "records {}\n",
        r.sessions_touched.size(), r.events_added, r.copies_skipped, r.usage_records);
    if (r.events_unchanged + r.events_replaced + r.events_removed > 0)
      std::cout << fmt::format(
          "  documents read whole again: events unchanged {}, replaced {}, removed {} "
          "(new ones are in events added; kept events keep their seq)\n",
          r.events_unchanged, r.events_replaced, r.events_removed);
    std::cout << fmt::format("  read {} in {:.2f} s into {}\n", human_bytes(r.bytes_read),
                             r.seconds, db_file.string());
    if (r.sources_quarantined + r.sources_still_quarantined + r.sources_orphaned +
            r.sources_reparsed >
        0)
      std::cout << fmt::format(
          "  quarantined {} ({} new), orphaned {}, re-parsed for a new adapter version {}\n",
          r.sources_quarantined + r.sources_still_quarantined, r.sources_quarantined,
          r.sources_orphaned, r.sources_reparsed);
    if (r.paths_refused > 0)
      std::cout << fmt::format(
          "  refused {} (credential files, links out of the roots, unreadable folders: named "
          "below)\n",
          r.paths_refused);
    if (!r.warnings_by_category.empty()) {
      std::cout << "  warnings:";
      for (const auto& [category, n] : r.warnings_by_category)
        std::cout << fmt::format(" {} {}", category, n);
      std::cout << "\n";
    }
  }
  for (const auto& p : r.problems) std::cerr << "helix-host: " << p << "\n";
}

int cmd_sessions(const Globals& g, const std::vector<std::string>& args) {
  po::options_description opts("sessions options");
  opts.add_options()("json", "JSON array")("flavor", po::value<std::string>(), "only this flavor")(
      "repo", po::value<std::string>(), "only this repository")(
      "since", po::value<std::string>(), "only sessions active since DATE (YYYY-MM-DD)")(
      "tree", "subagent sessions under their parents, forks under their origins")(
      "fleet", "the team's pushed sessions, from the fleet database")(
      "limit", po::value<int64_t>(), "--fleet: at most N sessions");
  auto vm = parse_command(args, opts);
  SessionFilter filter;
  if (vm.count("flavor")) filter.flavor = vm["flavor"].as<std::string>();
  if (vm.count("repo")) filter.repo = vm["repo"].as<std::string>();
  if (vm.count("since")) {
    try {
      filter.since_ms = parse_date(vm["since"].as<std::string>());
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  Config config = load_config(g.config_file);
  if (vm.count("fleet")) return fleet_sessions(config, vm, filter);
  Store store(store_file(g, config), /*read_only=*/true);
  // Written as read, one session at a time: memory stays flat however many sessions there are.
  std::size_t n = 0;
  std::vector<std::string> unpriced;  // sessions with unpriced usage, named after the listing
  auto note_unpriced = [&](const SessionRow& s) {
    if (s.unpriced_tokens > 0) unpriced.push_back(s.uid);
  };
  if (vm.count("json")) {  // the bytes boost::json::serialize gives for the whole array
    std::cout << '[';
    store.for_each_session(filter, [&](const SessionRow& s) {
      note_unpriced(s);
      if (n++ > 0) std::cout << ',';
      std::cout << boost::json::serialize(session_json(s));
    });
    std::cout << "]\n";
    warn_if_costs_stale(store, effective_price_book(store));
    warn_unpriced_sessions(store, unpriced);
    return kExitOk;
  }
  std::cout << fmt::format("{:<50} {:<20} {:>7} {:>10} {:>9} {:>9}  {:<20} {}\n", "SESSION",
                           "STARTED", "EVENTS", "INPUT", "OUTPUT", "COST USD", "REPO", "TITLE");
  auto print = [&](const SessionRow& s, int depth) {
    note_unpriced(s);
    std::string uid = std::string(2 * static_cast<std::size_t>(depth), ' ') + s.uid;
    std::string title = s.title.substr(0, 60);
    if (depth > 0 && !s.forked_from.empty() && s.parent_uid.empty()) title = "(fork) " + title;
    std::cout << fmt::format("{:<50} {:<20} {:>7} {:>10} {:>9} {:>9.2f}  {:<20} {}\n", uid,
                             iso8601(s.started_at_ms).substr(0, 19), s.event_count,
                             s.usage.input_tokens, s.usage.output_tokens, s.cost_usd.value_or(0),
                             s.repo, title);
  };
  if (vm.count("tree")) {  // the whole listing is needed to place children under parents
    const std::vector<SessionRow> rows = store.sessions(filter);
    for (const auto& node : session_tree(rows)) print(rows[node.index], node.depth);
    n = rows.size();
  } else {
    store.for_each_session(filter, [&](const SessionRow& s) {
      ++n;
      print(s, 0);
    });
  }
  std::cout << fmt::format("{} sessions\n", n);
  warn_if_costs_stale(store, effective_price_book(store));
  warn_unpriced_sessions(store, unpriced);
  return kExitOk;
}

// An evicted session has no raw events left: its digest stands in for them.
int show_evicted(Store& store, const Config& config, const SessionRow& session, bool json) {
  auto digest = find_digest(store, session.uid, primary_digester(config));
  boost::json::value digest_json = nullptr;
  if (digest) digest_json = parse_stored_digest(*digest);
  const auto unpriced = session_unpriced_models(store, session.uid);
  warn_if_costs_stale(store, effective_price_book(store));
  warn_unpriced(unpriced);
  if (json) {
    std::cout << boost::json::serialize(
                     boost::json::object{{"session", session_json(session)},
                                         {"events", boost::json::array()},
                                         {"evicted", true},
                                         {"digest", digest_json},
                                         {"unpriced_models", unpriced_json(unpriced)}})
              << "\n";
    return kExitOk;
  }
  std::cout << fmt::format("{}  {}\n  {}\n  raw data evicted at {} (retention); its digest:\n{}\n",
                           session.uid, session.title, cost_line(session),
                           iso8601(session.evicted_at_ms), boost::json::serialize(digest_json));
  return kExitOk;
}

int cmd_show(const Globals& g, const std::vector<std::string>& args) {
  po::options_description opts("show options");
  opts.add_options()("uid", po::value<std::string>(), "session uid")("json", "JSON document")(
      "bodies", "include each event's full text")(
      "all", "list bookkeeping and context records (kind other) too")(
      "fleet", "the session as pushed to the fleet database (every host's copy)")(
      "host", po::value<std::string>(), "--fleet: only this host id's copy");
  po::positional_options_description pos;
  pos.add("uid", 1);
  auto vm = parse_command(args, opts, pos);
  const std::string uid = required_uid(vm, "show");
  Config config = load_config(g.config_file);
  if (vm.count("fleet"))
    return fleet_show(config, uid, vm.count("host") ? vm["host"].as<std::string>() : "",
                      vm.count("json") > 0, vm.count("bodies") > 0);
  Store store(store_file(g, config), /*read_only=*/true);
  auto session = find_session_or_report(store, uid);
  if (!session) return kExitNotFound;
  if (session->evicted_at_ms > 0) return show_evicted(store, config, *session, vm.count("json"));
  auto events = store.events(uid, vm.count("bodies") > 0 || vm.count("json") > 0);
  const auto unpriced = session_unpriced_models(store, session->uid);
  warn_if_costs_stale(store, effective_price_book(store));
  warn_unpriced(unpriced);
  if (vm.count("json")) {
    boost::json::array list;
    for (const auto& e : events) list.push_back(event_json(e, true));
    std::cout << boost::json::serialize(
                     boost::json::object{{"session", session_json(*session)},
                                         {"events", std::move(list)},
                                         {"unpriced_models", unpriced_json(unpriced)}})
              << "\n";
    return kExitOk;
  }
  const auto& s = *session;
  std::cout << fmt::format("{}  {}\n", s.uid, s.title);
  std::cout << fmt::format("  repo {}  cwd {}  branch {}  model {}\n", s.repo, s.cwd, s.git_branch,
                           s.model);
  if (!s.parent_uid.empty()) std::cout << fmt::format("  subagent of {}\n", s.parent_uid);
  if (!s.forked_from.empty())
    std::cout << fmt::format("  forked from {} (the records it copied are listed there)\n",
                             s.forked_from);
  std::cout << fmt::format("  {} -> {}  events {}  tokens in {} out {} cache read {} write {}\n",
                           iso8601(s.started_at_ms), iso8601(s.ended_at_ms), s.event_count,
                           s.usage.input_tokens, s.usage.output_tokens, s.usage.cache_read_tokens,
                           s.usage.cache_creation_tokens);
  std::cout << "  " << cost_line(s) << "\n";
  // Each subagent's events under the call that launched it; bookkeeping only with --all.
  std::size_t hidden = 0;
  for (const auto& node : nest_subagents(events)) {
    const EventRow& e = events[node.index];
    if (e.kind == "other" && !vm.count("all")) {
      ++hidden;
      continue;
    }
    const std::string indent(2 * static_cast<std::size_t>(node.depth), ' ');
    std::cout << fmt::format("{:>5} {:<19} {:<18} {:<14} {}{}{}\n", e.seq,
                             iso8601(e.ts_ms).substr(0, 19), e.kind, e.tool, indent,
                             e.is_sidechain ? "[side] " : "", e.summary);
    if (vm.count("bodies") && !e.text.empty()) std::cout << e.text << "\n";
  }
  if (hidden > 0)
    std::cout << fmt::format("  ({} bookkeeping and context events not listed; --all lists them)\n",
                             hidden);
  return kExitOk;
}

int cmd_status(const Globals& g, const std::vector<std::string>& args) {
  po::options_description opts("status options");
  opts.add_options()("json", "JSON object");
  auto vm = parse_command(args, opts);
  Config config = load_config(g.config_file);
  auto file = store_file(g, config);
  Store store(file, /*read_only=*/true);
  StoreStatus s = store.status();
  if (vm.count("json")) {
    auto out = status_json(s, file.string());
    add_retention_status(out, store, config, s.tier2_bytes);
    std::cout << boost::json::serialize(out) << "\n";
    return kExitOk;
  }
  std::cout << fmt::format("store {}\n  sessions {}  events {}  sources {}  warnings {}\n",
                           file.string(), s.sessions, s.events, s.sources, s.warnings);
  std::cout << fmt::format("  tier 1 {}  tier 2 {}  file {}\n", human_bytes(s.tier1_bytes),
                           human_bytes(s.tier2_bytes), human_bytes(s.file_bytes));
  for (const auto& [state, n] : s.sources_by_state)
    std::cout << fmt::format("  sources {}: {}\n", state, n);
  for (const auto& u : s.unread_sources)
    std::cout << (u.state == SourceState::quarantined
                      ? fmt::format("  quarantined {} (plugin '{}'): {}\n", u.path, u.adapter,
                                    u.reason)
                      : fmt::format("  orphaned {} (plugin '{}' is not loaded)\n", u.path,
                                    u.adapter));
  boost::json::object retention;
  add_retention_status(retention, store, config, s.tier2_bytes);
  std::cout << fmt::format("  analyzed {}  evicted {}  evictable {}  data loss events {}\n",
                           retention["analyzed_sessions"].as_int64(),
                           retention["evicted_sessions"].as_int64(),
                           human_bytes(retention["evictable_bytes"].as_int64()),
                           retention["data_loss_events"].as_int64());
  return kExitOk;
}

int cmd_plugins(const Globals& g, const std::vector<std::string>& args) {
  po::options_description opts("plugins options");
  parse_command(args, opts);
  Config config = load_config(g.config_file);
  PluginRegistry registry;
  load_plugins(registry, g, config);
  std::cout << fmt::format("{:<16} {:<9} {:<9} {:<5} {}\n", "NAME", "KIND", "VERSION", "ABI",
                           "PATH");
  for (const auto& p : registry.loaded())
    std::cout << fmt::format("{:<16} {:<9} {:<9} {:<5} {}\n", p.name, p.kind, p.version,
                             fmt::format("{}.{}", p.abi_major, p.abi_minor), p.path.string());
  // Sources its plugins could not read, when there is a store to ask.
  const auto db_file = store_file(g, config);
  std::error_code ec;
  if (std::filesystem::exists(db_file, ec)) {
    Store store(db_file, /*read_only=*/true);
    for (const auto& u : store.unread_sources())
      if (u.state == SourceState::quarantined)
        std::cout << fmt::format("quarantined: {} by plugin '{}': {}\n", u.path, u.adapter,
                                 u.reason);
      else
        std::cout << fmt::format("orphaned: {}: its plugin '{}' is not loaded\n", u.path,
                                 u.adapter);
  }
  for (const auto& r : registry.refused())
    std::cout << fmt::format("refused: {}: {}\n", r.path.string(), r.reason);
  return kExitOk;
}

int cmd_config(const Globals& g, const std::vector<std::string>& args) {
  po::options_description opts("config options");
  parse_command(args, opts);
  Config config = load_config(g.config_file);
  // The directories in effect: --plugins replaces [plugins] dirs (see load_plugins).
  if (!g.plugin_dirs.empty()) config.plugin_dirs = g.plugin_dirs;
  std::cout << to_toml(config);
  if (!g.plugin_dirs.empty()) std::cout << "# [plugins] dirs in effect: from --plugins\n";
  std::cout << fmt::format("# store file in effect: {}\n", store_file(g, config).string());
  return kExitOk;
}

int dispatch(const Globals& g, const std::string& command, const std::vector<std::string>& args) {
  if (command == "sweep") return cmd_sweep(g, args);
  if (command == "sessions") return cmd_sessions(g, args);
  if (command == "show") return cmd_show(g, args);
  if (command == "status") return cmd_status(g, args);
  if (command == "plugins") return cmd_plugins(g, args);
  if (command == "config") return cmd_config(g, args);
  if (command == "search") return cmd_search(g, args);
  if (command == "export") return cmd_export(g, args);
  if (command == "resume") return cmd_resume(g, args);
  if (command == "report") return cmd_report(g, args);
  if (command == "mcp") return cmd_mcp(g, args);
  if (command == "digest") return cmd_digest(g, args);
  if (command == "env") return cmd_env(g, args);
  if (command == "usage") return cmd_usage(g, args);
  if (command == "prices") return cmd_prices(g, args);
  if (command == "evict") return cmd_evict(g, args);
  if (command == "hook") return cmd_hook(g, args);
  if (command == "push") return cmd_push(g, args);
  if (command == "fleet") return cmd_fleet(g, args);
  throw UsageError(fmt::format("unknown command '{}'", command));
}

}  // namespace

int run_cli(int argc, char** argv) {
  po::options_description global("global options");
  global.add_options()("help,h", "this help")(
      "plugins", po::value<std::vector<std::string>>()->composing(),
      "plugin directory (repeatable); default: [plugins] dirs of the configuration")(
      "config", po::value<std::string>(),
      "configuration file (default: "
      "$XDG_CONFIG_HOME/helix/config.toml when present)")(
      "store", po::value<std::string>(),
      "store directory (overrides HELIX_STORE_DB and "
      "[store] dir)");
  po::options_description hidden;
  hidden.add_options()("command", po::value<std::string>())("args",
                                                            po::value<std::vector<std::string>>());
  po::options_description all;
  all.add(global).add(hidden);
  po::positional_options_description positional;
  positional.add("command", 1).add("args", -1);
  try {
    auto parsed = po::command_line_parser(argc, argv)
                      .options(all)
                      .positional(positional)
                      .allow_unregistered()
                      .run();
    po::variables_map vm;
    po::store(parsed, vm);
    po::notify(vm);
    if (vm.count("help") || !vm.count("command")) {
      std::cout << kUsage << global;
      return vm.count("help") ? kExitOk : kExitUsage;
    }
    Globals g;
    if (vm.count("plugins")) g.plugin_dirs = vm["plugins"].as<std::vector<std::string>>();
    if (vm.count("config")) g.config_file = vm["config"].as<std::string>();
    if (vm.count("store")) g.store_dir = vm["store"].as<std::string>();
    auto rest = po::collect_unrecognized(parsed.options, po::include_positional);
    rest.erase(rest.begin());  // the command itself
    return dispatch(g, vm["command"].as<std::string>(), rest);
  } catch (const po::error& e) {
    std::cerr << "helix-host: " << e.what() << " (see helix-host --help)\n";
    return kExitUsage;
  } catch (const UsageError& e) {
    std::cerr << "helix-host: " << e.what() << " (see helix-host --help)\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "helix-host: " << e.what() << "\n";
    return kExitFailure;
  }
}

}  // namespace helix

#include "cli/commands.hpp"

#include "base/suggest.hpp"
#include "cli/cmd_digest.hpp"
#include "cli/cmd_fleet.hpp"
#include "cli/cmd_hook.hpp"
#include "cli/cmd_prices.hpp"
#include "cli/cmd_recall.hpp"
#include "cli/cmd_retention.hpp"
#include "cli/cmd_sessions.hpp"
#include "cli/cmd_watch.hpp"

#include <fmt/format.h>
#include <iostream>
#include <sstream>

namespace helix {
namespace po = boost::program_options;
namespace {

using Values = std::vector<std::string>;
const Values kEventKinds = {
    "user_msg", "assistant_msg", "thinking",   "tool_call", "tool_result",
    "error",    "test_run",      "edit",       "retry",     "human_intervention",
    "decision", "lifecycle",     "completion", "other",     "digest"};

// The filters the listing commands share.
void add_filters(CommandOptions& c, const char* what) {
  c.options.add_options()(
      "flavor", po::value<std::string>()->value_name("NAME"),
      fmt::format("only {} of this agent (claude, codex, grok, ...)", what).c_str())(
      "repo", po::value<std::string>()->value_name("REPO"),
      fmt::format("only {} of this repository ('.': the current directory's)", what).c_str())(
      "since", po::value<std::string>()->value_name("WHEN"),
      "from WHEN on: YYYY-MM-DD, YYYYMMDD, an ISO-8601 time, today, yesterday, Nd (N days "
      "ago), last-week; days in the local time zone")("until",
                                                      po::value<std::string>()->value_name("WHEN"),
                                                      "up to WHEN, inclusive (a day: its end)");
}

void add_session_operand(CommandOptions& c) {
  c.options.add_options()("id", po::value<std::string>()->value_name("SESSION"),
                          "session: flavor:id, the agent's own id, or a unique prefix of either");
  c.positional.add("id", 1);
}

void describe_sweep(CommandOptions& c) {
  c.options.add_options()("quiet,q", "print only problems (for cron)")(
      "json", "the summary as one JSON object (problems still go to stderr)")(
      "retry-quarantined", "read quarantined sources again (a plugin crashed or hung on them)")(
      "reparse", po::value<Values>()->composing()->value_name("PLUGIN"),
      "read every source of this adapter plugin again from its start (repeatable)");
}

void describe_watch(CommandOptions& c) {
  c.options.add_options()("quiet,q", "print only problems")(
      "jsonl", "each pass that stored something as one JSON object (the sweep --json shape)")(
      "poll", "list the folders on a timer instead of following them with inotify")(
      "interval", po::value<double>()->default_value(1)->value_name("SECONDS"),
      "with --poll or without inotify: the time between two sweeps")(
      "rescan", po::value<double>()->default_value(60)->value_name("SECONDS"),
      "with inotify: a full sweep at least this often anyway");
}

void describe_sessions(CommandOptions& c) {
  c.options.add_options()("json", "a JSON array")("jsonl", "one JSON object per line");
  add_filters(c, "sessions");
  c.options.add_options()("limit,n", po::value<int64_t>()->value_name("N"),
                          "at most N sessions (the newest)")(
      "reverse", "oldest first (default: newest first)")(
      "tree", "subagent sessions under their parents, forks under their origins")(
      "fleet", "the team's pushed sessions, from the fleet database ([fleet])");
}

void describe_show(CommandOptions& c) {
  add_session_operand(c);
  c.options.add_options()("json", "the session and its events as JSON")(
      "bodies", "each event's full text under it")(
      "all", "bookkeeping records too (kind 'other' and 'lifecycle')")(
      "fleet", "the session as pushed to the fleet database (every host's copy)")(
      "host", po::value<std::string>()->value_name("ID"), "with --fleet: only this host id's copy");
}

void describe_json_only(CommandOptions& c) { c.options.add_options()("json", "JSON"); }

void describe_statusline(CommandOptions& c) {
  c.options.add_options()("json", "the same figures as one JSON object");
}

void describe_search(CommandOptions& c) {
  c.options.add_options()("query", po::value<Values>()->value_name("WORDS"),
                          "words and phrases to find")("json", "a JSON array of sessions")(
      "jsonl", "one JSON object per hit")("fts",
                                          "the query is FTS5 syntax (AND, OR, NOT, \"…\", pre*)")(
      "kind", po::value<std::string>()->value_name("KIND"),
      "only events of this kind ('digest': the digests of evicted sessions)");
  add_filters(c, "hits");
  c.options.add_options()("limit,n", po::value<int64_t>()->default_value(20)->value_name("N"),
                          "at most N sessions (with --fleet: at most N hits)")(
      "fleet",
      "search the team's pushed texts in the fleet database (web-search syntax: words, "
      "\"a phrase\", OR, -word)");
  c.positional.add("query", -1);
  c.choices["kind"] = kEventKinds;
}

void describe_export(CommandOptions& c) {
  add_session_operand(c);
  c.options.add_options()("format", po::value<std::string>()->default_value("md")->value_name("F"),
                          "md, html, json or jsonl")(
      "out,o", po::value<std::string>()->value_name("FILE"),
      "write to FILE (a new file, 0600) instead of "
      "standard output")("force", "with --out: overwrite an existing file");
  c.choices["format"] = {"md", "html", "json", "jsonl"};
}

void describe_resume(CommandOptions& c) {
  add_session_operand(c);
  c.options.add_options()("json", "JSON object: possible, command, argv, cwd, reason");
}

void describe_digest(CommandOptions& c) {
  add_session_operand(c);
  c.options.add_options()("json", "the digest document")(
      "digester", po::value<std::string>()->value_name("NAME"),
      "whose digest (default: the primary digester)");
}

void describe_env(CommandOptions& c) {
  add_session_operand(c);
  c.options.add_options()("digester", po::value<std::string>()->value_name("NAME"),
                          "whose digest (default: the primary digester)")(
      "json", "the same values as one JSON object");
}

void describe_usage(CommandOptions& c) {
  c.options.add_options()("report", po::value<std::string>()->value_name("REPORT"),
                          "'blocks': 5-hour billing windows instead of totals")(
      "by", po::value<std::string>()->default_value("day")->value_name("KEY"),
      "group by day, week, month, session, model, repo or flavor (with --fleet: day, month, "
      "session, model, repo, flavor, host or member)")("breakdown", "each row split per model")(
      "json", "JSON");
  add_filters(c, "usage");
  c.options.add_options()("limit,n", po::value<int64_t>()->value_name("N"),
                          "at most N rows (the newest)")("reverse", "oldest first")(
      "fleet", "the team's totals, from the fleet database ([fleet]; UTC days)")(
      "limits", "the latest rate-limit headroom of each window the agents reported (Codex)");
  c.positional.add("report", 1);
  c.choices["by"] = {"day",  "week",   "month", "session", "model",
                     "repo", "flavor", "host",  "member"};
  c.choices["report"] = {"blocks"};
}

void describe_evict(CommandOptions& c) {
  c.options.add_options()("dry-run", "print the plan and why, change nothing")("json",
                                                                               "the plan as JSON");
}

void describe_hook(CommandOptions& c) {
  c.options.add_options()("flavor", po::value<std::string>()->value_name("FLAVOR"),
                          "the agent: claude, codex, grok or gemini")(
      "event", po::value<std::string>()->value_name("EVENT"),
      "the event JSON (default: read from standard input)")(
      "foreground", "ingest before returning, instead of in a detached process");
  c.positional.add("flavor", 1).add("event", 1);
}

void describe_hooks(CommandOptions& c) {
  c.options.add_options()("action", po::value<std::string>()->value_name("ACTION"),
                          "install, uninstall or status")(
      "agent", po::value<std::string>()->value_name("AGENT"), "claude, codex, grok or gemini")(
      "dry-run", "print the change as a diff, write nothing")(
      "no-mcp", "the hook only: leave the agent's MCP servers alone")(
      "no-hook", "the MCP server only: leave the agent's hooks alone")(
      "settings", po::value<std::string>()->value_name("FILE"),
      "the agent's settings file (default: where the agent reads it)")(
      "mcp-config", po::value<std::string>()->value_name("FILE"),
      "the file of the agent's MCP servers (default: where the agent reads them)")(
      "json", "what was (or would be) installed and changed, as JSON");
  c.positional.add("action", 1).add("agent", 1);
  c.choices["action"] = {"install", "uninstall", "status"};
  c.choices["agent"] = {"claude", "codex", "grok", "gemini"};
}

void describe_warnings(CommandOptions& c) {
  c.options.add_options()("category", po::value<std::string>()->value_name("NAME"),
                          "only this category (e.g. unknown_type)")("json", "a JSON array")(
      "limit,n", po::value<int64_t>()->default_value(50)->value_name("N"),
      "at most N warnings per category");
}

void describe_report(CommandOptions& c) {
  c.options.add_options()("html", "write the HTML dashboard (the only form for now)")(
      "since", po::value<std::string>()->value_name("DAY"),
      "first day (YYYY-MM-DD; default: 29 days before --until)")(
      "until", po::value<std::string>()->value_name("DAY"),
      "last day (YYYY-MM-DD; default: today, UTC)")(
      "out,o", po::value<std::string>()->default_value("helix-report")->value_name("DIR"),
      "the folder to write index.html and sessions/*.html into")(
      "json", "after writing, what was written as JSON");
}

void describe_mcp(CommandOptions& c) {
  c.options.add_options()("all-repos", "answer about every repository, not only the agent's own")(
      "fleet", "also answer from the team's fleet database ([fleet]): team_usage, team_search")(
      "json", "print the tools (with their JSON Schemas) and resource templates, then exit");
}

void describe_push(CommandOptions& c) {
  c.options.add_options()("full",
                          "offer every session again, not only those changed since the mark")(
      "json", "the report as JSON")("quiet,q", "print only problems");
}

void describe_fleet(CommandOptions& c) {
  c.options.add_options()("action", po::value<std::string>()->value_name("ACTION"),
                          "migrate (the schema, as an administrator) or grant (print the SQL)")(
      "connection", po::value<std::string>()->value_name("CONNINFO"),
      "migrate: libpq connection string of an administrator (default: [fleet] connection)")(
      "team", po::value<std::string>()->value_name("TEAM"), "grant: the team ([a-z0-9_], 1 to 40)")(
      "member", po::value<Values>()->composing()->value_name("LOGIN"),
      "grant: a login that pushes and reads for the team (repeatable)")(
      "admin", po::value<Values>()->composing()->value_name("LOGIN"),
      "grant: a login that reads and writes every team (repeatable)")(
      "json", "migrate: the versions as JSON; grant: the SQL and what it grants as JSON");
  c.positional.add("action", 1);
  c.choices["action"] = {"migrate", "grant"};
}

void describe_prices(CommandOptions& c) {
  c.options.add_options()("json", "the book as JSON")(
      "action", po::value<std::string>()->value_name("ACTION"), "import or forget")(
      "file", po::value<std::string>()->value_name("FILE"),
      "a LiteLLM model_prices_and_context_window.json");
  c.positional.add("action", 1).add("file", 1);
  c.choices["action"] = {"import", "forget"};
}

void describe_help(CommandOptions& c) {
  c.options.add_options()("topic", po::value<std::string>()->value_name("COMMAND"),
                          "the command to explain");
  c.positional.add("topic", 1);
}

int cmd_help(const Globals&, const std::vector<std::string>& args);

const std::vector<CommandSpec> kCommands = {
    {"sweep",
     "",
     "ingest new and changed agent transcripts, digest them, apply retention",
     {"helix-host sweep", "helix-host sweep --quiet    # from cron"},
     describe_sweep,
     cmd_sweep},
    {"watch",
     "",
     "stay running: sweep new transcript lines within a second of their writing",
     {"helix-host watch", "systemctl --user enable --now helix-watch.service"},
     describe_watch,
     cmd_watch},
    {"sessions",
     "",
     "list stored sessions, newest first",
     {"helix-host sessions --since yesterday --repo .", "helix-host sessions -n 5 --json",
      "helix-host sessions --fleet --since 7d"},
     describe_sessions,
     cmd_sessions},
    {"show",
     "SESSION",
     "one session: header, then its turns",
     {"helix-host show b95b85fd", "helix-host show claude:b95b85fd --bodies"},
     describe_show,
     cmd_show},
    {"search",
     "WORDS...",
     "full-text search, hits grouped per session",
     {"helix-host search auth-bug README.md",
      "helix-host search --fts '\"exact phrase\" OR pref*'"},
     describe_search,
     cmd_search},
    {"usage",
     "[blocks]",
     "token and cost totals, or 5-hour billing blocks",
     {"helix-host usage --by month --breakdown", "helix-host usage blocks --since 7d",
      "helix-host usage --fleet --by member --since 2026-11-01"},
     describe_usage,
     cmd_usage},
    {"statusline",
     "",
     "one line for Claude Code's status line (its JSON on standard input)",
     {"helix-host statusline < event.json",
      "settings.json: \"statusLine\": {\"type\": \"command\", \"command\": \"helix-host "
      "statusline\"}"},
     describe_statusline,
     cmd_statusline},
    {"export",
     "SESSION",
     "a session as markdown, JSON or JSONL",
     {"helix-host export b95b85fd > session.md", "helix-host export b95b85fd --format jsonl"},
     describe_export,
     cmd_export},
    {"resume",
     "SESSION",
     "the agent's own command that resumes a session",
     {"helix-host resume b95b85fd", "eval \"$(helix-host resume b95b85fd)\""},
     describe_resume,
     cmd_resume},
    {"digest",
     "SESSION",
     "one session's digest, as a summary or JSON",
     {"helix-host digest b95b85fd", "helix-host digest b95b85fd --json | jq .outcome"},
     describe_digest,
     cmd_digest},
    {"env",
     "SESSION",
     "the HELIX_* export lines of a digested session",
     {"helix-host env b95b85fd", "eval \"$(helix-host env b95b85fd)\""},
     describe_env,
     cmd_env},
    {"report",
     "--html",
     "an HTML dashboard of a date range, with a page per session",
     {"helix-host report --html --since 2026-09-01 --out ~/helix-report",
      "helix-host report --html   # the last 30 days"},
     describe_report,
     cmd_report},
    {"mcp",
     "",
     "a Model Context Protocol server on stdin/stdout, for agents",
     {"helix-host mcp", "helix-host mcp --json | jq '.tools[].name'"},
     describe_mcp,
     cmd_mcp},
    {"prices",
     "[import FILE|forget]",
     "the price book every cost is computed with",
     {"helix-host prices", "helix-host prices import model_prices_and_context_window.json"},
     describe_prices,
     cmd_prices},
    {"status",
     "",
     "store counts and sizes",
     {"helix-host status", "helix-host status --json | jq .tier1_bytes"},
     describe_json_only,
     cmd_status},
    {"warnings",
     "",
     "what sweeps could not read, by category, with the files",
     {"helix-host warnings", "helix-host warnings --category unknown_type --json"},
     describe_warnings,
     cmd_warnings},
    {"evict",
     "",
     "drop analyzed raw data under the retention budget",
     {"helix-host evict --dry-run", "helix-host evict --json"},
     describe_evict,
     cmd_evict},
    {"plugins",
     "",
     "loaded and refused plugins",
     {"helix-host plugins", "helix-host --plugins ./build/plugins plugins --json"},
     describe_json_only,
     cmd_plugins},
    {"config",
     "",
     "the effective configuration and where it comes from",
     {"helix-host config", "helix-host config --json | jq .store"},
     describe_json_only,
     cmd_config},
    {"hook",
     "FLAVOR [EVENT]",
     "ingest one session now, from an agent hook (always exits 0)",
     {"echo \"$EVENT_JSON\" | helix-host hook claude", "helix-host hook codex \"$1\"  # notify"},
     describe_hook,
     cmd_hook},
    {"hooks",
     "install|uninstall|status AGENT",
     "add or remove helix's hook and MCP server in an agent's settings",
     {"helix-host hooks install claude --dry-run", "helix-host hooks status codex --json"},
     describe_hooks,
     cmd_hooks},
    {"push",
     "",
     "send what changed since the last push to the team's fleet database",
     {"helix-host push", "helix-host push --full --json"},
     describe_push,
     cmd_push},
    {"fleet",
     "migrate|grant",
     "the team's database: create or upgrade its schema, or print the SQL of a team's access",
     {"helix-host fleet migrate --connection 'host=db.example dbname=helix user=postgres'",
      "helix-host fleet grant --team web --member alice --member bob | psql -d helix"},
     describe_fleet,
     cmd_fleet},
    {"help",
     "[COMMAND]",
     "this overview, or one command's help",
     {"helix-host help", "helix-host help search"},
     describe_help,
     cmd_help},
};

int cmd_help(const Globals&, const std::vector<std::string>& args) {
  auto vm = parse_command("help", args);
  if (!vm.count("topic")) {
    std::cout << overview_help();
    return 0;
  }
  const std::string topic = vm["topic"].as<std::string>();
  const CommandSpec* spec = find_command(topic);
  if (!spec)
    throw UsageError(
        fmt::format("unknown command '{}'{}", topic, did_you_mean(topic, command_names())));
  std::cout << command_help(*spec);
  return 0;
}

CommandOptions describe(const CommandSpec& spec) {
  CommandOptions c;
  spec.describe(c);
  c.options.add_options()("help,h", "this help");
  return c;
}

std::vector<std::string> option_names(const po::options_description& options) {
  std::vector<std::string> out;
  for (const auto& o : options.options()) out.push_back("--" + o->long_name());
  return out;
}

// Boost's message for an unknown option names it as typed ("--flavour" or "-x").
std::string unknown_option_message(const po::unknown_option& e, const CommandOptions& c) {
  const std::string typed = e.get_option_name();
  const std::string bare = typed.substr(0, typed.find('='));
  return fmt::format("unknown option '{}'{}", bare, did_you_mean(bare, option_names(c.options)));
}

void check_choices(const po::variables_map& vm,
                   const std::map<std::string, std::vector<std::string>>& choices) {
  for (const auto& [name, values] : choices) {
    if (!vm.count(name) || vm[name].defaulted()) continue;
    const std::string given = vm[name].as<std::string>();
    if (std::find(values.begin(), values.end(), given) != values.end()) continue;
    throw UsageError(fmt::format("--{} must be {}, not '{}'{}", name, one_of(values), given,
                                 did_you_mean(given, values)));
  }
}

}  // namespace

const std::vector<CommandSpec>& commands() { return kCommands; }

const CommandSpec* find_command(std::string_view name) {
  for (const auto& c : kCommands)
    if (c.name == name) return &c;
  return nullptr;
}

std::vector<std::string> command_names() {
  std::vector<std::string> out;
  out.reserve(kCommands.size());
  for (const auto& c : kCommands) out.emplace_back(c.name);
  return out;
}

po::options_description global_options() {
  po::options_description global("global options");
  global.add_options()("help,h", "this help, or with a command that command's help")(
      "version", "the version of helix-host and of its plugin ABI")(
      "store", po::value<std::string>()->value_name("DIR"),
      "the store directory (or its helix.db); overrides HELIX_STORE_DB and [store] dir")(
      "config", po::value<std::string>()->value_name("FILE"),
      "configuration file (default: $XDG_CONFIG_HOME/helix/config.toml when present)")(
      "plugins", po::value<std::vector<std::string>>()->composing()->value_name("DIR"),
      "plugin directory (repeatable); default: [plugins] dirs")(
      "timezone,z", po::value<std::string>()->value_name("ZONE"),
      "time zone of dates and days, e.g. Europe/Paris (default: $TZ, else the system's)")(
      "color", po::value<std::string>()->default_value("auto")->value_name("WHEN"),
      "colour: auto (on a terminal, without NO_COLOR or TERM=dumb), always or never")(
      "no-pager", "never page long output (default: $PAGER or less, on a terminal)");
  return global;
}

std::map<std::string, std::vector<std::string>> global_choices() {
  return {{"color", {"auto", "always", "never"}}};
}

po::variables_map parse_command(std::string_view name, const std::vector<std::string>& args) {
  const CommandSpec* spec = find_command(name);
  if (!spec) throw std::logic_error(fmt::format("no command spec for '{}'", name));
  CommandOptions c = describe(*spec);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(c.options).positional(c.positional).run(), vm);
  } catch (const po::unknown_option& e) {
    throw UsageError(unknown_option_message(e, c));
  } catch (const po::too_many_positional_options_error&) {
    throw UsageError(fmt::format("too many arguments for {} (usage: helix-host {} {})", name, name,
                                 spec->operands));
  }
  if (vm.count("help")) {
    std::cout << command_help(*spec);
    throw HelpShown{};
  }
  po::notify(vm);
  check_choices(vm, c.choices);
  return vm;
}

std::string command_help(const CommandSpec& spec) {
  CommandOptions c = describe(spec);
  std::ostringstream out;
  out << fmt::format("usage: helix-host {}{}{} [options]\n\n{}\n\n", spec.name,
                     spec.operands.empty() ? "" : " ", spec.operands, spec.summary);
  out << c.options << "\nexamples:\n";
  for (auto e : spec.examples) out << "  " << e << "\n";
  out << "\nGlobal options (--store, --config, --timezone, --color, ...): helix-host --help\n";
  return out.str();
}

std::string overview_help() {
  std::ostringstream out;
  out << "usage: helix-host [global options] <command> [options]\n\ncommands:\n";
  for (const auto& c : kCommands) {
    const std::string head = fmt::format("{} {}", c.name, c.operands);
    out << fmt::format("  {:<33} {}\n", head, c.summary);
  }
  out << "\n" << global_options();
  out << "\n'helix-host CMD --help' explains one command; 'man helix-host' explains them all.\n";
  return out.str();
}

}  // namespace helix

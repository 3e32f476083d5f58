// What every helix-host command shares: global options, errors with their exit codes, plugins,
// the store, sessions named as users type them, and the filters of the listing commands.
#pragma once

#include "cli/dates.hpp"
#include "cli/terminal.hpp"
#include "config/config.hpp"
#include "plugins/plugin_registry.hpp"
#include "store/digest_store.hpp"
#include "store/store.hpp"

#include <boost/json.hpp>
#include <boost/program_options.hpp>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace helix {

// The global options of the command line, and how output reaches the user.
struct Globals {
  std::vector<std::string> plugin_dirs;
  std::string config_file, store_dir, timezone;
  OutputStyle style;
};

// A command-line mistake: exit code 2 (kExitUsage) with the message.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The session, digest or file asked for does not exist: exit code 1 (kExitNotFound).
struct NotFound : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Loads --plugins directories, or the configured ones.
void load_plugins(PluginRegistry& registry, const Globals& g, const Config& config);
void print_refusals(const PluginRegistry& registry);
// For the commands that read sources (sweep, watch): loads the plugins, prints the refused
// ones, and fails with a usage error when no adapter is left to read anything.
void load_adapter_plugins(PluginRegistry& registry, const Globals& g, const Config& config);

// The configuration in effect: --config FILE, else the XDG file when present, else defaults.
Config load_configuration(const Globals& g);
std::filesystem::path store_file(const Globals& g, const Config& config);
// Opens the store for reading; NotFound (with what to do) when no sweep has created it yet.
Store open_store_for_reading(const Globals& g, const Config& config);

std::string human_bytes(int64_t n);

// The session `ref` names: its uid, a uid prefix ("claude:b95b85fd"), the agent's own id, or a
// unique prefix of either. NotFound when nothing matches; a UsageError listing the candidates
// when several do.
SessionRow resolve_session(Store& store, const std::string& ref);
// The positional session of `command` (option "id"), resolved.
SessionRow required_session(Store& store, const boost::program_options::variables_map& vm,
                            const char* command);

// The shortest form of each stored session's uid that still names it alone ("claude:" and at
// least 8 characters of its id), as listings show it: `show`, `export` and the rest accept it.
class ShortIds {
 public:
  explicit ShortIds(Store& store);
  std::string operator()(const std::string& uid) const;

 private:
  std::vector<std::string> uids_;  // sorted
};

// --since / --until as Unix milliseconds (0 / INT64_MAX when absent), in the user's time zone.
struct TimeRange {
  int64_t since_ms = 0, until_ms = INT64_MAX;
};
TimeRange time_range(const boost::program_options::variables_map& vm, const TimeZone& zone);

// --flavor and --repo checked against what the store holds: a value that matches nothing is a
// UsageError naming the valid ones and the closest. `--repo .` is the current directory's.
std::string checked_flavor(Store& store, const boost::program_options::variables_map& vm);
std::string checked_repo(Store& store, const boost::program_options::variables_map& vm);
// --limit as given, or nullopt when it is not; a UsageError when it is below 1.
std::optional<int64_t> limit_option(const boost::program_options::variables_map& vm);
// --repo as given, '.' as the current directory's repository; not checked (for --fleet).
std::string repo_option(const boost::program_options::variables_map& vm);
// A UsageError when one of `options` is given with --fleet, whose database cannot answer it.
void reject_with_fleet(const boost::program_options::variables_map& vm,
                       std::initializer_list<const char*> options);

// A stored digest's JSON. Throws std::runtime_error naming the session, the digester and the
// table when it is not valid JSON (a damaged store), not a parser's position alone.
boost::json::value parse_stored_digest(const DigestRow& digest);

}  // namespace helix

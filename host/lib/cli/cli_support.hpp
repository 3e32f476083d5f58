// What every helix-host command shares: global options, option parsing, plugins and the store.
#pragma once

#include "config/config.hpp"
#include "plugins/plugin_registry.hpp"
#include "store/digest_store.hpp"
#include "store/store.hpp"

#include <boost/json.hpp>
#include <boost/program_options.hpp>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace helix {

// The global options of the command line.
struct Globals {
  std::vector<std::string> plugin_dirs;
  std::string config_file, store_dir;
};

// A command-line mistake: exit code 2 with the message.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Parses a command's own arguments; unknown options are errors.
boost::program_options::variables_map parse_command(
    const std::vector<std::string>& args,
    const boost::program_options::options_description& options,
    const boost::program_options::positional_options_description& positional = {});

// Loads --plugins directories, or the configured ones.
void load_plugins(PluginRegistry& registry, const Globals& g, const Config& config);
void print_refusals(const PluginRegistry& registry);

std::filesystem::path store_file(const Globals& g, const Config& config);

std::string human_bytes(int64_t n);

// The positional session uid `command` needs; a usage error naming the command when missing.
std::string required_uid(const boost::program_options::variables_map& vm, const char* command);

// The session `uid` names, or nullopt after telling the user it is not in the store (the
// command then exits with kExitNotFound).
std::optional<SessionRow> find_session_or_report(Store& store, const std::string& uid);

// A stored digest's JSON. Throws std::runtime_error naming the session, the digester and the
// table when it is not valid JSON (a damaged store), not a parser's position alone.
boost::json::value parse_stored_digest(const DigestRow& digest);

}  // namespace helix

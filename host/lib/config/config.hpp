// helix-host configuration: one TOML file with built-in defaults for every knob.
#pragma once

#include "config/fleet_config.hpp"
#include "privacy/redaction_config.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace helix {

// [session_memory.retention]: the knobs of the design document §5.1, same names.
struct RetentionConfig {
  int64_t raw_soft_cap_bytes = int64_t{4} << 30;
  int64_t raw_hard_cap_bytes = int64_t{6} << 30;
  int64_t raw_max_age_days = 45;
  int64_t distilled_cap_bytes = int64_t{1} << 30;
  std::string cadence = "daily";  // daily | weekly | on-hook
};

struct Config {
  std::filesystem::path file;  // the file it was read from; empty = built-in defaults only
  std::string store_dir;       // [store] dir: the store is <dir>/helix.db
  std::vector<std::string> plugin_dirs;  // [plugins] dirs
  // [plugins] isolation: which adapters run in a worker process with a watchdog and a memory
  // limit: "third-party" (those not shipped with helix-host), "all" or "none".
  std::string plugin_isolation = "third-party";
  int64_t plugin_call_timeout_seconds = 120;                     // [plugins] call_timeout_seconds
  int64_t plugin_worker_memory = int64_t{2} << 30;               // [plugins] worker_memory
  std::map<std::string, std::vector<std::string>> source_roots;  // [sources.<flavor>] roots
  std::map<std::string, std::string> repo_domains;               // [domains] repo = "domain"
  std::map<std::string, std::string> adapter_settings;           // [adapters.<plugin>] as JSON
  // [digest] digesters: the digester plugins run after each sweep; the first is the primary
  // (its digest sets the session's outcome and task_ref, and the costs of `usage`).
  std::vector<std::string> digesters = {"session_digest"};
  std::map<std::string, std::string> digester_settings;  // [digesters.<plugin>] as JSON
  RetentionConfig retention;
  RedactionConfig redaction;                     // [redaction]
  FleetConfig fleet;                             // [fleet]
  int64_t chunk_bytes = int64_t{1} << 20;        // [sweep] chunk_bytes
  int64_t max_record_bytes = int64_t{64} << 20;  // [sweep] max_record_bytes
  int64_t final_line_grace_seconds = 600;        // [sweep] final_line_grace_seconds
  // [mcp] repos: repositories `helix-host mcp` answers about besides the agent's own.
  std::vector<std::string> mcp_repos;
};

// A configuration that cannot be used: what() names the file, the line and what is wrong.
struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Reads `explicit_file` (which must exist) or, when empty, $XDG_CONFIG_HOME/helix/config.toml
// if it exists; otherwise returns the defaults. Throws ConfigError with the file, the line and
// what is wrong for a missing or unreadable file, unknown keys and bad values.
Config load_config(const std::string& explicit_file);

// $XDG_CONFIG_HOME/helix/config.toml (~/.config/helix/config.toml): read when it exists.
std::filesystem::path default_config_file();

// The effective configuration as TOML (what `helix-host config` prints).
std::string to_toml(const Config& config);

// "4GiB", "500MB", "64 KiB", "1024" -> bytes. Throws std::invalid_argument when malformed.
int64_t parse_size(std::string_view text);

// "~/x" -> "$HOME/x"; other paths unchanged.
std::string expand_home(std::string_view path);

// The directory of the running executable (for the default plugin directory).
std::filesystem::path executable_dir();

}  // namespace helix

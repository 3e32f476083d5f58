#include "config/config.hpp"

#include "base/ownership.hpp"
#include "base/suggest.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <toml++/toml.h>
#include <unistd.h>
#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace helix {
namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

std::string xdg_dir(const char* var, const char* home_relative) {
  return env_or(var, expand_home(std::string("~/") + home_relative));
}

[[noreturn]] void bad(const Config& c, const toml::node& node, const std::string& what) {
  throw ConfigError(fmt::format("{}:{}: {}", c.file.string(), node.source().begin.line, what));
}

void reject_unknown(const Config& c, const toml::table& table, const std::string& section,
                    const std::set<std::string>& known) {
  const std::vector<std::string> names(known.begin(), known.end());
  for (const auto& [key, node] : table)
    if (!known.count(std::string(key.str())))
      bad(c, node,
          fmt::format("unknown setting '{}{}'{} (see docs/operations.md for the settings)",
                      section.empty() ? "" : section + ".", key.str(),
                      did_you_mean(key.str(), names)));
}

std::string text(const Config& c, const toml::node& node, const std::string& key) {
  if (auto v = node.value<std::string>()) return *v;
  bad(c, node, fmt::format("'{}' must be a string", key));
}

std::vector<std::string> strings(const Config& c, const toml::node& node, const std::string& key) {
  const auto* array = node.as_array();
  if (!array) bad(c, node, fmt::format("'{}' must be an array of strings", key));
  std::vector<std::string> out;
  for (const auto& item : *array) out.push_back(text(c, item, key));
  return out;
}

int64_t size_value(const Config& c, const toml::node& node, const std::string& key) {
  if (auto v = node.value<int64_t>()) return *v;
  try {
    return parse_size(text(c, node, key));
  } catch (const std::invalid_argument& e) {
    bad(c, node, fmt::format("'{}': {}", key, e.what()));
  }
}

int64_t integer(const Config& c, const toml::node& node, const std::string& key) {
  if (auto v = node.value<int64_t>()) return *v;
  bad(c, node, fmt::format("'{}' must be a whole number", key));
}

// TOML -> JSON, for the adapter settings a plugin receives.
boost::json::value to_json(const toml::node& node) {
  if (auto* t = node.as_table()) {
    boost::json::object o;
    for (const auto& [k, v] : *t) o[k.str()] = to_json(v);
    return o;
  }
  if (auto* a = node.as_array()) {
    boost::json::array out;
    for (const auto& v : *a) out.push_back(to_json(v));
    return out;
  }
  if (auto v = node.value_exact<std::string>()) return boost::json::string(*v);
  if (auto v = node.value_exact<int64_t>()) return *v;
  if (auto v = node.value_exact<double>()) return *v;
  if (auto v = node.value_exact<bool>()) return *v;
  std::ostringstream text;  // dates and times as text
  node.visit([&](auto&& concrete) { text << concrete; });
  return boost::json::string(text.str());
}

// What a user who could change the configuration could do (it names plugin folders, roots and
// the redaction rules).
constexpr std::string_view kStake =
    "could choose the plugins helix-host runs and what it reads and stores unredacted";

// The configuration file's text, read from one descriptor after checking that descriptor and
// the folder the file is in, as ssh and sudo check theirs. Throws std::runtime_error with the
// fix for one another user could change.
std::string read_trusted_file(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    throw std::runtime_error(
        fmt::format("cannot read the configuration {}: {}", file.string(), std::strerror(errno)));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    throw std::runtime_error(
        fmt::format("the configuration {} is not a regular file", file.string()));
  if (auto why = changeable_by_others(st, "configuration file", file.string(), kStake);
      !why.empty())
    throw std::runtime_error(why);
  std::error_code ec;
  const auto real = std::filesystem::canonical(file, ec);  // a link's target, and its folder
  const auto folder = (ec ? std::filesystem::absolute(file) : real).parent_path();
  struct stat dir {};
  if (::stat(folder.c_str(), &dir) == 0)
    if (auto why =
            changeable_by_others(dir, "folder of the configuration file", folder.string(), kStake);
        !why.empty())
      throw std::runtime_error(why);
  std::string text;
  char buf[65536];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw std::runtime_error(
          fmt::format("cannot read the configuration {}: {}", file.string(), std::strerror(errno)));
    text.append(buf, static_cast<std::size_t>(n));
  }
  return text;
}

// [[redaction.rules]] entries.
std::vector<RedactionRuleConfig> redaction_rules(const Config& c, const toml::node& v) {
  const auto* rules = v.as_array();
  if (!rules) bad(c, v, "'redaction.rules' must be an array of tables ([[redaction.rules]])");
  std::vector<RedactionRuleConfig> out;
  std::set<std::string> ids;
  for (const auto& node : *rules) {
    const auto* rule = node.as_table();
    if (!rule) bad(c, node, "each [[redaction.rules]] entry must be a table with id and regex");
    reject_unknown(c, *rule, "redaction.rules", {"id", "regex", "group"});
    const auto* id = rule->get("id");
    const auto* regex = rule->get("regex");
    if (!id || !regex) bad(c, node, "a [[redaction.rules]] entry needs both id and regex");
    RedactionRuleConfig one{text(c, *id, "redaction.rules.id"),
                            text(c, *regex, "redaction.rules.regex")};
    if (auto* g = rule->get("group")) {
      const int64_t group = integer(c, *g, "redaction.rules.group");
      if (group < 0 || group > 99) bad(c, *g, "'redaction.rules.group' must be 0 to 99");
      one.group = static_cast<int>(group);
    }
    if (auto problem = redaction_rule_problem(one); !problem.empty()) bad(c, node, problem);
    if (!ids.insert(one.id).second)
      bad(c, node, fmt::format("redaction rule id '{}' is used twice", one.id));
    out.push_back(std::move(one));
  }
  return out;
}

// [[redaction.allow]] entries: each names the rules whose values it keeps.
std::vector<RedactionAllowConfig> redaction_allows(const Config& c, const toml::node& v,
                                                   const std::vector<RedactionRuleConfig>& rules) {
  const auto* entries = v.as_array();
  if (!entries) bad(c, v, "'redaction.allow' must be an array of tables ([[redaction.allow]])");
  std::vector<RedactionAllowConfig> out;
  for (const auto& node : *entries) {
    const auto* entry = node.as_table();
    if (!entry)
      bad(c, node,
          "each [[redaction.allow]] entry must be a table naming the rules it exempts and the "
          "values it keeps: rules = [\"<rule id>\"], regex = '...' (a bare pattern for every "
          "rule, as in earlier versions, could switch redaction off)");
    reject_unknown(c, *entry, "redaction.allow", {"rules", "regex"});
    const auto* ids = entry->get("rules");
    const auto* regex = entry->get("regex");
    if (!ids || !regex) bad(c, node, "a [[redaction.allow]] entry needs both rules and regex");
    RedactionAllowConfig one{strings(c, *ids, "redaction.allow.rules"),
                             text(c, *regex, "redaction.allow.regex")};
    if (auto problem = redaction_allow_problem(one, rules); !problem.empty())
      bad(c, node, "'redaction.allow': " + problem);
    out.push_back(std::move(one));
  }
  return out;
}

// [redaction]: every regex is compiled here, so a mistake is reported with its line rather than
// at the first sweep.
void apply_redaction(Config& c, const toml::table& root) {
  const auto* t = root["redaction"].as_table();
  if (!t) return;
  reject_unknown(c, *t, "redaction", {"disable", "allow", "rules"});
  auto& r = c.redaction;
  if (auto* v = t->get("disable")) {
    r.disable = strings(c, *v, "redaction.disable");
    for (const auto& id : r.disable)
      if (auto problem = redaction_disable_problem(id); !problem.empty())
        bad(c, *v, "'redaction.disable': " + problem);
  }
  if (auto* v = t->get("rules")) r.rules = redaction_rules(c, *v);
  if (auto* v = t->get("allow")) r.allow = redaction_allows(c, *v, r.rules);
}

// [fleet]: a team's PostgreSQL database. A password is refused by the fleet module when it
// connects (libpq parses the string); here only the shape of each setting is checked.
void apply_fleet(Config& c, const toml::table& root) {
  const auto* t = root["fleet"].as_table();
  if (!t) return;
  reject_unknown(c, *t, "fleet",
                 {"connection", "password_file", "team", "host_id_file", "events", "cadence",
                  "batch_sessions"});
  auto& f = c.fleet;
  if (auto* v = t->get("connection")) f.connection = text(c, *v, "fleet.connection");
  if (auto* v = t->get("password_file"))
    f.password_file = expand_home(text(c, *v, "fleet.password_file"));
  if (auto* v = t->get("team")) f.team = text(c, *v, "fleet.team");
  if (auto* v = t->get("host_id_file"))
    f.host_id_file = expand_home(text(c, *v, "fleet.host_id_file"));
  if (auto* v = t->get("events")) {
    auto events = v->value<bool>();
    if (!events) bad(c, *v, "'fleet.events' must be true or false");
    f.events = *events;
  }
  if (auto* v = t->get("cadence")) {
    f.cadence = text(c, *v, "fleet.cadence");
    if (f.cadence != "manual" && f.cadence != "after-sweep")
      bad(c, *v, "'fleet.cadence' must be manual or after-sweep");
  }
  if (auto* v = t->get("batch_sessions")) {
    f.batch_sessions = integer(c, *v, "fleet.batch_sessions");
    if (f.batch_sessions < 1 || f.batch_sessions > 100000)
      bad(c, *v, "'fleet.batch_sessions' must be 1 to 100000");
  }
}

// [plugins]: where plugins are, and how adapters are isolated.
void apply_plugins(Config& c, const toml::table& plugins) {
  reject_unknown(c, plugins, "plugins",
                 {"dirs", "isolation", "call_timeout_seconds", "worker_memory"});
  if (auto* dirs = plugins.get("dirs")) {
    c.plugin_dirs.clear();
    for (auto& d : strings(c, *dirs, "plugins.dirs")) c.plugin_dirs.push_back(expand_home(d));
  }
  if (auto* v = plugins.get("isolation")) {
    c.plugin_isolation = text(c, *v, "plugins.isolation");
    if (c.plugin_isolation != "third-party" && c.plugin_isolation != "all" &&
        c.plugin_isolation != "none")
      bad(c, *v, "'plugins.isolation' must be third-party, all or none");
  }
  if (auto* v = plugins.get("call_timeout_seconds")) {
    c.plugin_call_timeout_seconds = integer(c, *v, "plugins.call_timeout_seconds");
    if (c.plugin_call_timeout_seconds < 1)
      bad(c, *v, "'plugins.call_timeout_seconds' must be at least 1");
  }
  if (auto* v = plugins.get("worker_memory")) {
    c.plugin_worker_memory = size_value(c, *v, "plugins.worker_memory");
    if (c.plugin_worker_memory < (int64_t{64} << 20))
      bad(c, *v, "'plugins.worker_memory' must be at least 64MiB");
  }
}

// [store]
void apply_store(Config& c, const toml::table& store) {
  reject_unknown(c, store, "store", {"dir"});
  if (auto* dir = store.get("dir")) c.store_dir = expand_home(text(c, *dir, "store.dir"));
}

// [sources.<flavor>]: the roots each adapter's patterns are walked under.
void apply_sources(Config& c, const toml::table& sources) {
  for (const auto& [flavor, node] : sources) {
    const std::string section = "sources." + std::string(flavor.str());
    const auto* t = node.as_table();
    if (!t) bad(c, node, fmt::format("'{}' must be a table", section));
    reject_unknown(c, *t, section, {"roots"});
    if (auto* roots = t->get("roots")) {
      auto& out = c.source_roots[std::string(flavor.str())];
      for (auto& r : strings(c, *roots, section + ".roots")) out.push_back(expand_home(r));
    }
  }
}

// [adapters.<name>] and [digesters.<name>]: a plugin's own settings, handed to it as JSON.
void apply_plugin_settings(const toml::table* sections, std::map<std::string, std::string>& out) {
  if (!sections) return;
  for (const auto& [name, node] : *sections)
    out[std::string(name.str())] = boost::json::serialize(to_json(node));
}

// [digest]
void apply_digest(Config& c, const toml::table& digest) {
  reject_unknown(c, digest, "digest", {"digesters"});
  if (auto* names = digest.get("digesters")) {
    c.digesters = strings(c, *names, "digest.digesters");
    for (const auto& n : c.digesters)
      if (n.empty()) bad(c, *names, "'digest.digesters' holds an empty plugin name");
  }
}

// [session_memory.retention]: the storage budget of design §5.2.
void apply_retention(Config& c, const toml::table& memory) {
  reject_unknown(c, memory, "session_memory", {"retention"});
  const auto* r = memory["retention"].as_table();
  if (!r) return;
  const std::string s = "session_memory.retention";
  reject_unknown(c, *r, s,
                 {"raw_soft_cap_bytes", "raw_hard_cap_bytes", "raw_max_age_days",
                  "distilled_cap_bytes", "cadence"});
  auto& k = c.retention;
  if (auto* v = r->get("raw_soft_cap_bytes"))
    k.raw_soft_cap_bytes = size_value(c, *v, s + ".raw_soft_cap_bytes");
  if (auto* v = r->get("raw_hard_cap_bytes"))
    k.raw_hard_cap_bytes = size_value(c, *v, s + ".raw_hard_cap_bytes");
  if (auto* v = r->get("raw_max_age_days"))
    k.raw_max_age_days = integer(c, *v, s + ".raw_max_age_days");
  if (auto* v = r->get("distilled_cap_bytes"))
    k.distilled_cap_bytes = size_value(c, *v, s + ".distilled_cap_bytes");
  if (auto* v = r->get("cadence")) {
    k.cadence = text(c, *v, s + ".cadence");
    if (k.cadence != "daily" && k.cadence != "weekly" && k.cadence != "on-hook")
      bad(c, *v, "'cadence' must be daily, weekly or on-hook");
  }
  if (k.raw_soft_cap_bytes > k.raw_hard_cap_bytes)
    bad(c, *r, "raw_soft_cap_bytes must not exceed raw_hard_cap_bytes");
}

// [sweep]
void apply_sweep(Config& c, const toml::table& sweep) {
  reject_unknown(c, sweep, "sweep",
                 {"chunk_bytes", "max_record_bytes", "final_line_grace_seconds"});
  if (auto* v = sweep.get("chunk_bytes")) c.chunk_bytes = size_value(c, *v, "sweep.chunk_bytes");
  if (auto* v = sweep.get("max_record_bytes"))
    c.max_record_bytes = size_value(c, *v, "sweep.max_record_bytes");
  if (auto* v = sweep.get("final_line_grace_seconds"))
    c.final_line_grace_seconds = integer(c, *v, "sweep.final_line_grace_seconds");
  if (c.chunk_bytes < 4096) bad(c, sweep, "sweep.chunk_bytes must be at least 4KiB");
}

// [mcp]
void apply_mcp(Config& c, const toml::table& mcp) {
  reject_unknown(c, mcp, "mcp", {"repos"});
  if (auto* repos = mcp.get("repos")) c.mcp_repos = strings(c, *repos, "mcp.repos");
}

void apply(Config& c, const toml::table& root) {
  reject_unknown(c, root, "",
                 {"store", "plugins", "sources", "domains", "adapters", "redaction",
                  "session_memory", "sweep", "digest", "digesters", "mcp", "fleet"});
  if (auto* t = root["store"].as_table()) apply_store(c, *t);
  if (auto* t = root["plugins"].as_table()) apply_plugins(c, *t);
  if (auto* t = root["sources"].as_table()) apply_sources(c, *t);
  if (auto* domains = root["domains"].as_table())
    for (const auto& [repo, node] : *domains)
      c.repo_domains[std::string(repo.str())] = text(c, node, "domains." + std::string(repo.str()));
  apply_plugin_settings(root["adapters"].as_table(), c.adapter_settings);
  if (auto* t = root["digest"].as_table()) apply_digest(c, *t);
  apply_plugin_settings(root["digesters"].as_table(), c.digester_settings);
  if (auto* t = root["session_memory"].as_table()) apply_retention(c, *t);
  if (auto* t = root["sweep"].as_table()) apply_sweep(c, *t);
  if (auto* t = root["mcp"].as_table()) apply_mcp(c, *t);
  apply_redaction(c, root);
  apply_fleet(c, root);
}

}  // namespace

std::string expand_home(std::string_view path) {
  if (path == "~" || path.starts_with("~/"))
    return env_or("HOME", "/") + std::string(path.substr(1));
  return std::string(path);
}

std::filesystem::path executable_dir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::current_path() : exe.parent_path();
}

int64_t parse_size(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  std::size_t digits_start = i;
  double value = 0;
  bool seen_digit = false;
  double scale = 0;
  for (; i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.');
       ++i) {
    if (text[i] == '.') {
      if (scale != 0) break;
      scale = 1;
      continue;
    }
    seen_digit = true;
    if (scale != 0)
      value += (text[i] - '0') * (scale /= 10);
    else
      value = value * 10 + (text[i] - '0');
  }
  if (!seen_digit || i == digits_start)
    throw std::invalid_argument(fmt::format("'{}' is not a size such as 4GiB or 500MB", text));
  while (i < text.size() && text[i] == ' ') ++i;
  std::string unit(text.substr(i));
  for (auto& ch : unit) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  static const std::pair<const char*, double> kUnits[] = {{"", 1},
                                                          {"b", 1},
                                                          {"kb", 1e3},
                                                          {"mb", 1e6},
                                                          {"gb", 1e9},
                                                          {"tb", 1e12},
                                                          {"kib", 1024.0},
                                                          {"mib", 1048576.0},
                                                          {"gib", 1073741824.0},
                                                          {"tib", 1099511627776.0},
                                                          {"k", 1024.0},
                                                          {"m", 1048576.0},
                                                          {"g", 1073741824.0}};
  for (const auto& [name, factor] : kUnits)
    if (unit == name) return static_cast<int64_t>(value * factor);
  throw std::invalid_argument(
      fmt::format("unknown size unit '{}' in '{}' (use B, KB, MB, GB, "
                  "KiB, MiB, GiB, TiB)",
                  unit, text));
}

Config load_config(const std::string& explicit_file) {
  Config c;
  c.store_dir = xdg_dir("XDG_DATA_HOME", ".local/share") + "/helix";
  // Installed beside the host whatever the libdir: <bindir>/../<libdir>/helix/plugins.
  c.plugin_dirs = {(executable_dir() / HELIX_PLUGINS_FROM_BINDIR).lexically_normal().string()};
  std::filesystem::path file = explicit_file;
  if (file.empty()) {
    auto candidate = default_config_file();
    std::error_code ec;
    if (std::filesystem::exists(candidate, ec)) file = candidate;
  }
  if (file.empty()) return c;
  c.file = file;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    throw ConfigError(fmt::format(
        "the configuration file {} {}", file.string(),
        std::filesystem::exists(file, ec) ? "is not a regular file" : "does not exist"));
  try {
    const std::string text = read_trusted_file(file);
    apply(c, toml::parse(text, file.string()));
  } catch (const toml::parse_error& e) {
    throw ConfigError(
        fmt::format("{}:{}: {}", file.string(), e.source().begin.line, e.description()));
  }
  return c;
}

std::filesystem::path default_config_file() {
  return std::filesystem::path(xdg_dir("XDG_CONFIG_HOME", ".config")) / "helix" / "config.toml";
}

std::string to_toml(const Config& c) {
  toml::table root;
  root.insert("store", toml::table{{"dir", c.store_dir}});
  toml::array dirs;
  for (const auto& d : c.plugin_dirs) dirs.push_back(d);
  root.insert("plugins", toml::table{{"dirs", dirs},
                                     {"isolation", c.plugin_isolation},
                                     {"call_timeout_seconds", c.plugin_call_timeout_seconds},
                                     {"worker_memory", c.plugin_worker_memory}});
  toml::table sources;
  for (const auto& [flavor, roots] : c.source_roots) {
    toml::array a;
    for (const auto& r : roots) a.push_back(r);
    sources.insert(flavor, toml::table{{"roots", a}});
  }
  root.insert("sources", sources);
  toml::table domains;
  for (const auto& [repo, domain] : c.repo_domains) domains.insert(repo, domain);
  root.insert("domains", domains);
  toml::array digesters;
  for (const auto& d : c.digesters) digesters.push_back(d);
  root.insert("digest", toml::table{{"digesters", digesters}});
  const auto& r = c.retention;
  root.insert("session_memory",
              toml::table{{"retention", toml::table{{"raw_soft_cap_bytes", r.raw_soft_cap_bytes},
                                                    {"raw_hard_cap_bytes", r.raw_hard_cap_bytes},
                                                    {"raw_max_age_days", r.raw_max_age_days},
                                                    {"distilled_cap_bytes", r.distilled_cap_bytes},
                                                    {"cadence", r.cadence}}}});
  root.insert("sweep", toml::table{{"chunk_bytes", c.chunk_bytes},
                                   {"max_record_bytes", c.max_record_bytes},
                                   {"final_line_grace_seconds", c.final_line_grace_seconds}});
  toml::array mcp_repos;
  for (const auto& repo : c.mcp_repos) mcp_repos.push_back(repo);
  root.insert("mcp", toml::table{{"repos", mcp_repos}});
  toml::array disable, allow, rules;
  for (const auto& id : c.redaction.disable) disable.push_back(id);
  for (const auto& entry : c.redaction.allow) {
    toml::array ids;
    for (const auto& id : entry.rules) ids.push_back(id);
    allow.push_back(toml::table{{"rules", ids}, {"regex", entry.regex}});
  }
  for (const auto& rule : c.redaction.rules) {
    toml::table t{{"id", rule.id}, {"regex", rule.regex}};
    if (rule.group >= 0) t.insert("group", rule.group);
    rules.push_back(std::move(t));
  }
  toml::table redaction{{"disable", disable}, {"allow", allow}};
  if (!rules.empty()) redaction.insert("rules", rules);
  root.insert("redaction", redaction);
  if (!c.fleet.connection.empty()) {
    const auto& f = c.fleet;
    root.insert("fleet", toml::table{{"connection", f.connection},
                                     {"password_file", f.password_file},
                                     {"team", f.team},
                                     {"host_id_file", f.host_id_file},
                                     {"events", f.events},
                                     {"cadence", f.cadence},
                                     {"batch_sessions", f.batch_sessions}});
  }
  std::ostringstream out;
  out << "# effective configuration ("
      << (c.file.empty() ? "built-in defaults: no " + default_config_file().string()
                         : c.file.string())
      << ")\n"
      << root << "\n";
  for (const auto& [name, json] : c.adapter_settings)
    out << "\n# [adapters." << name << "] as passed to the plugin: " << json << "\n";
  for (const auto& [name, json] : c.digester_settings)
    out << "\n# [digesters." << name << "] as passed to the plugin: " << json << "\n";
  return out.str();
}

}  // namespace helix

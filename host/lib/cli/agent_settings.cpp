#include "cli/agent_settings.hpp"

#include "base/json_text.hpp"
#include "config/config.hpp"

#include <fmt/format.h>

#include <toml++/toml.h>
#include <boost/json.hpp>

#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace helix {
namespace {

// The hook events each JSON-configured agent gets: when a reply ends and when a session closes.
std::vector<std::string> hook_events(std::string_view agent) {
  if (agent == "gemini") return {"AfterAgent", "SessionEnd"};
  return {"Stop", "SessionEnd"};
}

std::filesystem::path home_of(const char* variable, const char* fallback) {
  const char* v = std::getenv(variable);
  return v && *v ? std::filesystem::path(v) : std::filesystem::path(expand_home(fallback));
}

// helix's entries are recognised by their command: "<anything>helix-host hook <agent>...".
bool is_helix_command(std::string_view command) {
  return command.find("helix-host") != std::string_view::npos &&
         command.find(" hook ") != std::string_view::npos;
}

bool is_helix_entry(const boost::json::value& entry) {
  const auto* hooks = entry.is_object() ? entry.as_object().if_contains("hooks") : nullptr;
  if (!hooks || !hooks->is_array()) return false;
  for (const auto& h : hooks->as_array())
    if (const auto* c = h.is_object() ? h.as_object().if_contains("command") : nullptr;
        c && c->is_string() && is_helix_command(c->as_string()))
      return true;
  return false;
}

boost::json::object parse_settings(std::string_view agent, std::string_view settings) {
  if (settings.find_first_not_of(" \t\r\n") == std::string_view::npos) return {};
  boost::system::error_code ec;
  auto v = boost::json::parse(settings, ec);
  if (ec || !v.is_object())
    throw std::runtime_error(
        fmt::format("the {} settings are not a JSON object ({}); fix the file first", agent,
                    ec ? ec.message() : "another JSON value"));
  return v.as_object();
}

std::string json_with_hook(std::string_view agent, std::string_view settings,
                           std::string_view command) {
  auto doc = parse_settings(agent, settings);
  const std::string before = doc.empty() ? "" : to_pretty_json(doc);
  auto& hooks = doc["hooks"];
  if (!hooks.is_object()) {
    if (!hooks.is_null())
      throw std::runtime_error(fmt::format("\"hooks\" in the {} settings is not an object", agent));
    hooks = boost::json::object();
  }
  for (const auto& event : hook_events(agent)) {
    auto& list = hooks.as_object()[event];
    if (list.is_null()) list = boost::json::array();
    if (!list.is_array())
      throw std::runtime_error(
          fmt::format("hooks.{} in the {} settings is not a list", event, agent));
    bool present = false;
    for (const auto& e : list.as_array()) present = present || is_helix_entry(e);
    if (!present)
      list.as_array().push_back(boost::json::object{
          {"hooks",
           boost::json::array{boost::json::object{{"type", "command"}, {"command", command}}}}});
  }
  const std::string after = to_pretty_json(doc);
  return after == before ? std::string(settings) : after;
}

std::string json_without_hook(std::string_view agent, std::string_view settings) {
  auto doc = parse_settings(agent, settings);
  auto* hooks = doc.if_contains("hooks");
  if (!hooks || !hooks->is_object()) return std::string(settings);
  bool changed = false;
  for (auto it = hooks->as_object().begin(); it != hooks->as_object().end();) {
    if (it->value().is_array()) {
      auto& list = it->value().as_array();
      for (auto e = list.begin(); e != list.end();)
        if (is_helix_entry(*e)) {
          e = list.erase(e);
          changed = true;
        } else {
          ++e;
        }
      if (list.empty() && changed) {
        it = hooks->as_object().erase(it);
        continue;
      }
    }
    ++it;
  }
  if (!changed) return std::string(settings);
  if (hooks->as_object().empty()) doc.erase("hooks");
  return to_pretty_json(doc);
}

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> out;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// Codex reads one top-level `notify = [...]`: it must come before the first [table].
std::string toml_with_hook(std::string_view settings, std::string_view command) {
  auto lines = lines_of(settings);
  std::string argv;
  std::istringstream words{std::string(command)};
  for (std::string w; words >> w;)
    argv += fmt::format("{}{}", argv.empty() ? "" : ", ",
                        boost::json::serialize(boost::json::value(w)));
  const std::string ours = fmt::format("notify = [{}]", argv);
  std::size_t first_table = lines.size();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto& l = lines[i];
    const auto start = l.find_first_not_of(" \t");
    if (start != std::string::npos && l[start] == '[') {
      first_table = std::min(first_table, i);
      continue;
    }
    if (i < first_table && start != std::string::npos && l.compare(start, 6, "notify") == 0) {
      if (is_helix_command(l.substr(0, l.find('#')).c_str()) ||
          (l.find("helix-host") != std::string::npos && l.find("\"hook\"") != std::string::npos))
        return std::string(settings);  // already installed
      throw std::runtime_error(fmt::format(
          "Codex already runs a notify program ({}); Codex takes one: call 'helix-host hook "
          "codex \"$1\"' from it instead (--no-hook installs the MCP server alone)",
          l));
    }
  }
  lines.insert(lines.begin() + static_cast<long>(first_table), ours);
  return joined(lines);
}

std::string toml_without_hook(std::string_view settings) {
  auto lines = lines_of(settings);
  const auto before = lines.size();
  std::erase_if(lines, [](const std::string& l) {
    const auto start = l.find_first_not_of(" \t");
    return start != std::string::npos && l.compare(start, 6, "notify") == 0 &&
           l.find("helix-host") != std::string::npos && l.find("\"hook\"") != std::string::npos;
  });
  return lines.size() == before ? std::string(settings) : joined(lines);
}

// --- the MCP server entry ---

constexpr std::string_view kServerName = "helix";

bool is_helix_server_argv(std::string_view command, bool runs_mcp) {
  return command.ends_with("helix-host") && runs_mcp;
}

bool is_helix_server(const boost::json::value& entry) {
  const auto* o = entry.if_object();
  const auto* command = o ? o->if_contains("command") : nullptr;
  const auto* args = o ? o->if_contains("args") : nullptr;
  if (!command || !command->is_string() || !args || !args->is_array()) return false;
  bool runs_mcp = false;
  for (const auto& a : args->get_array()) runs_mcp = runs_mcp || (a.is_string() && a == "mcp");
  return is_helix_server_argv(command->get_string(), runs_mcp);
}

std::runtime_error foreign_server(std::string_view agent) {
  return std::runtime_error(fmt::format(
      "the {} settings already name an MCP server \"helix\" that does not run 'helix-host mcp'; "
      "rename or remove it first",
      agent));
}

// As `claude mcp add --scope user` writes it for Claude Code; command and args for Gemini CLI.
boost::json::object json_server_entry(std::string_view agent,
                                      const std::vector<std::string>& argv) {
  boost::json::object entry;
  if (agent == "claude") entry["type"] = "stdio";
  entry["command"] = argv.front();
  entry["args"] = boost::json::array(argv.begin() + 1, argv.end());
  if (agent == "claude") entry["env"] = boost::json::object();
  return entry;
}

std::string json_with_server(std::string_view agent, std::string_view config,
                             const std::vector<std::string>& argv) {
  auto doc = parse_settings(agent, config);
  const std::string before = doc.empty() ? "" : to_pretty_json(doc);
  auto& servers = doc["mcpServers"];
  if (servers.is_null()) servers = boost::json::object();
  if (!servers.is_object())
    throw std::runtime_error(
        fmt::format("\"mcpServers\" in the {} settings is not an object", agent));
  auto& entry = servers.as_object()[kServerName];
  if (!entry.is_null() && !is_helix_server(entry)) throw foreign_server(agent);
  entry = json_server_entry(agent, argv);
  const std::string after = to_pretty_json(doc);
  return after == before ? std::string(config) : after;
}

std::string json_without_server(std::string_view agent, std::string_view config) {
  auto doc = parse_settings(agent, config);
  auto* servers = doc.if_contains("mcpServers");
  auto* entry =
      servers && servers->is_object() ? servers->as_object().if_contains(kServerName) : nullptr;
  if (!entry || !is_helix_server(*entry)) return std::string(config);
  servers->as_object().erase(kServerName);
  if (servers->as_object().empty()) doc.erase("mcpServers");
  return to_pretty_json(doc);
}

toml::table parse_toml(std::string_view agent, std::string_view config) {
  try {
    return toml::parse(config);
  } catch (const toml::parse_error& e) {
    throw std::runtime_error(
        fmt::format("the {} config is not valid TOML (line {}: {}); fix the file first", agent,
                    e.source().begin.line, e.description()));
  }
}

enum class ServerEntry { absent, helix, other };

// What `[mcp_servers.helix]` is in a Codex or Grok Build config.
ServerEntry toml_server_entry(const toml::table& doc) {
  const auto node = doc.at_path("mcp_servers.helix");
  if (!node) return ServerEntry::absent;
  const auto* entry = node.as_table();
  if (!entry) return ServerEntry::other;
  const auto command = (*entry)["command"].value<std::string>();
  bool runs_mcp = false;
  if (const auto* args = (*entry)["args"].as_array())
    for (const auto& a : *args) runs_mcp = runs_mcp || a.value<std::string>() == "mcp";
  return command && is_helix_server_argv(*command, runs_mcp) ? ServerEntry::helix
                                                             : ServerEntry::other;
}

// A `[mcp_servers.helix]` (or `[mcp_servers.helix.env]`...) table header line.
bool is_helix_table_header(std::string_view line) {
  const auto open = line.find_first_not_of(" \t");
  if (open == std::string_view::npos || line[open] != '[') return false;
  std::string name;
  for (char c : line.substr(open + 1, line.find(']') - open - 1))
    if (c != ' ' && c != '\t' && c != '"') name += c;
  return name == "mcp_servers.helix" || name.starts_with("mcp_servers.helix.");
}

bool is_table_header(std::string_view line) {
  const auto start = line.find_first_not_of(" \t");
  return start != std::string_view::npos && line[start] == '[';
}

bool is_blank(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

// The lines [first, last) of helix's tables, without the blank lines after them.
std::pair<std::size_t, std::size_t> helix_block(const std::vector<std::string>& lines,
                                                std::string_view agent) {
  std::size_t first = 0;
  while (first < lines.size() && !is_helix_table_header(lines[first])) ++first;
  if (first == lines.size())
    throw std::runtime_error(fmt::format(
        "the {} config defines mcp_servers.helix in a form helix does not edit (not as a "
        "[mcp_servers.helix] table); edit it by hand",
        agent));
  std::size_t last = first + 1;
  while (last < lines.size() &&
         (!is_table_header(lines[last]) || is_helix_table_header(lines[last])))
    ++last;
  while (last > first + 1 && is_blank(lines[last - 1])) --last;
  return {first, last};
}

std::string toml_string(std::string_view text) {
  return boost::json::serialize(boost::json::value(text));  // a TOML basic string too
}

std::vector<std::string> toml_server_block(const std::vector<std::string>& argv) {
  std::string args;
  for (std::size_t i = 1; i < argv.size(); ++i)
    args += fmt::format("{}{}", i == 1 ? "" : ", ", toml_string(argv[i]));
  return {"[mcp_servers.helix]", "command = " + toml_string(argv.front()),
          fmt::format("args = [{}]", args)};
}

std::string toml_with_server(std::string_view agent, std::string_view config,
                             const std::vector<std::string>& argv) {
  auto lines = lines_of(config);
  const auto block = toml_server_block(argv);
  switch (toml_server_entry(parse_toml(agent, config))) {
    case ServerEntry::other:
      throw foreign_server(agent);
    case ServerEntry::helix: {
      const auto [first, last] = helix_block(lines, agent);
      if (std::vector<std::string>(lines.begin() + static_cast<long>(first),
                                   lines.begin() + static_cast<long>(last)) == block)
        return std::string(config);
      lines.erase(lines.begin() + static_cast<long>(first),
                  lines.begin() + static_cast<long>(last));
      lines.insert(lines.begin() + static_cast<long>(first), block.begin(), block.end());
      break;
    }
    case ServerEntry::absent:
      if (!lines.empty()) lines.emplace_back();
      lines.insert(lines.end(), block.begin(), block.end());
  }
  std::string after = joined(lines);
  if (toml_server_entry(parse_toml(agent, after)) != ServerEntry::helix)
    throw std::runtime_error(fmt::format(
        "adding [mcp_servers.helix] to the {} config would not give a valid entry; add it by "
        "hand:\n{}",
        agent, joined(block)));
  return after;
}

std::string toml_without_server(std::string_view agent, std::string_view config) {
  if (toml_server_entry(parse_toml(agent, config)) != ServerEntry::helix)
    return std::string(config);
  auto lines = lines_of(config);
  auto [first, last] = helix_block(lines, agent);
  if (first > 0 && is_blank(lines[first - 1])) --first;  // the separator install added
  lines.erase(lines.begin() + static_cast<long>(first), lines.begin() + static_cast<long>(last));
  return joined(lines);
}

// One line of an edit script: ' ' kept, '-' removed, '+' added.
struct Edit {
  char op;
  std::string_view line;
};

constexpr std::size_t kContext = 3;
// Beyond this many cells, the changed middle is shown as removed then added, not minimised: a
// file rewritten in another layout would otherwise need a table of its size squared.
constexpr std::size_t kMaxLcsCells = std::size_t{4} << 20;

// The edits from a[a0, a1) to b[b0, b1): a longest common subsequence, then the walk along it.
void middle_edits(const std::vector<std::string>& a, std::size_t a0, std::size_t a1,
                  const std::vector<std::string>& b, std::size_t b0, std::size_t b1,
                  std::vector<Edit>& edits) {
  const std::size_t n = a1 - a0, m = b1 - b0;
  if ((n + 1) * (m + 1) > kMaxLcsCells) {
    for (std::size_t i = a0; i < a1; ++i) edits.push_back({'-', a[i]});
    for (std::size_t j = b0; j < b1; ++j) edits.push_back({'+', b[j]});
    return;
  }
  std::vector<std::vector<std::size_t>> lcs(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      lcs[i][j] =
          a[a0 + i] == b[b0 + j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[a0 + i] == b[b0 + j]) {
      edits.push_back({' ', a[a0 + i++]});
      ++j;
    } else if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      edits.push_back({'+', b[b0 + j++]});
    } else {
      edits.push_back({'-', a[a0 + i++]});
    }
  }
}

// From `a` to `b`: the common first and last lines kept, the middle between them minimised.
std::vector<Edit> edit_script(const std::vector<std::string>& a,
                              const std::vector<std::string>& b) {
  std::size_t prefix = 0, suffix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
         a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix])
    ++suffix;
  std::vector<Edit> edits;
  for (std::size_t i = 0; i < prefix; ++i) edits.push_back({' ', a[i]});
  middle_edits(a, prefix, a.size() - suffix, b, prefix, b.size() - suffix, edits);
  for (std::size_t i = a.size() - suffix; i < a.size(); ++i) edits.push_back({' ', a[i]});
  return edits;
}

}  // namespace

std::filesystem::path agent_mcp_file(std::string_view agent) {
  if (agent == "claude") {
    const char* dir = std::getenv("CLAUDE_CONFIG_DIR");
    return (dir && *dir ? std::filesystem::path(dir) : std::filesystem::path(expand_home("~"))) /
           ".claude.json";
  }
  if (agent == "grok") return home_of("GROK_HOME", "~/.grok") / "config.toml";
  return agent_settings_file(agent);  // Codex's config.toml, Gemini CLI's settings.json
}

std::string with_mcp_server(std::string_view agent, std::string_view config,
                            const std::vector<std::string>& argv) {
  if (agent == "codex" || agent == "grok") return toml_with_server(agent, config, argv);
  return json_with_server(agent, config, argv);
}

std::string without_mcp_server(std::string_view agent, std::string_view config) {
  if (agent == "codex" || agent == "grok") return toml_without_server(agent, config);
  return json_without_server(agent, config);
}

std::filesystem::path agent_settings_file(std::string_view agent) {
  if (agent == "claude") return home_of("CLAUDE_CONFIG_DIR", "~/.claude") / "settings.json";
  if (agent == "codex") return home_of("CODEX_HOME", "~/.codex") / "config.toml";
  if (agent == "grok") return home_of("GROK_HOME", "~/.grok") / "hooks" / "helix.json";
  // Gemini CLI's override names the home that holds .gemini, as the adapter reads it.
  if (agent == "gemini") return home_of("GEMINI_CLI_HOME", "~") / ".gemini" / "settings.json";
  throw std::invalid_argument(fmt::format("no settings file known for agent '{}'", agent));
}

std::string with_hook(std::string_view agent, std::string_view settings,
                      std::string_view hook_command) {
  if (agent == "codex") return toml_with_hook(settings, hook_command);
  return json_with_hook(agent, settings, hook_command);
}

std::string without_hook(std::string_view agent, std::string_view settings) {
  if (agent == "codex") return toml_without_hook(settings);
  return json_without_hook(agent, settings);
}

std::string line_diff(std::string_view before, std::string_view after, std::string_view name) {
  if (before == after) return {};
  const auto a = lines_of(before), b = lines_of(after);
  const auto edits = edit_script(a, b);  // views into a and b
  // Each changed line with up to kContext unchanged lines around it, in unified-diff hunks.
  std::vector<bool> shown(edits.size());
  for (std::size_t k = 0; k < edits.size(); ++k)
    if (edits[k].op != ' ')
      for (std::size_t c = k > kContext ? k - kContext : 0;
           c < std::min(edits.size(), k + kContext + 1); ++c)
        shown[c] = true;
  std::string out = fmt::format("--- {}\n+++ {} (after)\n", name, name);
  std::size_t a_line = 1, b_line = 1;  // the numbers of the next line of each side
  for (std::size_t k = 0; k < edits.size();) {
    if (!shown[k]) {
      a_line += edits[k].op != '+';
      b_line += edits[k].op != '-';
      ++k;
      continue;
    }
    std::string hunk;
    std::size_t a_count = 0, b_count = 0;
    for (; k < edits.size() && shown[k]; ++k) {
      hunk += edits[k].op + std::string(edits[k].line) + "\n";
      a_count += edits[k].op != '+';
      b_count += edits[k].op != '-';
    }
    out += fmt::format("@@ -{},{} +{},{} @@\n", a_count ? a_line : a_line - 1, a_count,
                       b_count ? b_line : b_line - 1, b_count) +
           hunk;
    a_line += a_count;
    b_line += b_count;
  }
  return out;
}

}  // namespace helix

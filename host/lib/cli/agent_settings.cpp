#include "cli/agent_settings.hpp"

#include "cli/json_output.hpp"
#include "config/config.hpp"

#include <fmt/format.h>

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
          "codex \"$1\"' from it instead",
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

}  // namespace

std::filesystem::path agent_settings_file(std::string_view agent) {
  if (agent == "claude") return home_of("CLAUDE_CONFIG_DIR", "~/.claude") / "settings.json";
  if (agent == "codex") return home_of("CODEX_HOME", "~/.codex") / "config.toml";
  if (agent == "grok") return home_of("GROK_HOME", "~/.grok") / "hooks" / "helix.json";
  if (agent == "gemini") return home_of("GEMINI_CLI_HOME", "~/.gemini") / "settings.json";
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
  // Longest common subsequence, then the edit script (the files are small).
  std::vector<std::vector<std::size_t>> lcs(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = a.size(); i-- > 0;)
    for (std::size_t j = b.size(); j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::string out = fmt::format("--- {}\n+++ {} (after)\n", name, name);
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (i < a.size() && j < b.size() && a[i] == b[j]) {
      out += " " + a[i++] + "\n";
      ++j;
    } else if (j < b.size() && (i == a.size() || lcs[i][j + 1] >= lcs[i + 1][j])) {
      out += "+" + b[j++] + "\n";
    } else {
      out += "-" + a[i++] + "\n";
    }
  }
  return out;
}

}  // namespace helix

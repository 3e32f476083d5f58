// helix-host hooks install|uninstall|status AGENT: adds or removes helix's hook and its MCP
// server entry in the agent's own settings, with a backup of each file, idempotently; --dry-run
// prints the change as a diff; status says what is there.
#include "base/json_text.hpp"
#include "cli/agent_settings.hpp"
#include "cli/cmd_hook.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "config/config.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>

namespace helix {
namespace {

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Writes `text` beside `file`, then renames it over: the settings are never half written.
void replace_file(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  const auto temp = file.parent_path() / (file.filename().string() + ".helix-tmp");
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) throw std::runtime_error(fmt::format("cannot write {}", temp.string()));
  }
  std::filesystem::rename(temp, file);
}

// This helix-host, with the store and configuration in use: what the agent runs.
std::vector<std::string> helix_argv(const Globals& g) {
  std::vector<std::string> argv{(executable_dir() / "helix-host").string()};
  if (!g.store_dir.empty())
    argv.insert(argv.end(), {"--store", std::filesystem::absolute(g.store_dir).string()});
  if (!g.config_file.empty())
    argv.insert(argv.end(), {"--config", std::filesystem::absolute(g.config_file).string()});
  return argv;
}

std::string joined_command(const std::vector<std::string>& argv) {
  std::string command;
  for (const auto& word : argv) command += (command.empty() ? "" : " ") + word;
  return command;
}

// One thing helix puts in an agent's files: its hook, or its MCP server entry.
struct Part {
  std::string name;  // "hook" or "mcp_server"
  std::filesystem::path file;
  std::function<std::string(std::string_view)> install, uninstall;
};

std::vector<Part> parts_of(const Globals& g, const boost::program_options::variables_map& vm,
                           const std::string& agent) {
  const auto settings = vm.count("settings")
                            ? std::filesystem::path(vm["settings"].as<std::string>())
                            : agent_settings_file(agent);
  if (vm.count("no-hook") && vm.count("no-mcp"))
    throw UsageError("--no-hook and --no-mcp leave nothing to do: give at most one");
  std::vector<Part> parts;
  auto hook_argv = helix_argv(g);
  hook_argv.insert(hook_argv.end(), {"hook", agent});
  if (!vm.count("no-hook"))
    parts.push_back({"hook", settings,
                     [agent, command = joined_command(hook_argv)](std::string_view text) {
                       return with_hook(agent, text, command);
                     },
                     [agent](std::string_view text) { return without_hook(agent, text); }});
  if (vm.count("no-mcp")) return parts;
  // Codex and Gemini CLI keep both in one file: --settings moves both.
  const bool one_file = agent_mcp_file(agent) == agent_settings_file(agent);
  const auto mcp_file = vm.count("mcp-config")
                            ? std::filesystem::path(vm["mcp-config"].as<std::string>())
                        : one_file ? settings
                                   : agent_mcp_file(agent);
  auto mcp_argv = helix_argv(g);
  mcp_argv.push_back("mcp");
  parts.push_back(
      {"mcp_server", mcp_file,
       [agent, mcp_argv](std::string_view text) { return with_mcp_server(agent, text, mcp_argv); },
       [agent](std::string_view text) { return without_mcp_server(agent, text); }});
  return parts;
}

// What becomes of one file: its text before and after every part of the action.
struct FileChange {
  std::filesystem::path file;
  bool exists = false;
  std::string before, after;
  std::string backup;  // where the old text was copied ("" when none)
  bool removed = false;
};

std::string apply(const std::function<std::string(std::string_view)>& edit, const Part& part,
                  std::string_view text) {
  try {
    return edit(text);
  } catch (const std::runtime_error& e) {
    throw UsageError(fmt::format("{}: {}", part.file.string(), e.what()));
  }
}

// The files' texts after `action` (install, uninstall; status changes nothing).
std::vector<FileChange> plan(const std::vector<Part>& parts, const std::string& action) {
  std::vector<FileChange> changes;
  for (const auto& part : parts) {
    auto it = std::find_if(changes.begin(), changes.end(),
                           [&](const FileChange& c) { return c.file == part.file; });
    if (it == changes.end()) {
      FileChange c;
      c.file = part.file;
      std::error_code ec;
      c.exists = std::filesystem::exists(part.file, ec);
      c.before = c.after = c.exists ? read_text(part.file) : "";
      it = changes.insert(changes.end(), std::move(c));
    }
    if (action != "status")
      it->after = apply(action == "install" ? part.install : part.uninstall, part, it->after);
  }
  // A file left with nothing but `{}` goes: uninstall leaves no empty file of helix's behind.
  for (auto& c : changes)
    if (c.exists && c.after != c.before &&
        c.after.find_first_not_of(" \t\r\n{}") == std::string::npos) {
      c.after.clear();
      c.removed = true;
    }
  return changes;
}

void write_change(FileChange& c) {
  if (c.exists) {
    const auto stamp = fmt::format(
        "{:%Y%m%dT%H%M%S}",
        std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now()));
    const auto backup =
        c.file.parent_path() / (c.file.filename().string() + ".helix-backup-" + stamp);
    std::filesystem::copy_file(c.file, backup, std::filesystem::copy_options::overwrite_existing);
    c.backup = backup.string();
  }
  if (c.removed)
    std::filesystem::remove(c.file);
  else
    replace_file(c.file, c.after);
}

// Is `part` in `text`? Adding it again changes nothing.
bool has_part(const Part& part, std::string_view text) {
  try {
    return part.install(text) == text;
  } catch (const std::runtime_error&) {
    return false;  // something else holds its place
  }
}

boost::json::array parts_json(const std::vector<Part>& parts,
                              const std::vector<FileChange>& changes) {
  boost::json::array out;
  for (const auto& part : parts) {
    const auto c = std::find_if(changes.begin(), changes.end(),
                                [&](const FileChange& f) { return f.file == part.file; });
    out.push_back({{"part", part.name},
                   {"file", part.file.string()},
                   {"installed", has_part(part, c->after)}});
  }
  return out;
}

boost::json::object change_json(const FileChange& c) {
  return {{"file", c.file.string()},
          {"changed", c.after != c.before},
          {"backup", c.backup.empty() ? boost::json::value() : boost::json::value(c.backup)},
          {"removed", c.removed},
          {"diff", line_diff(c.before, c.after, c.file.string())}};
}

void print_status(const std::vector<Part>& parts, const std::vector<FileChange>& changes) {
  for (const auto& p : parts_json(parts, changes)) {
    const auto& o = p.as_object();
    std::cout << fmt::format("{:<10}  {:<13}  {}\n", o.at("part").as_string().c_str(),
                             o.at("installed").as_bool() ? "installed" : "not installed",
                             o.at("file").as_string().c_str());
  }
}

void print_change(const FileChange& c, const std::string& action, bool dry_run) {
  if (c.after == c.before) {
    std::cout << fmt::format("{}: helix's entries are {} already; nothing to do\n", c.file.string(),
                             action == "install" ? "there" : "not there");
    return;
  }
  if (!c.backup.empty())
    std::cout << fmt::format("backed up {} to {}\n", c.file.string(), c.backup);
  std::cout << line_diff(c.before, c.after, c.file.string());
  if (dry_run) return;
  std::cout << fmt::format("{} helix's entries {} {}{}\n",
                           action == "install" ? "installed" : "removed",
                           action == "install" ? "in" : "from", c.file.string(),
                           c.removed ? " (nothing else was in it: file removed)" : "");
}

}  // namespace

int cmd_hooks(const Globals& g, const std::vector<std::string>& args) {
  auto vm = parse_command("hooks", args);
  if (!vm.count("action") || !vm.count("agent"))
    throw UsageError("usage: helix-host hooks install|uninstall|status claude|codex|grok|gemini");
  const std::string action = vm["action"].as<std::string>();
  const std::string agent = vm["agent"].as<std::string>();
  const bool dry_run = action == "status" || vm.count("dry-run") > 0;
  const auto parts = parts_of(g, vm, agent);
  auto changes = plan(parts, action);
  if (!dry_run)
    for (auto& c : changes)
      if (c.after != c.before) write_change(c);
  if (vm.count("json")) {
    boost::json::array files;
    if (action != "status")
      for (const auto& c : changes) files.push_back(change_json(c));
    std::cout << to_json(boost::json::object{{"agent", agent},
                                             {"action", action},
                                             {"dry_run", dry_run},
                                             {"parts", parts_json(parts, changes)},
                                             {"files", std::move(files)}})
              << "\n";
    return kExitOk;
  }
  if (action == "status") {
    print_status(parts, changes);
    return kExitOk;
  }
  for (const auto& c : changes) print_change(c, action, dry_run);
  return kExitOk;
}

}  // namespace helix

// helix-host hooks install|uninstall AGENT: adds or removes helix's hook in the agent's own
// settings, with a backup of the file, idempotently; --dry-run prints the change as a diff.
#include "cli/agent_settings.hpp"
#include "cli/cmd_hook.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "config/config.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>
#include <fstream>
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

// The command the agent runs: this helix-host, with the store and configuration in use.
std::string hook_command(const Globals& g, const std::string& agent) {
  std::string command = (executable_dir() / "helix-host").string();
  if (!g.store_dir.empty())
    command += " --store " + std::filesystem::absolute(g.store_dir).string();
  if (!g.config_file.empty())
    command += " --config " + std::filesystem::absolute(g.config_file).string();
  return command + " hook " + agent;
}

}  // namespace

int cmd_hooks(const Globals& g, const std::vector<std::string>& args) {
  auto vm = parse_command("hooks", args);
  if (!vm.count("action") || !vm.count("agent"))
    throw UsageError("usage: helix-host hooks install|uninstall claude|codex|grok|gemini");
  const std::string action = vm["action"].as<std::string>();
  const std::string agent = vm["agent"].as<std::string>();
  const std::filesystem::path file = vm.count("settings")
                                         ? std::filesystem::path(vm["settings"].as<std::string>())
                                         : agent_settings_file(agent);
  std::error_code ec;
  const bool exists = std::filesystem::exists(file, ec);
  const std::string before = exists ? read_text(file) : "";
  std::string after;
  try {
    after = action == "install" ? with_hook(agent, before, hook_command(g, agent))
                                : without_hook(agent, before);
  } catch (const std::runtime_error& e) {
    throw UsageError(fmt::format("{}: {}", file.string(), e.what()));
  }
  if (after == before) {
    std::cout << fmt::format("{}: helix's hook is {} already; nothing to do\n", file.string(),
                             action == "install" ? "there" : "not there");
    return kExitOk;
  }
  if (vm.count("dry-run")) {
    std::cout << line_diff(before, after, file.string());
    return kExitOk;
  }
  if (exists) {
    const auto stamp = fmt::format(
        "{:%Y%m%dT%H%M%S}",
        std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now()));
    const auto backup = file.parent_path() / (file.filename().string() + ".helix-backup-" + stamp);
    std::filesystem::copy_file(file, backup, std::filesystem::copy_options::overwrite_existing);
    std::cout << fmt::format("backed up {} to {}\n", file.string(), backup.string());
  }
  if (agent == "grok" && after.find_first_not_of(" \t\r\n{}") == std::string::npos)
    std::filesystem::remove(file);  // helix's own file: nothing of it is left
  else
    replace_file(file, after);
  std::cout << line_diff(before, after, file.string());
  std::cout << fmt::format("{} helix's hook {} {}\n", action == "install" ? "installed" : "removed",
                           action == "install" ? "in" : "from", file.string());
  return kExitOk;
}

}  // namespace helix

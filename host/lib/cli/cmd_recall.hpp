// The recall commands: search, export, resume, report and the MCP server (docs/operations.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/cli_support.hpp"
#include "recall/resume_command.hpp"

namespace helix {

int cmd_search(const Globals& g, const std::vector<std::string>& args);
int cmd_export(const Globals& g, const std::vector<std::string>& args);
int cmd_resume(const Globals& g, const std::vector<std::string>& args);
int cmd_report(const Globals& g, const std::vector<std::string>& args);
int cmd_mcp(const Globals& g, const std::vector<std::string>& args);

// The resume command an adapter plugin declares (helix.resume/1), or nullopt.
std::optional<ResumeRecipe> resume_recipe(const PluginInfo& adapter);
// Each adapter's resume recipe, from the loaded plugins (for plan_resume).
ResumeRecipeOf recipes_of(const PluginRegistry& registry);

}  // namespace helix

// helix-host resume: prints the agent's own command that resumes a stored session.
#include <fmt/format.h>

#include <boost/json.hpp>
#include <iostream>

#include "base/json_text.hpp"
#include "cli/cmd_recall.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/terminal.hpp"
#include "plugins/plugin_registry.hpp"
#include "recall/resume_command.hpp"
#include "store/store.hpp"

namespace helix {
namespace po = boost::program_options;

namespace {

std::vector<std::string> words(const char* const* list) {
  std::vector<std::string> out;
  for (auto p = list; p && *p; ++p) out.emplace_back(*p);
  return out;
}

}  // namespace

ResumeRecipeOf recipes_of(const PluginRegistry& registry) {
  return [&registry](const std::string& adapter) -> std::optional<ResumeRecipe> {
    const PluginInfo* plugin = registry.find(adapter);
    return plugin ? resume_recipe(*plugin) : std::nullopt;
  };
}

std::optional<ResumeRecipe> resume_recipe(const PluginInfo& adapter) {
  if (!adapter.resume) return std::nullopt;
  const helix_resume_ext& r = *adapter.resume;
  ResumeRecipe recipe;
  recipe.agent = r.agent ? r.agent : adapter.name;
  recipe.argv = words(r.argv);
  recipe.refusal = r.refusal ? r.refusal : "";
  recipe.in_cwd = r.flags & HELIX_RESUME_IN_CWD;
  recipe.not_subagents = r.flags & HELIX_RESUME_NOT_SUBAGENTS;
  return recipe;
}

int cmd_resume(const Globals& g, const std::vector<std::string>& args) {
  auto vm = parse_command("resume", args);
  Config config = load_configuration(g);
  Store store = open_store_for_reading(g, config);
  const auto session = std::make_optional(required_session(store, vm, "resume"));
  const std::string& uid = session->uid;
  PluginRegistry registry;  // the adapter that read the session says how its agent resumes it
  load_plugins(registry, g, config);
  const ResumePlan plan = plan_resume(store, *session, recipes_of(registry));
  if (vm.count("json")) {
    std::cout << to_json(resume_json(uid, plan)) << "\n";
  } else if (plan.possible) {
    std::cout << plan.shell_line() << "\n";
  } else {
    print_message(fmt::format("cannot resume: {}", plan.reason));
  }
  return plan.possible ? kExitOk : kExitCannotResume;
}

}  // namespace helix

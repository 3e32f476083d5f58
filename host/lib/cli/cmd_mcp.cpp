// helix-host mcp: the Model Context Protocol server on stdin and stdout (see mcp/server.hpp).
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "app/repository.hpp"
#include "base/clock.hpp"
#include "base/json_text.hpp"
#include "cli/cmd_recall.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "digest/digest_runner.hpp"
#include "fleet/fleet_reader.hpp"
#include "mcp/fleet_tools.hpp"
#include "mcp/resources.hpp"
#include "mcp/server.hpp"
#include "mcp/tools.hpp"
#include "store/store.hpp"

#ifndef HELIX_VERSION
#error "HELIX_VERSION must name helix-host's version"
#endif

namespace helix {
namespace po = boost::program_options;
namespace {

// What a client's tools/list and resources/templates/list would get, without a store or a
// client: for reviewing the tools before installing the server.
boost::json::object catalogue(bool fleet) {
  boost::json::array tools;
  for (const auto& t : mcp::tool_specs()) tools.push_back(mcp::tool_descriptor(t));
  if (fleet)
    for (const auto& t : mcp::fleet_tool_specs()) tools.push_back(mcp::tool_descriptor(t));
  return {{"server", {{"name", "helix-host"}, {"version", HELIX_VERSION}}},
          {"protocol_version", mcp::kLatestProtocol},
          {"tools", std::move(tools)},
          {"resource_templates", mcp::resource_templates().at("resourceTemplates")}};
}

}  // namespace

int cmd_mcp(const Globals& g, const std::vector<std::string>& args) {
  auto vm = parse_command("mcp", args);
  if (vm.count("json")) {
    std::cout << to_json(catalogue(vm.count("fleet") > 0)) << "\n";
    return kExitOk;
  }
  Config config = load_configuration(g);
  const auto db_file = store_file(g, config);
  if (!std::filesystem::exists(db_file))
    throw UsageError(fmt::format("no store at {}; run 'helix-host sweep' first", db_file.string()));
  Store store(db_file, /*read_only=*/true);
  mcp::ServerOptions options;
  options.all_repos = vm.count("all-repos") > 0;
  options.extra_repos = config.mcp_repos;
  options.cwd = std::filesystem::current_path().string();
  options.primary_digester = primary_digester(config);
  options.version = HELIX_VERSION;
  options.repo_of = [&config](const std::string& dir) { return repository_of(config, dir); };
  options.now_ms = [] { return now_ms(); };
  PluginRegistry registry;  // only for each adapter's resume recipe
  load_plugins(registry, g, config);
  options.resume_recipe_of = recipes_of(registry);
  // Connected (and its schema checked) before serving: a fleet it cannot read fails here.
  std::unique_ptr<FleetReader> fleet;
  try {
    if (vm.count("fleet")) fleet = std::make_unique<FleetReader>(config.fleet);
  } catch (const std::invalid_argument& e) {  // no [fleet], a bad team, a password in clear
    throw UsageError(e.what());
  }
  options.fleet = fleet.get();
  // stdout carries the protocol alone: the C streams are not shared, and nothing else prints.
  std::ios::sync_with_stdio(false);
  mcp::Server server(store, std::move(options), std::cout);
  server.serve(std::cin);
  return kExitOk;
}

}  // namespace helix

// The MCP tools that answer from the team's fleet database (helix-host mcp --fleet): team_usage
// and team_search, within the server's repository scope and within what the database lets the
// configured login read (its team's rows: row-level security decides, not this server).
#pragma once

#include <boost/json.hpp>
#include <vector>

#include "fleet/fleet_reader.hpp"
#include "mcp/scope.hpp"
#include "mcp/tool_schema.hpp"

namespace helix::mcp {

const std::vector<ToolSpec>& fleet_tool_specs();

// Runs a tool of fleet_tool_specs(); returns its structured result. Throws ToolError.
boost::json::object run_fleet_tool(FleetReader& fleet, const Scope& scope, const ToolSpec& tool,
                                   const Arguments& args);

}  // namespace helix::mcp

// Which tool calls are agent plumbing rather than project work (the infra bucket of the design
// document §11.1): what HELIX_INFRA_OVERHEAD_SHARE measures.
#pragma once

#include <string_view>

namespace helix {

// MCP tools and agent plumbing (planning, task lists, tool search): calls that move no project
// work forward by themselves.
inline bool is_infra_tool(std::string_view tool) {
  static constexpr std::string_view kPlumbing[] = {"TodoWrite",
                                                   "TodoRead",
                                                   "ToolSearch",
                                                   "ListMcpResourcesTool",
                                                   "ReadMcpResourceTool",
                                                   "update_plan",
                                                   "TaskCreate",
                                                   "TaskUpdate",
                                                   "TaskList",
                                                   "TaskGet",
                                                   "EnterPlanMode",
                                                   "ExitPlanMode"};
  if (tool.starts_with("mcp__") || tool.starts_with("mcp_")) return true;
  for (auto p : kPlumbing)
    if (tool == p) return true;
  return false;
}

}  // namespace helix

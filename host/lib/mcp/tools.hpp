// The MCP server's tools: search_sessions, list_sessions, get_session, session_usage,
// resume_command and recall, each with its argument and result schemas, answering from the
// store within the server's repository scope.
#pragma once

#include "recall/resume_command.hpp"

#include <boost/json.hpp>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "mcp/scope.hpp"
#include "mcp/tool_schema.hpp"
#include "store/digest_store.hpp"
#include "store/store.hpp"

namespace helix::mcp {

// What a tool call works with.
struct ToolContext {
  Store& store;
  const Scope& scope;
  std::string primary_digester;
  int64_t now_ms = 0;
  ResumeRecipeOf resume_recipe_of;
};

// A call that ran but cannot be answered (no such session, outside the scope, a bad date): the
// result says so with isError, in words the model can act on.
struct ToolError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const std::vector<ToolSpec>& tool_specs();

// Argument `name` as Unix ms (0 when absent); a date alone ends at its day's last ms when
// `end_of_day`. Throws ToolError for what is not a date.
int64_t date_ms(const Arguments& a, const char* name, bool end_of_day);

// The repositories to answer about: the requested `repo` argument (which must be in scope),
// else the scope's (empty: every repository). Throws ToolError outside the scope.
std::vector<std::string> repos_to_search(const Scope& scope, const Arguments& a);

// A usage line as the usage tools return it ("key" only when `key` is not empty).
boost::json::object usage_json(const std::string& key, const UsageLine& l);

// The tools/list entry: name, title, description, inputSchema, outputSchema, annotations.
boost::json::object tool_descriptor(const ToolSpec& tool);

// Runs the tool; returns its structured result. Throws ToolError.
boost::json::object run_tool(const ToolContext& context, const ToolSpec& tool,
                             const Arguments& args);

// The one session `id` names within the scope (uid, uid prefix or native id prefix). Throws
// ToolError when none, several, or one outside the scope.
SessionRow resolve_session(Store& store, const Scope& scope, const std::string& id);

}  // namespace helix::mcp

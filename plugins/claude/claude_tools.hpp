// claude_tools.hpp: what a Claude Code tool_use means for the normalized event kinds.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <string_view>

namespace helix::claude {

// True when a shell command runs a test suite (pytest, npm test, cargo test, go test, ctest...).
bool runs_tests(std::string_view command);

// "edit", "test_run" or "tool_call" for a tool_use block of tool `name` with `input`.
std::string_view tool_call_kind(std::string_view name, const boost::json::object* input);

// The input field a human would name the call by (command, file path, pattern, url...).
std::string_view tool_call_detail(const boost::json::object* input);

}  // namespace helix::claude

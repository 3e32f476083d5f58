// A tool's arguments, declared once: the JSON Schema tools/list publishes and the check every
// tools/call goes through, so the two cannot disagree.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace helix::mcp {

struct Param {
  enum class Type { string, integer };
  std::string name;
  Type type = Type::string;
  std::string description;
  bool required = false;
  std::vector<std::string> choices;         // a string's allowed values (empty = any)
  std::optional<int64_t> minimum, maximum;  // an integer's bounds
  std::optional<int64_t> default_integer;
  std::string default_string;  // a string's default (empty = none)
};

struct ToolSpec {
  std::string name, title, description;
  std::vector<Param> params;
  boost::json::object output_schema;
};

// {"type": "object", "properties": ..., "required": [...], "additionalProperties": false}
boost::json::object input_schema(const ToolSpec& tool);

// Arguments that passed the schema, read with their defaults.
class Arguments {
 public:
  Arguments(const ToolSpec& tool, boost::json::object values)
      : tool_(&tool), values_(std::move(values)) {}
  std::string string(std::string_view name) const;  // the default, or "", when absent
  int64_t integer(std::string_view name) const;     // the default, or 0, when absent
  bool has(std::string_view name) const { return values_.contains(name); }

 private:
  const Param& param(std::string_view name) const;
  const ToolSpec* tool_;
  boost::json::object values_;
};

// Checks `arguments` (absent = {}) against the tool's parameters: types, required ones, bounds,
// choices and unknown names. Throws RpcFailure (invalid params) naming the argument.
Arguments validate_arguments(const ToolSpec& tool, const boost::json::value* arguments);

}  // namespace helix::mcp

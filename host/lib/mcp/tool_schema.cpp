// Tool argument schemas and their check (see tool_schema.hpp).
#include "mcp/tool_schema.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "mcp/json_rpc.hpp"

namespace helix::mcp {
namespace {

boost::json::object param_schema(const Param& p) {
  boost::json::object s{{"description", p.description}};
  if (p.type == Param::Type::integer) {
    s["type"] = "integer";
    if (p.minimum) s["minimum"] = *p.minimum;
    if (p.maximum) s["maximum"] = *p.maximum;
    if (p.default_integer) s["default"] = *p.default_integer;
  } else {
    s["type"] = "string";
    if (p.required) s["minLength"] = 1;
    if (!p.choices.empty()) {
      boost::json::array choices;
      for (const auto& c : p.choices) choices.emplace_back(c);
      s["enum"] = std::move(choices);
    }
    if (!p.default_string.empty()) s["default"] = p.default_string;
  }
  return s;
}

[[noreturn]] void invalid(const ToolSpec& tool, const std::string& what) {
  throw RpcFailure(kInvalidParams,
                   fmt::format("invalid arguments for tool '{}': {}", tool.name, what));
}

// JSON Schema's "integer" also admits 5.0.
std::optional<int64_t> as_integer(const boost::json::value& v) {
  if (v.is_int64()) return v.as_int64();
  if (v.is_uint64() && v.as_uint64() <= static_cast<uint64_t>(INT64_MAX))
    return static_cast<int64_t>(v.as_uint64());
  if (v.is_double() && std::trunc(v.as_double()) == v.as_double() &&
      std::fabs(v.as_double()) < 9.0e15)
    return static_cast<int64_t>(v.as_double());
  return std::nullopt;
}

void check_value(const ToolSpec& tool, const Param& p, const boost::json::value& v) {
  if (p.type == Param::Type::integer) {
    const auto n = as_integer(v);
    if (!n)
      invalid(tool, fmt::format("'{}' must be an integer, not {}", p.name,
                                boost::json::serialize(v).substr(0, 80)));
    if (p.minimum && *n < *p.minimum)
      invalid(tool, fmt::format("'{}' must be at least {}", p.name, *p.minimum));
    if (p.maximum && *n > *p.maximum)
      invalid(tool, fmt::format("'{}' must be at most {}", p.name, *p.maximum));
    return;
  }
  if (!v.is_string())
    invalid(tool, fmt::format("'{}' must be a string, not {}", p.name,
                              boost::json::serialize(v).substr(0, 80)));
  if (p.required && v.as_string().empty()) invalid(tool, fmt::format("'{}' is empty", p.name));
  if (!p.choices.empty()) {
    for (const auto& c : p.choices)
      if (v.as_string() == c) return;
    std::string allowed;
    for (const auto& c : p.choices) allowed += (allowed.empty() ? "" : ", ") + c;
    invalid(tool, fmt::format("'{}' must be one of {}", p.name, allowed));
  }
}

}  // namespace

boost::json::object input_schema(const ToolSpec& tool) {
  boost::json::object properties;
  boost::json::array required;
  for (const auto& p : tool.params) {
    properties[p.name] = param_schema(p);
    if (p.required) required.emplace_back(p.name);
  }
  boost::json::object schema{
      {"type", "object"}, {"properties", std::move(properties)}, {"additionalProperties", false}};
  if (!required.empty()) schema["required"] = std::move(required);
  return schema;
}

const Param& Arguments::param(std::string_view name) const {
  for (const auto& p : tool_->params)
    if (p.name == name) return p;
  throw std::logic_error(fmt::format("tool {} has no parameter {}", tool_->name, name));
}

std::string Arguments::string(std::string_view name) const {
  const Param& p = param(name);
  if (const auto* v = values_.if_contains(name)) return std::string(v->as_string());
  return p.default_string;
}

int64_t Arguments::integer(std::string_view name) const {
  const Param& p = param(name);
  if (const auto* v = values_.if_contains(name)) return *as_integer(*v);
  return p.default_integer.value_or(0);
}

Arguments validate_arguments(const ToolSpec& tool, const boost::json::value* arguments) {
  boost::json::object values;
  if (arguments && !arguments->is_null()) {
    if (!arguments->is_object()) invalid(tool, "\"arguments\" must be an object");
    values = arguments->as_object();
  }
  for (const auto& [name, value] : values) {
    const Param* declared = nullptr;
    for (const auto& p : tool.params)
      if (p.name == name) declared = &p;
    if (!declared) {
      std::string known;
      for (const auto& p : tool.params) known += (known.empty() ? "" : ", ") + p.name;
      invalid(tool,
              fmt::format("unknown argument '{}' (it takes {})", std::string_view(name), known));
    }
    check_value(tool, *declared, value);
  }
  for (const auto& p : tool.params)
    if (p.required && !values.contains(p.name))
      invalid(tool, fmt::format("'{}' is required", p.name));
  return Arguments(tool, std::move(values));
}

}  // namespace helix::mcp

// JSON-RPC framing and error replies (see json_rpc.hpp).
#include "mcp/json_rpc.hpp"

#include <fmt/format.h>

#include "base/json_text.hpp"

namespace helix::mcp {

std::optional<InputLine> LineReader::next() {
  std::streambuf* buf = in_.rdbuf();
  InputLine line;
  std::size_t length = 0;
  bool any = false;
  for (int c = buf->sbumpc(); c != std::char_traits<char>::eof(); c = buf->sbumpc()) {
    any = true;
    if (c == '\n') break;
    if (++length <= max_bytes_) line.text.push_back(static_cast<char>(c));
  }
  if (!any) return std::nullopt;
  if (!line.text.empty() && line.text.back() == '\r') line.text.pop_back();
  if (length > max_bytes_) {
    line.text.clear();
    line.text.shrink_to_fit();
    line.oversized_bytes = length;
  }
  return line;
}

namespace {

bool valid_id(const boost::json::value& id) {
  return id.is_string() || id.is_int64() || id.is_uint64();
}

}  // namespace

Message parse_message(std::string_view line, boost::json::value& id_out) {
  id_out = nullptr;
  boost::system::error_code ec;
  boost::json::value doc = boost::json::parse(line, ec);
  if (ec)
    throw RpcFailure(kParseError, fmt::format("the message is not valid JSON ({})", ec.message()));
  if (doc.is_array())
    throw RpcFailure(kInvalidRequest, "batches are not part of MCP; send one message per line");
  if (!doc.is_object())
    throw RpcFailure(kInvalidRequest, "a JSON-RPC message must be a JSON object");
  auto& o = doc.as_object();
  if (const auto* id = o.if_contains("id"); id && valid_id(*id)) id_out = *id;
  const auto* version = o.if_contains("jsonrpc");
  if (!version || !version->is_string() || version->as_string() != "2.0")
    throw RpcFailure(kInvalidRequest, "\"jsonrpc\" must be \"2.0\"");
  Message m;
  if (const auto* id = o.if_contains("id")) {
    if (!valid_id(*id)) throw RpcFailure(kInvalidRequest, "\"id\" must be a string or an integer");
    m.id = *id;
  }
  if (const auto* method = o.if_contains("method")) {
    if (!method->is_string() || method->as_string().empty())
      throw RpcFailure(kInvalidRequest, "\"method\" must be a non-empty string");
    m.method = method->as_string();
    if (const auto* params = o.if_contains("params")) {
      if (!params->is_object())
        throw RpcFailure(kInvalidRequest, "\"params\" must be an object in MCP");
      m.params = *params;
    }
    return m;
  }
  if (m.id.is_null())
    throw RpcFailure(kInvalidRequest, "a message needs a \"method\" or an \"id\"");
  if (const auto* result = o.if_contains("result")) m.result = *result;
  if (const auto* error = o.if_contains("error")) m.error = *error;
  if (m.result.is_null() && m.error.is_null())
    throw RpcFailure(kInvalidRequest, "a response needs a \"result\" or an \"error\"");
  return m;
}

void write_message(std::ostream& out, const boost::json::object& message) {
  out << to_json(message) << '\n';  // strings are written escaped: no newline inside
  out.flush();
}

boost::json::object result_message(const boost::json::value& id, boost::json::value result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

boost::json::object error_message(const boost::json::value& id, int code,
                                  const std::string& message, const boost::json::value& data) {
  boost::json::object error{{"code", code}, {"message", message}};
  if (!data.is_null()) error["data"] = data;
  boost::json::object m{{"jsonrpc", "2.0"}};
  if (!id.is_null()) m["id"] = id;  // MCP leaves the id out when it could not be read
  m["error"] = std::move(error);
  return m;
}

boost::json::object request_message(const boost::json::value& id, std::string_view method,
                                    boost::json::value params) {
  boost::json::object m{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) m["params"] = std::move(params);
  return m;
}

}  // namespace helix::mcp

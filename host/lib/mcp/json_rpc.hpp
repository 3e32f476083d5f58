// JSON-RPC 2.0 as MCP's stdio transport carries it: one message per line, read with a size
// limit, and the standard error replies.
#pragma once

#include <boost/json.hpp>
#include <cstddef>
#include <istream>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace helix::mcp {

// The error codes of JSON-RPC 2.0 and MCP's resource-not-found.
enum RpcCode : int {
  kParseError = -32700,
  kInvalidRequest = -32600,
  kMethodNotFound = -32601,
  kInvalidParams = -32602,
  kInternalError = -32603,
  kResourceNotFound = -32002,
};

// A request that cannot be served; the server answers it with a JSON-RPC error.
struct RpcFailure : std::runtime_error {
  RpcFailure(int error_code, const std::string& message, boost::json::value error_data = nullptr)
      : std::runtime_error(message), code(error_code), data(std::move(error_data)) {}
  int code;
  boost::json::value data;
};

// One line of input: its text, or how long it was when it exceeded the limit (its bytes were
// read and dropped, never held).
struct InputLine {
  std::string text;
  std::size_t oversized_bytes = 0;
};

// Reads newline-terminated messages holding at most `max_bytes` of each in memory.
class LineReader {
 public:
  LineReader(std::istream& in, std::size_t max_bytes) : in_(in), max_bytes_(max_bytes) {}
  // The next line without its newline; nullopt at the end of the input. A last line without a
  // newline counts.
  std::optional<InputLine> next();

 private:
  std::istream& in_;
  std::size_t max_bytes_;
};

// A message as it arrived: a request (method and id), a notification (method, no id), or a
// response to a request of ours (id and result or error).
struct Message {
  boost::json::value id;  // null for a notification
  std::string method;     // empty for a response
  boost::json::value params;
  boost::json::value result, error;  // of a response
  bool is_request() const { return !method.empty() && !id.is_null(); }
  bool is_notification() const { return !method.empty() && id.is_null(); }
  bool is_response() const { return method.empty(); }
};

// Parses one line; throws RpcFailure (parse error, invalid request) naming what is wrong, with
// `id_out` set to the request's id when it could be read.
Message parse_message(std::string_view line, boost::json::value& id_out);

// Writes one message as a single line and flushes it.
void write_message(std::ostream& out, const boost::json::object& message);
boost::json::object result_message(const boost::json::value& id, boost::json::value result);
// An error reply; a null `id` (the request's could not be read) is left out, as MCP's schema has
// it.
boost::json::object error_message(const boost::json::value& id, int code,
                                  const std::string& message,
                                  const boost::json::value& data = nullptr);
boost::json::object request_message(const boost::json::value& id, std::string_view method,
                                    boost::json::value params = nullptr);

}  // namespace helix::mcp

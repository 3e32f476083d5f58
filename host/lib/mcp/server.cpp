// The MCP server's lifecycle and dispatch (see server.hpp).
#include "mcp/server.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "base/json_text.hpp"
#include "mcp/fleet_tools.hpp"
#include "mcp/resources.hpp"
#include "mcp/tool_schema.hpp"
#include "mcp/tools.hpp"

namespace helix::mcp {
namespace {

namespace json = boost::json;

// Newest first; an initialize asking for another gets the newest.
constexpr const char* kProtocols[] = {kLatestProtocol, "2025-06-18", "2025-03-26", "2024-11-05"};

constexpr const char* kInstructions =
    "Helix remembers the coding-agent sessions on this machine (Claude Code, Codex CLI, Grok "
    "Build and others), with secrets redacted. Use recall or search_sessions to find whether "
    "something was done or discussed before, list_sessions for recent work, get_session to read "
    "one (summary, digest, or turns within max_tokens; follow next to read on), session_usage "
    "for tokens and cost, resume_command to continue a session. Answers cover this "
    "repository's sessions only unless the server was started with --all-repos.";

std::string text_param(const json::value& params, const char* name) {
  if (!params.is_object()) return {};
  const auto* v = params.as_object().if_contains(name);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

// Requests whose answer depends on the scope wait for the client's roots.
bool needs_scope(const std::string& method) {
  return method == "tools/call" || method.rfind("resources/", 0) == 0;
}

}  // namespace

Server::Server(Store& store, ServerOptions options, std::ostream& out)
    : store_(store), options_(std::move(options)), tools_(tool_specs()), out_(out) {
  if (options_.fleet)
    tools_.insert(tools_.end(), fleet_tool_specs().begin(), fleet_tool_specs().end());
  scope_ = options_.all_repos ? Scope::everything()
                              : Scope::of({options_.repo_of(options_.cwd)}, options_.extra_repos);
}

void Server::serve(std::istream& in) {
  LineReader reader(in, kMaxMessageBytes);
  while (auto line = reader.next()) handle(*line);
}

void Server::handle(const InputLine& line) {
  if (line.oversized_bytes > 0) {
    reply(error_message(nullptr, kInvalidRequest,
                        fmt::format("the message is too large ({} bytes; at most {} are read); "
                                    "it was dropped unread",
                                    line.oversized_bytes, kMaxMessageBytes)));
    return;
  }
  if (line.text.find_first_not_of(" \t") == std::string::npos) return;  // blank lines
  json::value id;
  try {
    handle_message(parse_message(line.text, id));
  } catch (const RpcFailure& e) {
    reply(error_message(id, e.code, e.what(), e.data));
  }
}

void Server::handle_message(const Message& m) {
  if (m.is_response()) return handle_response(m);
  if (m.is_notification()) return handle_notification(m);
  if (!roots_request_.empty() && needs_scope(m.method)) {
    waiting_.push_back(m);
    return;
  }
  handle_request(m);
}

void Server::handle_request(const Message& m) {
  try {
    reply(result_message(m.id, answer(m)));
  } catch (const RpcFailure& e) {
    reply(error_message(m.id, e.code, e.what(), e.data));
  } catch (const std::exception& e) {  // the store failed: say so, keep serving
    reply(error_message(m.id, kInternalError, fmt::format("helix-host failed: {}", e.what())));
  }
}

json::value Server::answer(const Message& m) {
  if (m.method == "ping") return json::object();
  if (m.method == "initialize") return initialize(m.params);
  if (!initialized_)
    throw RpcFailure(kInvalidRequest, fmt::format("'{}' before initialize: the client must "
                                                  "initialize the session first",
                                                  m.method));
  if (m.method == "tools/list") {
    json::array tools;
    for (const auto& t : tools_) tools.push_back(tool_descriptor(t));
    return json::object{{"tools", std::move(tools)}};
  }
  if (m.method == "tools/call") return call_tool(m.params);
  if (m.method == "resources/list")
    return list_resources(store_, scope_, text_param(m.params, "cursor"));
  if (m.method == "resources/templates/list") return resource_templates();
  if (m.method == "resources/read") {
    const std::string uri = text_param(m.params, "uri");
    if (uri.empty()) throw RpcFailure(kInvalidParams, "resources/read needs a \"uri\" string");
    return read_resource(store_, scope_, uri);
  }
  throw RpcFailure(kMethodNotFound, fmt::format("helix-host has no method '{}'", m.method));
}

json::object Server::initialize(const json::value& params) {
  const std::string asked = text_param(params, "protocolVersion");
  const auto known = std::find(std::begin(kProtocols), std::end(kProtocols), asked);
  initialized_ = true;
  if (params.is_object())
    if (const auto* caps = params.as_object().if_contains("capabilities");
        caps && caps->is_object())
      client_has_roots_ = caps->as_object().contains("roots");
  return {
      {"protocolVersion", known != std::end(kProtocols) ? *known : kLatestProtocol},
      {"capabilities",
       {{"tools", {{"listChanged", false}}},
        {"resources", {{"subscribe", false}, {"listChanged", false}}}}},
      {"serverInfo",
       {{"name", "helix-host"}, {"title", "Helix session memory"}, {"version", options_.version}}},
      {"instructions", kInstructions}};
}

json::object Server::call_tool(const json::value& params) {
  const std::string name = text_param(params, "name");
  if (name.empty()) throw RpcFailure(kInvalidParams, "tools/call needs a \"name\" string");
  const auto tool =
      std::find_if(tools_.begin(), tools_.end(), [&](const ToolSpec& t) { return t.name == name; });
  if (tool == tools_.end())
    throw RpcFailure(kInvalidParams,
                     fmt::format("unknown tool '{}'; tools/list names the tools", name));
  const Arguments args = validate_arguments(*tool, params.as_object().if_contains("arguments"));
  try {
    const ToolContext context{store_, scope_, options_.primary_digester, options_.now_ms(),
                              options_.resume_recipe_of};
    const bool team_tool =
        tool - tools_.begin() >= static_cast<std::ptrdiff_t>(tool_specs().size());
    json::object result = team_tool ? run_fleet_tool(*options_.fleet, scope_, *tool, args)
                                    : run_tool(context, *tool, args);
    const std::string text = to_json(result);
    return {{"content", json::array{json::object{{"type", "text"}, {"text", text}}}},
            {"structuredContent", std::move(result)},
            {"isError", false}};
  } catch (const ToolError& e) {
    return {{"content", json::array{json::object{{"type", "text"}, {"text", e.what()}}}},
            {"isError", true}};
  }
}

void Server::handle_notification(const Message& m) {
  // Roots are asked for once the client is ready, and again whenever it says they changed.
  const bool roots_may_differ =
      m.method == "notifications/initialized" || m.method == "notifications/roots/list_changed";
  if (roots_may_differ && client_has_roots_) ask_for_roots();
  // Other notifications (cancelled, progress) need nothing from a server that answers at once.
}

void Server::ask_for_roots() {
  roots_request_ = fmt::format("helix-roots-{}", ++roots_asked_);
  reply(request_message(json::value(roots_request_), "roots/list"));
}

void Server::handle_response(const Message& m) {
  if (roots_request_.empty() || !m.id.is_string() || m.id.as_string() != roots_request_) return;
  roots_request_.clear();
  if (!m.result.is_null()) use_roots(m.result);  // an error leaves the scope as it was
  while (!waiting_.empty() && roots_request_.empty()) {
    Message next = std::move(waiting_.front());
    waiting_.pop_front();
    handle_request(next);
  }
}

// The roots' repositories replace the working directory's (the configured ones stay).
void Server::use_roots(const json::value& result) {
  if (options_.all_repos || !result.is_object()) return;
  const auto* roots = result.as_object().if_contains("roots");
  if (!roots || !roots->is_array()) return;
  std::vector<std::string> repos;
  for (const auto& root : roots->as_array()) {
    const std::string path = file_uri_path(text_param(root, "uri"));
    if (!path.empty()) repos.push_back(options_.repo_of(path));
  }
  if (!repos.empty()) scope_ = Scope::of(repos, options_.extra_repos);
}

}  // namespace helix::mcp

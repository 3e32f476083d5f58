// helix-host mcp: a Model Context Protocol server on stdin and stdout (newline-delimited
// JSON-RPC 2.0, protocol revision 2025-11-25 and the earlier ones clients still speak). It
// answers the tools and resources of tools.hpp and resources.hpp from the store (and with a
// fleet, those of fleet_tools.hpp from the team's database), within a repository scope taken from
// the client's roots, else the working directory.
#pragma once

#include "recall/resume_command.hpp"

#include <boost/json.hpp>
#include <cstddef>
#include <deque>
#include <functional>
#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "fleet/fleet_reader.hpp"
#include "mcp/json_rpc.hpp"
#include "mcp/scope.hpp"
#include "mcp/tool_schema.hpp"
#include "store/store.hpp"

namespace helix::mcp {

inline constexpr const char* kLatestProtocol = "2025-11-25";
// A message larger than this is answered with an error and dropped unread.
inline constexpr std::size_t kMaxMessageBytes = 4 * 1024 * 1024;

struct ServerOptions {
  bool all_repos = false;
  std::vector<std::string> extra_repos;  // [mcp] repos
  std::string cwd;                       // the server's working directory
  std::string primary_digester;
  std::string version;  // helix-host's
  // The repository of a directory, as the store attributes a session's cwd.
  std::function<std::string(const std::string&)> repo_of;
  std::function<int64_t()> now_ms;
  ResumeRecipeOf resume_recipe_of;  // how each adapter's agent resumes a session
  // The team's fleet database (mcp --fleet): adds the tools of fleet_tools.hpp. Not owned;
  // outlives the server. Null: no team tools.
  FleetReader* fleet = nullptr;
};

class Server {
 public:
  Server(Store& store, ServerOptions options, std::ostream& out);

  // Serves until the input ends; every request gets an answer, whatever the input holds.
  void serve(std::istream& in);

  // One line of input (exposed for tests).
  void handle(const InputLine& line);

 private:
  void handle_message(const Message& m);
  void handle_request(const Message& m);
  void handle_notification(const Message& m);
  void handle_response(const Message& m);
  boost::json::value answer(const Message& m);
  boost::json::object initialize(const boost::json::value& params);
  boost::json::object call_tool(const boost::json::value& params);
  void ask_for_roots();
  void use_roots(const boost::json::value& result);
  void reply(const boost::json::object& message) { write_message(out_, message); }

  Store& store_;
  ServerOptions options_;
  std::vector<ToolSpec> tools_;  // the store's tools, then the team's with a fleet
  std::ostream& out_;
  Scope scope_;
  bool initialized_ = false;       // the client sent initialize
  bool client_has_roots_ = false;  // and declared the roots capability
  std::string roots_request_;      // the id of our unanswered roots/list ("" = none)
  int roots_asked_ = 0;
  std::deque<Message> waiting_;  // requests held until the roots answer arrives
};

}  // namespace helix::mcp

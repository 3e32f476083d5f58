// Which repositories an MCP server answers about, as G2 keeps each group's memory to itself: by
// default only the repository the agent runs in (from the client's roots, else the server's
// working directory, resolved as the store resolves a session's cwd), widened by [mcp] repos
// or to every repository by --all-repos. A request outside it gets a clear refusal, never data.
#pragma once

#include <boost/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace helix::mcp {

class Scope {
 public:
  static Scope everything();
  // `home` first: the repositories of the agent's roots or directory; then the configured ones.
  static Scope of(const std::vector<std::string>& home, const std::vector<std::string>& extra);

  bool all() const { return all_; }
  const std::vector<std::string>& repos() const { return repos_; }
  // The agent's own repository (recall ranks it first); empty when the scope is everything.
  const std::string& home() const { return home_; }
  bool allows(std::string_view repo) const;
  boost::json::value json() const;  // "all", or the list of repositories
  std::string describe() const;     // "repository cli", "repositories a, b", "every repository"

 private:
  bool all_ = false;
  std::vector<std::string> repos_;
  std::string home_;
};

// The refusal for `what` ("session codex:01a2…", "repository x") outside `scope`: names the
// scope and how to widen it, and nothing of what was asked for.
std::string outside_scope(const Scope& scope, std::string_view what);

// "file:///home/me/work/helix" -> "/home/me/work/helix" (percent-decoded); "" when `uri` is not
// a local file URI.
std::string file_uri_path(std::string_view uri);

}  // namespace helix::mcp

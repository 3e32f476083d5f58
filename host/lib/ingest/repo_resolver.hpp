// Attributes a session to a repository (from its cwd) and a domain (from the configured map), on
// the reading side of a sweep: the store only writes what it is given.
#pragma once

#include "model/records.hpp"

#include <map>
#include <string>
#include <string_view>

namespace helix {

class RepoResolver {
 public:
  explicit RepoResolver(std::map<std::string, std::string> repo_domains = {})
      : repo_domains_(std::move(repo_domains)) {}

  // The enclosing git repository's directory name when the cwd exists here and is inside one,
  // otherwise the cwd's last path segment. Empty for an empty cwd.
  std::string repo_for(std::string_view cwd) const;
  std::string domain_for(std::string_view repo) const;
  // Sets the session's repo and domain from its cwd; each directory is looked up once.
  void attribute(SessionRecord& session);

 private:
  std::map<std::string, std::string> repo_domains_;
  std::map<std::string, std::string, std::less<>> repo_by_cwd_;
};

}  // namespace helix

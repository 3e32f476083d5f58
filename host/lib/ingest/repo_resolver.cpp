#include "ingest/repo_resolver.hpp"

#include <filesystem>

namespace helix {

std::string RepoResolver::repo_for(std::string_view cwd) const {
  if (cwd.empty()) return {};
  std::filesystem::path path(cwd);
  std::error_code ec;
  for (auto dir = path; !dir.empty() && dir != dir.root_path(); dir = dir.parent_path()) {
    if (std::filesystem::exists(dir / ".git", ec)) return dir.filename().string();
  }
  while (!path.empty() && path.filename().empty()) path = path.parent_path();  // "a/b/"
  return path.filename().string();
}

std::string RepoResolver::domain_for(std::string_view repo) const {
  auto it = repo_domains_.find(std::string(repo));
  return it == repo_domains_.end() ? std::string() : it->second;
}

void RepoResolver::attribute(SessionRecord& session) {
  if (session.cwd.empty()) return;
  auto it = repo_by_cwd_.find(session.cwd);
  if (it == repo_by_cwd_.end()) it = repo_by_cwd_.emplace(session.cwd, repo_for(session.cwd)).first;
  session.repo = it->second;
  session.domain = domain_for(session.repo);
}

}  // namespace helix

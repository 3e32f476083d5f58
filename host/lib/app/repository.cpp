// Repository attribution for a directory (see repository.hpp).
#include "app/repository.hpp"

#include "ingest/repo_resolver.hpp"

namespace helix {

std::string repository_of(const Config& config, const std::string& dir) {
  return RepoResolver(config.repo_domains).repo_for(dir);
}

}  // namespace helix

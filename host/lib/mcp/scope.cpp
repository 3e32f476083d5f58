// The server's repository scope (see scope.hpp).
#include "mcp/scope.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace helix::mcp {

Scope Scope::everything() {
  Scope s;
  s.all_ = true;
  return s;
}

Scope Scope::of(const std::vector<std::string>& home, const std::vector<std::string>& extra) {
  Scope s;
  for (const auto* list : {&home, &extra})
    for (const auto& repo : *list)
      if (!repo.empty() && std::find(s.repos_.begin(), s.repos_.end(), repo) == s.repos_.end())
        s.repos_.push_back(repo);
  if (!home.empty()) s.home_ = home.front();
  return s;
}

bool Scope::allows(std::string_view repo) const {
  return all_ || (!repo.empty() && std::find(repos_.begin(), repos_.end(), repo) != repos_.end());
}

boost::json::value Scope::json() const {
  if (all_) return "all";
  boost::json::array list;
  for (const auto& r : repos_) list.emplace_back(r);
  return list;
}

std::string Scope::describe() const {
  if (all_) return "every repository";
  if (repos_.empty()) return "no repository (the working directory names none)";
  std::string names;
  for (const auto& r : repos_) names += (names.empty() ? "" : ", ") + r;
  return fmt::format("{} {}", repos_.size() == 1 ? "repository" : "repositories", names);
}

std::string outside_scope(const Scope& scope, std::string_view what) {
  return fmt::format(
      "{} is outside this server's scope ({}). helix-host mcp answers about the repository the "
      "agent runs in; to widen it, start the server with --all-repos or list more repositories "
      "under [mcp] repos in the Helix configuration.",
      what, scope.describe());
}

std::string file_uri_path(std::string_view uri) {
  constexpr std::string_view kScheme = "file://";
  if (uri.substr(0, kScheme.size()) != kScheme) return {};
  std::string_view rest = uri.substr(kScheme.size());
  if (!rest.empty() && rest.front() != '/') {  // file://host/path: only the local host
    const auto slash = rest.find('/');
    if (rest.substr(0, slash) != "localhost") return {};
    rest = slash == std::string_view::npos ? std::string_view("/") : rest.substr(slash);
  }
  std::string path;
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size() && std::isxdigit(rest[i + 1]) &&
        std::isxdigit(rest[i + 2])) {
      path += static_cast<char>(std::stoi(std::string(rest.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else if (rest[i] == '?' || rest[i] == '#') {
      break;
    } else {
      path += rest[i];
    }
  }
  return path;
}

}  // namespace helix::mcp

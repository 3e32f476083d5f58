#include "app/session_sources.hpp"

#include "ingest/discovery.hpp"

#include <fmt/format.h>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <string_view>

namespace helix {

namespace {

// Files beside a session's directory that its adapter says belong to it (Grok Build writes each
// prompt to <cwd dir>/prompt_history.jsonl, shared by the sessions of that directory).
void add_companions(const helix_hook_ext* hook, const std::vector<DiscoveredSource>& sources,
                    const std::set<std::string>& session_parents, std::vector<std::string>& paths) {
  for (auto companion = hook ? hook->companion_files : nullptr; companion && *companion;
       ++companion)
    for (const auto& s : sources)
      for (const auto& parent : session_parents)
        if (s.path == parent + "/" + *companion) paths.push_back(s.path);
}

}  // namespace

std::vector<std::string> session_sources(const PluginRegistry& registry, const Config& config,
                                         const std::string& flavor, const std::string& session_id,
                                         const std::string& transcript_path) {
  std::vector<const PluginInfo*> adapters;
  for (const PluginInfo* p : registry.adapters())
    if (p->adapter->flavor == flavor) adapters.push_back(p);
  if (adapters.empty())
    throw std::runtime_error(fmt::format("no loaded adapter plugin reads flavor '{}'", flavor));
  const helix_hook_ext* hook = registry.hook_events(flavor);
  const std::string_view id_in_names =
      std::string_view(session_id)
          .substr(0, hook && hook->id_chars_in_file_names ? hook->id_chars_in_file_names
                                                          : std::string_view::npos);
  std::error_code ec;
  const std::string transcript =
      transcript_path.empty() ? ""
                              : std::filesystem::weakly_canonical(transcript_path, ec).string();
  const auto sources = discover(adapters, config).sources;
  std::vector<std::string> paths;
  std::set<std::string> session_parents;  // directories holding a <session id>/ directory
  for (const auto& s : sources) {
    const std::string_view path = s.path;
    const auto name_at = path.rfind('/');
    const auto dir_at = path.find("/" + session_id + "/");
    if (dir_at != std::string_view::npos) session_parents.insert(s.path.substr(0, dir_at));
    if (dir_at != std::string_view::npos ||
        path.substr(name_at + 1).find(id_in_names) != std::string_view::npos ||
        (!transcript.empty() && s.path == transcript))
      paths.push_back(s.path);
  }
  add_companions(hook, sources, session_parents, paths);
  return paths;
}

}  // namespace helix

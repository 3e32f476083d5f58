#include "discovery.hpp"

#include <algorithm>
#include <cstdlib>
#include <fnmatch.h>
#include <map>
#include <set>
#include <tuple>

namespace helix {
namespace {

constexpr int kMaxDepth = 16;

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= s.size()) {
    std::size_t end = s.find(sep, pos);
    if (end == std::string_view::npos) end = s.size();
    std::string part(s.substr(pos, end - pos));
    auto first = part.find_first_not_of(' ');
    auto last = part.find_last_not_of(' ');
    if (first != std::string::npos) out.push_back(part.substr(first, last - first + 1));
    pos = end + 1;
  }
  return out;
}

bool segment_match(const std::string& pattern, const std::string& name) {
  return fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
}

bool has_wildcard(const std::string& s) { return s.find_first_of("*?[") != std::string::npos; }

// Appends files under `dir` matching segments[i..].
void walk(const std::filesystem::path& dir, const std::vector<std::string>& segments,
          std::size_t i, int depth, std::vector<std::string>& out) {
  if (depth > kMaxDepth) return;
  const std::string& seg = segments[i];
  const bool last = i + 1 == segments.size();
  std::error_code ec;
  if (seg == "**") {
    if (!last) walk(dir, segments, i + 1, depth, out);
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
      if (entry.is_directory(ec) && !entry.is_symlink(ec))
        walk(entry.path(), segments, i, depth + 1, out);
    return;
  }
  if (!has_wildcard(seg)) {  // literal segment: no directory listing needed
    auto next = dir / seg;
    if (last) {
      if (std::filesystem::is_regular_file(next, ec)) out.push_back(next.string());
    } else if (std::filesystem::is_directory(next, ec)) {
      walk(next, segments, i + 1, depth + 1, out);
    }
    return;
  }
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!segment_match(seg, name)) continue;
    if (last) {
      if (entry.is_regular_file(ec)) out.push_back(entry.path().string());
    } else if (entry.is_directory(ec) && !entry.is_symlink(ec)) {
      walk(entry.path(), segments, i + 1, depth + 1, out);
    }
  }
}

bool glob_match_segments(const std::vector<std::string>& pat, std::size_t pi,
                         const std::vector<std::string>& path, std::size_t si) {
  if (pi == pat.size()) return si == path.size();
  if (pat[pi] == "**") {
    for (std::size_t k = si; k <= path.size(); ++k)
      if (glob_match_segments(pat, pi + 1, path, k)) return true;
    return false;
  }
  return si < path.size() && segment_match(pat[pi], path[si]) &&
         glob_match_segments(pat, pi + 1, path, si + 1);
}

// The path of a discovered source, or a path itself (for searches in the sorted list).
std::string_view path_of(const DiscoveredSource& s) { return s.path; }
std::string_view path_of(std::string_view path) { return path; }

}  // namespace

bool glob_match(std::string_view pattern, std::string_view relative_path) {
  return glob_match_segments(split(pattern, '/'), 0, split(relative_path, '/'), 0);
}

std::vector<std::string> adapter_roots(const helix_adapter_vtable& adapter, const Config& config) {
  if (adapter.root_env) {
    const char* env = std::getenv(adapter.root_env);
    if (env && *env) {
      std::vector<std::string> roots;
      for (auto& r : split(env, ',')) roots.push_back(expand_home(r));
      return roots;
    }
  }
  if (auto it = config.source_roots.find(adapter.flavor); it != config.source_roots.end())
    return it->second;
  std::vector<std::string> roots;
  for (auto r = adapter.default_roots; r && *r; ++r) roots.push_back(expand_home(*r));
  return roots;
}

// One list of paths, sorted once: a sweep over 100,000 sources holds each path once.
Discovery discover(const std::vector<const PluginInfo*>& adapters, const Config& config) {
  Discovery result;
  auto& found = result.sources;
  for (const PluginInfo* plugin : adapters) {
    std::set<std::string> roots_seen;
    for (const auto& root : adapter_roots(*plugin->adapter, config)) {
      std::error_code ec;
      auto canonical = std::filesystem::weakly_canonical(root, ec).string();
      if (ec || !roots_seen.insert(canonical).second) continue;
      if (!std::filesystem::is_directory(canonical, ec)) continue;
      for (auto p = plugin->adapter->patterns; p->glob; ++p) {
        std::vector<std::string> files;
        walk(canonical, split(p->glob, '/'), 0, 0, files);
        for (auto& file : files) {
          if (is_credential_path(file))  // refused by name: the file is never opened
            result.refused_credentials.push_back({file, plugin->name});
          else
            found.push_back({std::move(file), p->layout});
        }
      }
    }
  }
  // By path; of the same path found twice, the first found (its layout) stays.
  std::stable_sort(found.begin(), found.end(),
                   [](const auto& a, const auto& b) { return a.path < b.path; });
  found.erase(std::unique(found.begin(), found.end(),
                          [](const auto& a, const auto& b) { return a.path == b.path; }),
              found.end());
  // The same session compressed and plain: the plain file is the one being written.
  auto plain_exists = [&](const DiscoveredSource& s) {
    if (!s.path.ends_with(".zst")) return false;
    const std::string_view plain = std::string_view(s.path).substr(0, s.path.size() - 4);
    return std::binary_search(found.begin(), found.end(), plain, [](const auto& a, const auto& b) {
      return std::string_view(path_of(a)) < std::string_view(path_of(b));
    });
  };
  std::vector<bool> drop(found.size());
  for (std::size_t i = 0; i < found.size(); ++i) drop[i] = plain_exists(found[i]);
  std::size_t kept = 0;
  for (std::size_t i = 0; i < found.size(); ++i) {
    if (drop[i]) continue;
    if (kept != i) found[kept] = std::move(found[i]);  // never onto itself: that empties it
    ++kept;
  }
  found.resize(kept);
  found.shrink_to_fit();
  auto key = [](const RefusedCredential& r) { return std::tie(r.path, r.plugin); };
  std::sort(result.refused_credentials.begin(), result.refused_credentials.end(),
            [&](const auto& a, const auto& b) { return key(a) < key(b); });
  result.refused_credentials.erase(
      std::unique(result.refused_credentials.begin(), result.refused_credentials.end(),
                  [&](const auto& a, const auto& b) { return key(a) == key(b); }),
      result.refused_credentials.end());
  return result;
}

}  // namespace helix

#include "discovery.hpp"

#include <algorithm>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <fnmatch.h>
#include <map>
#include <set>
#include <sys/stat.h>
#include <tuple>
#include <unistd.h>

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

// `dir/name` as std::filesystem::path's `/` spells it.
std::string join(const std::string& dir, std::string_view name) {
  std::string out;
  out.reserve(dir.size() + 1 + name.size());
  out += dir;
  if (!out.empty() && out.back() != '/') out += '/';
  out += name;
  return out;
}

// A directory on the walk, listed with readdir: d_type tells most entries' kinds without a
// stat, and entries are reached relative to its fd, not by their whole paths.
class Directory {
 public:
  // Opened relative to `parent` (a directory's fd, or AT_FDCWD), following symlinks as opendir
  // does. A directory that may be searched but not read still serves literal segments, as the
  // paths through it did; it lists as empty, as directory_iterator's did.
  Directory(int parent, const char* name) {
    int fd = ::openat(parent, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0 && (listing_ = ::fdopendir(fd))) {
      fd_ = fd;
      return;
    }
    if (fd >= 0) ::close(fd);
    fd_ = ::openat(parent, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
  }
  ~Directory() {
    if (listing_) ::closedir(listing_);  // closes fd_ as well
    else if (fd_ >= 0) ::close(fd_);
  }
  Directory(const Directory&) = delete;
  Directory& operator=(const Directory&) = delete;
  int fd() const { return fd_; }
  // Lists from the first entry (a "**" segment lists a directory twice).
  void restart() {
    if (listing_) ::rewinddir(listing_);
  }
  // The next entry other than "." and "..", or null at the end.
  const dirent* next() {
    while (listing_) {
      const dirent* e = ::readdir(listing_);
      if (!e) return nullptr;
      const std::string_view name = e->d_name;
      if (name != "." && name != "..") return e;
    }
    return nullptr;
  }

 private:
  int fd_ = -1;
  DIR* listing_ = nullptr;
};

// A directory itself, not a symlink to one: the walk never follows links below a root's
// literal segments.
bool is_real_directory(int dir_fd, const dirent& e) {
  if (e.d_type != DT_UNKNOWN) return e.d_type == DT_DIR;
  struct stat st {};
  return ::fstatat(dir_fd, e.d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

// A regular file, or a symlink to one.
bool is_regular_target(int dir_fd, const dirent& e) {
  if (e.d_type == DT_REG) return true;
  if (e.d_type != DT_UNKNOWN && e.d_type != DT_LNK) return false;
  struct stat st {};
  return ::fstatat(dir_fd, e.d_name, &st, 0) == 0 && S_ISREG(st.st_mode);
}

// Appends files under `dir` (open as `dir`, spelled `path`) matching segments[i..].
void walk(Directory& dir, const std::string& path, const std::vector<std::string>& segments,
          std::size_t i, int depth, std::vector<std::string>& out);

void walk_into(int parent_fd, const char* name, const std::string& path,
               const std::vector<std::string>& segments, std::size_t i, int depth,
               std::vector<std::string>& out) {
  if (depth > kMaxDepth) return;
  Directory dir(parent_fd, name);
  walk(dir, path, segments, i, depth, out);
}

void walk(Directory& dir, const std::string& path, const std::vector<std::string>& segments,
          std::size_t i, int depth, std::vector<std::string>& out) {
  const std::string& seg = segments[i];
  const bool last = i + 1 == segments.size();
  const int fd = dir.fd();
  if (fd < 0) return;
  if (seg == "**") {
    if (!last) walk(dir, path, segments, i + 1, depth, out);
    dir.restart();
    while (const dirent* e = dir.next())
      if (is_real_directory(fd, *e))
        walk_into(fd, e->d_name, join(path, e->d_name), segments, i, depth + 1, out);
    return;
  }
  if (!has_wildcard(seg)) {  // literal segment: no directory listing needed; links followed
    struct stat st {};
    if (::fstatat(fd, seg.c_str(), &st, 0) != 0) return;
    if (last) {
      if (S_ISREG(st.st_mode)) out.push_back(join(path, seg));
    } else if (S_ISDIR(st.st_mode)) {
      walk_into(fd, seg.c_str(), join(path, seg), segments, i + 1, depth + 1, out);
    }
    return;
  }
  dir.restart();
  while (const dirent* e = dir.next()) {
    if (fnmatch(seg.c_str(), e->d_name, 0) != 0) continue;
    if (last) {
      if (is_regular_target(fd, *e)) out.push_back(join(path, e->d_name));
    } else if (is_real_directory(fd, *e)) {
      walk_into(fd, e->d_name, join(path, e->d_name), segments, i + 1, depth + 1, out);
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
        const auto segments = split(p->glob, '/');
        if (!segments.empty()) walk_into(AT_FDCWD, canonical.c_str(), canonical, segments, 0, 0, files);
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

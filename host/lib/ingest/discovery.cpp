#include "ingest/discovery.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
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
  // does; for `listing`, readable. A directory that may be searched but not read still serves
  // literal segments, as the paths through it did; it lists as empty, as directory_iterator's
  // did.
  Directory(int parent, const char* name, bool listing) {
    if (listing) {
      const int fd = ::openat(parent, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd >= 0 && (listing_ = ::fdopendir(fd))) {
        fd_ = fd;
        return;
      }
      if (fd >= 0) ::close(fd);
    }
    fd_ = ::openat(parent, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
  }
  ~Directory() {
    if (listing_)
      ::closedir(listing_);  // closes fd_ as well
    else if (fd_ >= 0)
      ::close(fd_);
  }
  Directory(const Directory&) = delete;
  Directory& operator=(const Directory&) = delete;
  int fd() const { return fd_; }
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

// Where one pattern stands in a directory: the segment that the directory's entries must match.
struct WalkState {
  std::size_t pattern = 0, segment = 0;
  auto operator<=>(const WalkState&) const = default;
};

// All of an adapter's patterns walked at once under one root: each directory is listed once,
// however many patterns (or "**" segments) reach it, and each pattern finds what it would alone.
struct Walk {
  const std::vector<std::vector<std::string>>& patterns;  // each split into segments
  std::vector<std::vector<std::string>> found;            // by pattern

  const std::string& segment(WalkState s) const { return patterns[s.pattern][s.segment]; }
  bool last(WalkState s) const { return s.segment + 1 == patterns[s.pattern].size(); }

  // "**" also matches no directory at all: its pattern goes on from the next segment here too.
  void add_empty_globstars(std::vector<WalkState>& states) const {
    for (std::size_t k = 0; k < states.size(); ++k)  // grows while read
      if (const WalkState s = states[k]; segment(s) == "**" && !last(s))
        states.push_back({s.pattern, s.segment + 1});
    std::sort(states.begin(), states.end());
    states.erase(std::unique(states.begin(), states.end()), states.end());
  }

  // The directory `name` under `parent_fd`, spelled `path`, reached by `states`.
  void directory(int parent_fd, const char* name, const std::string& path,
                 std::vector<WalkState> states, int depth) {
    if (depth > kMaxDepth) return;
    add_empty_globstars(states);
    const bool list = std::any_of(states.begin(), states.end(), [&](WalkState s) {
      return has_wildcard(segment(s)) || segment(s) == "**";
    });
    Directory dir(parent_fd, name, list);
    if (dir.fd() < 0) return;
    // Literal segments: no listing needed, links followed, each name stat'ed (and walked) once.
    std::map<std::string_view, mode_t> literals;  // 0: absent
    std::map<std::string_view, std::vector<WalkState>> literal_children;
    for (const WalkState s : states) {
      const std::string& seg = segment(s);
      if (has_wildcard(seg) || seg == "**") continue;
      auto [known, added] = literals.try_emplace(seg, 0);
      struct stat st {};
      if (added && ::fstatat(dir.fd(), seg.c_str(), &st, 0) == 0) known->second = st.st_mode;
      if (last(s) && S_ISREG(known->second)) found[s.pattern].push_back(join(path, seg));
      if (!last(s) && S_ISDIR(known->second))
        literal_children[seg].push_back({s.pattern, s.segment + 1});
    }
    for (auto& [child, reached_by] : literal_children)
      directory(dir.fd(), std::string(child).c_str(), join(path, child), std::move(reached_by),
                depth + 1);
    if (list) list_entries(dir, path, states, depth);
  }

  // Matches each entry against the wildcard and "**" segments of `states`, and walks each
  // subdirectory some of them reach (while the listing stays open, as directory_iterator did).
  void list_entries(Directory& dir, const std::string& path, const std::vector<WalkState>& states,
                    int depth) {
    while (const dirent* e = dir.next()) {
      std::optional<bool> real_directory, regular;  // asked once per entry: a stat at most
      auto is_dir = [&] {
        if (!real_directory) real_directory = is_real_directory(dir.fd(), *e);
        return *real_directory;
      };
      auto is_file = [&] {
        if (!regular) regular = is_regular_target(dir.fd(), *e);
        return *regular;
      };
      std::vector<WalkState> reached;  // the entry's, as a subdirectory
      for (const WalkState s : states) {
        const std::string& seg = segment(s);
        if (seg == "**") {
          if (is_dir()) reached.push_back(s);
        } else if (has_wildcard(seg) && fnmatch(seg.c_str(), e->d_name, 0) == 0) {
          if (last(s)) {
            if (is_file()) found[s.pattern].push_back(join(path, e->d_name));
          } else if (is_dir()) {
            reached.push_back({s.pattern, s.segment + 1});
          }
        }
      }
      if (!reached.empty())
        directory(dir.fd(), e->d_name, join(path, e->d_name), std::move(reached), depth + 1);
    }
  }
};

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
      std::vector<std::vector<std::string>> patterns;
      std::vector<WalkState> states;
      for (auto p = plugin->adapter->patterns; p->glob; ++p) {
        patterns.push_back(split(p->glob, '/'));
        if (!patterns.back().empty()) states.push_back({patterns.size() - 1, 0});
      }
      Walk walk{patterns, std::vector<std::vector<std::string>>(patterns.size())};
      walk.directory(AT_FDCWD, canonical.c_str(), canonical, std::move(states), 0);
      for (std::size_t k = 0; k < patterns.size(); ++k)  // in pattern order: the first one's layout
        for (auto& file : walk.found[k]) {
          if (is_credential_path(file))  // refused by name: the file is never opened
            result.refused_credentials.push_back({file, plugin->name});
          else
            found.push_back({std::move(file), plugin->adapter->patterns[k].layout});
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

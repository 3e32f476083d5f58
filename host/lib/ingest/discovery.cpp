#include "ingest/discovery.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
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
      listing_error_ = errno;
      if (fd >= 0) ::close(fd);
    }
    fd_ = ::openat(parent, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd_ < 0) open_error_ = errno;
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
  int open_error() const { return open_error_; }        // errno when fd() < 0
  int listing_error() const { return listing_error_; }  // errno when it could not be listed
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
  int open_error_ = 0, listing_error_ = 0;
};

// The entry's type without following a link (from d_type when the file system gives it).
mode_t entry_type(int dir_fd, const dirent& e) {
  if (e.d_type == DT_REG) return S_IFREG;
  if (e.d_type == DT_DIR) return S_IFDIR;
  if (e.d_type == DT_LNK) return S_IFLNK;
  struct stat st {};
  return ::fstatat(dir_fd, e.d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? st.st_mode & S_IFMT : 0;
}

FileIdentity identity_of(const struct stat& st) {
  return {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino),
          static_cast<int64_t>(st.st_size),
          static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
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
  const std::vector<std::string>& roots;                  // canonical, each ending in '/'
  std::vector<std::vector<DiscoveredSource>> found;       // by pattern, layout not yet set
  std::vector<SkippedPath> skipped;

  bool inside_roots(const std::string& target) const {
    return std::any_of(roots.begin(), roots.end(),
                       [&](const std::string& r) { return target.starts_with(r); });
  }

  // A matching name that is a file: listed. A symbolic link to a file inside the roots is
  // listed as that file; any other link is named and skipped (its target is never opened).
  void file(int dir_fd, const std::string& path, const char* name, std::size_t pattern) {
    struct stat st {};
    if (::fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return;
    const std::string at = join(path, name);
    if (S_ISREG(st.st_mode)) {
      found[pattern].push_back({at, HELIX_LAYOUT_LINES, identity_of(st)});
      return;
    }
    if (!S_ISLNK(st.st_mode)) return;
    std::error_code ec;
    const std::string target = std::filesystem::canonical(at, ec).string();
    if (ec || !std::filesystem::is_regular_file(target, ec))
      skipped.push_back({at, "a symbolic link to no regular file; not followed"});
    else if (!inside_roots(target))
      skipped.push_back({at, fmt::format("a symbolic link out of the agent's roots (to {}); not "
                                         "followed, its target is never opened",
                                         target)});
    else if (struct stat target_st{}; ::stat(target.c_str(), &target_st) == 0)
      found[pattern].push_back({target, HELIX_LAYOUT_LINES, identity_of(target_st)});
  }

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
    if (dir.fd() < 0 && dir.open_error() != ENOENT && dir.open_error() != ENOTDIR)
      skipped.push_back({path, fmt::format("this folder cannot be opened ({}); skipped",
                                           std::strerror(dir.open_error()))});
    if (dir.fd() < 0) return;
    if (list && dir.listing_error() != 0)
      skipped.push_back({path, fmt::format("this folder cannot be listed ({}); its sources "
                                           "are skipped",
                                           std::strerror(dir.listing_error()))});
    // Literal segments: no listing needed, links followed, each name stat'ed (and walked) once.
    std::map<std::string_view, mode_t> literals;  // 0: absent
    std::map<std::string_view, std::vector<WalkState>> literal_children;
    for (const WalkState s : states) {
      const std::string& seg = segment(s);
      if (has_wildcard(seg) || seg == "**") continue;
      auto [known, added] = literals.try_emplace(seg, 0);
      struct stat st {};
      if (added && ::fstatat(dir.fd(), seg.c_str(), &st, 0) == 0) known->second = st.st_mode;
      if (last(s) && S_ISREG(known->second)) file(dir.fd(), path, seg.c_str(), s.pattern);
      if (!last(s) && S_ISDIR(known->second))
        literal_children[seg].push_back({s.pattern, s.segment + 1});
    }
    for (auto& [child, reached_by] : literal_children)
      directory(dir.fd(), std::string(child).c_str(), join(path, child), std::move(reached_by),
                depth + 1);
    if (list) list_entries(dir, path, states, depth);
  }

  // The entry's kind, asked of the file system at most once however many states test it.
  class EntryKind {
   public:
    EntryKind(int dir_fd, const dirent& entry) : dir_fd_(dir_fd), entry_(entry) {}
    bool is(mode_t kind) {
      if (!known_) {
        type_ = entry_type(dir_fd_, entry_);
        known_ = true;
      }
      return type_ == kind;
    }

   private:
    int dir_fd_;
    const dirent& entry_;
    bool known_ = false;
    mode_t type_ = 0;
  };

  // What one listed entry is to the walk: files matched are listed on the way; `reached` holds
  // the states it carries on with as a subdirectory; `linked_folder` says a folder pattern
  // matched a symbolic link (named, never followed).
  struct EntryMatch {
    std::vector<WalkState> reached;
    bool linked_folder = false;
  };

  EntryMatch match_entry(int dir_fd, const std::string& path, const dirent& e,
                         const std::vector<WalkState>& states) {
    EntryMatch match;
    EntryKind kind(dir_fd, e);
    for (const WalkState s : states) {
      const std::string& seg = segment(s);
      if (seg == "**") {
        if (kind.is(S_IFDIR)) match.reached.push_back(s);
        continue;
      }
      if (!has_wildcard(seg) || fnmatch(seg.c_str(), e.d_name, 0) != 0) continue;
      if (last(s)) {
        if (kind.is(S_IFREG) || kind.is(S_IFLNK)) file(dir_fd, path, e.d_name, s.pattern);
      } else if (kind.is(S_IFDIR)) {
        match.reached.push_back({s.pattern, s.segment + 1});
      } else {
        match.linked_folder = match.linked_folder || kind.is(S_IFLNK);
      }
    }
    return match;
  }

  // A link where a folder pattern matched is named, not followed (a link to a file is left to
  // the file patterns).
  void skip_linked_folder(const std::string& at) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(at, ec))
      skipped.push_back(
          {at, "a symbolic link where a folder of sources is expected; not followed"});
  }

  // Matches each entry against the wildcard and "**" segments of `states`, and walks each
  // subdirectory some of them reach (while the listing stays open, as directory_iterator did).
  void list_entries(Directory& dir, const std::string& path, const std::vector<WalkState>& states,
                    int depth) {
    while (const dirent* e = dir.next()) {
      EntryMatch match = match_entry(dir.fd(), path, *e, states);
      if (!match.reached.empty())
        directory(dir.fd(), e->d_name, join(path, e->d_name), std::move(match.reached), depth + 1);
      else if (match.linked_folder)
        skip_linked_folder(join(path, e->d_name));
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

// The roots as links may lead into them: canonical, each ending in '/'.
std::vector<std::string> canonical_roots(const std::vector<std::string>& roots) {
  std::vector<std::string> inside;
  for (const auto& root : roots) {
    std::error_code ec;
    auto canonical = std::filesystem::weakly_canonical(root, ec).string();
    if (!ec) inside.push_back(canonical.ends_with('/') ? canonical : canonical + "/");
  }
  return inside;
}

// Walks the directory `root` (canonical) with all of the adapter's patterns, adding what it
// finds, refuses and skips to `result`.
void discover_under(const std::string& root, const PluginInfo& plugin,
                    const std::vector<std::string>& inside, Discovery& result) {
  std::vector<std::vector<std::string>> patterns;
  std::vector<WalkState> states;
  for (auto p = plugin.adapter->patterns; p->glob; ++p) {
    patterns.push_back(split(p->glob, '/'));
    if (!patterns.back().empty()) states.push_back({patterns.size() - 1, 0});
  }
  Walk walk{patterns, inside, std::vector<std::vector<DiscoveredSource>>(patterns.size()), {}};
  walk.directory(AT_FDCWD, root.c_str(), root, std::move(states), 0);
  for (auto& s : walk.skipped) result.skipped.push_back(std::move(s));
  for (std::size_t k = 0; k < patterns.size(); ++k)  // in pattern order: the first one's layout
    for (auto& file : walk.found[k]) {
      if (is_credential_path(file.path))  // refused by name: the file is never opened
        result.refused_credentials.push_back({file.path, plugin.name});
      else
        result.sources.push_back(
            {std::move(file.path), plugin.adapter->patterns[k].layout, file.identity});
    }
}

// By path; of the same path found twice, the first found (its layout) stays.
void sort_by_path_once(std::vector<DiscoveredSource>& found) {
  std::stable_sort(found.begin(), found.end(),
                   [](const auto& a, const auto& b) { return a.path < b.path; });
  found.erase(std::unique(found.begin(), found.end(),
                          [](const auto& a, const auto& b) { return a.path == b.path; }),
              found.end());
}

// The same session compressed and plain: the plain file is the one being written, so the
// ".zst" twin goes. `found` is sorted by path.
void drop_compressed_twins(std::vector<DiscoveredSource>& found) {
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
}

// Skips by path and refusals by path then plugin, each named once.
void sort_skips_and_refusals(Discovery& result) {
  auto by_path = [](const SkippedPath& a, const SkippedPath& b) { return a.path < b.path; };
  std::sort(result.skipped.begin(), result.skipped.end(), by_path);
  result.skipped.erase(std::unique(result.skipped.begin(), result.skipped.end(),
                                   [](const auto& a, const auto& b) { return a.path == b.path; }),
                       result.skipped.end());
  auto key = [](const RefusedCredential& r) { return std::tie(r.path, r.plugin); };
  std::sort(result.refused_credentials.begin(), result.refused_credentials.end(),
            [&](const auto& a, const auto& b) { return key(a) < key(b); });
  result.refused_credentials.erase(
      std::unique(result.refused_credentials.begin(), result.refused_credentials.end(),
                  [&](const auto& a, const auto& b) { return key(a) == key(b); }),
      result.refused_credentials.end());
}

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
  for (const PluginInfo* plugin : adapters) {
    const std::vector<std::string> roots = adapter_roots(*plugin->adapter, config);
    const std::vector<std::string> inside = canonical_roots(roots);
    std::set<std::string> roots_seen;
    for (const auto& root : roots) {
      std::error_code ec;
      auto canonical = std::filesystem::weakly_canonical(root, ec).string();
      if (ec || !roots_seen.insert(canonical).second) continue;
      if (std::filesystem::is_directory(canonical, ec))
        discover_under(canonical, *plugin, inside, result);
    }
  }
  sort_by_path_once(result.sources);
  drop_compressed_twins(result.sources);
  sort_skips_and_refusals(result);
  return result;
}

}  // namespace helix

#include "app/tree_watch.hpp"

#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace helix {
namespace {

namespace fs = std::filesystem;

// What makes a folder worth a look: a file written, created, renamed or removed in it, or the
// folder itself gone.
constexpr uint32_t kMask = IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM |
                           IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR |
                           IN_DONT_FOLLOW;

bool literal(std::string_view segment) {
  return segment.find_first_of("*?[") == std::string_view::npos;
}

// "projects/*/*.jsonl" -> "projects": the folders before the first one a wildcard names.
fs::path literal_prefix(std::string_view pattern) {
  fs::path prefix;
  while (true) {
    const auto slash = pattern.find('/');
    if (slash == std::string_view::npos) break;  // the rest names files
    const std::string_view segment = pattern.substr(0, slash);
    if (!literal(segment)) break;
    prefix /= segment;
    pattern.remove_prefix(slash + 1);
  }
  return prefix;
}

}  // namespace

std::vector<std::string> source_trees(const std::vector<RootPattern>& sources) {
  std::vector<std::string> trees;
  for (const auto& [root, pattern] : sources) {
    std::error_code ec;
    fs::path tree = fs::weakly_canonical(fs::path(root) / literal_prefix(pattern), ec);
    if (ec) continue;
    std::string folder = tree.lexically_normal().string();
    while (folder.size() > 1 && folder.back() == '/') folder.pop_back();
    trees.push_back(std::move(folder));
  }
  std::sort(trees.begin(), trees.end());
  trees.erase(std::unique(trees.begin(), trees.end()), trees.end());
  std::vector<std::string> outermost;  // sorted: a tree's subtrees follow it
  for (auto& t : trees)
    if (outermost.empty() || !t.starts_with(outermost.back() + "/"))
      outermost.push_back(std::move(t));
  return outermost;
}

TreeWatch::TreeWatch(std::vector<std::string> trees) : trees_(std::move(trees)) {
  fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd_ < 0) {
    why_not_ = std::string("inotify is unavailable: ") + std::strerror(errno);
    return;
  }
  refresh();
}

TreeWatch::~TreeWatch() {
  if (fd_ >= 0) ::close(fd_);
}

void TreeWatch::give_up(std::string why) {
  why_not_ = std::move(why);
  folders_.clear();
  ::close(fd_);
  fd_ = -1;
}

void TreeWatch::refresh() {
  for (const auto& tree : trees_)
    if (following()) follow_tree(tree);
}

// Every folder of the tree, symbolic links not followed (discovery takes none out of the roots,
// and a link inside them names a folder followed already).
void TreeWatch::follow_tree(const std::string& root) {
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(root, ec)) || !follow_folder(root)) return;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code status_ec;
    if (fs::is_directory(it->symlink_status(status_ec)) && !follow_folder(it->path().string()))
      return;
  }
}

// False once the watch gave up (out of watches): nothing more is followed.
bool TreeWatch::follow_folder(const std::string& folder) {
  const int wd = ::inotify_add_watch(fd_, folder.c_str(), kMask);
  if (wd >= 0) {
    folders_[wd] = folder;
    return true;
  }
  if (errno == ENOSPC || errno == ENOMEM) {
    give_up(
        "out of inotify watches (raise fs.inotify.max_user_watches to follow every folder under "
        "the agents' roots)");
    return false;
  }
  return true;  // gone or unreadable since it was listed: the sweep names what it cannot read
}

bool TreeWatch::drain() {
  if (!following()) return false;
  alignas(inotify_event) char buffer[64 * 1024];
  bool changed = false;
  while (true) {
    const ssize_t n = ::read(fd_, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EAGAIN: nothing more pending
    for (ssize_t at = 0; at < n;) {
      const auto* event = reinterpret_cast<const inotify_event*>(buffer + at);
      at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
      if (event->mask & IN_IGNORED) {
        folders_.erase(event->wd);  // its folder is gone
        continue;
      }
      changed = true;  // also IN_Q_OVERFLOW: events were lost, the sweep looks at everything
      auto folder = folders_.find(event->wd);
      if (folder == folders_.end() || event->len == 0) continue;
      if ((event->mask & IN_ISDIR) && (event->mask & (IN_CREATE | IN_MOVED_TO)))
        follow_tree(folder->second + "/" + event->name);
      if (!following()) return true;
    }
  }
  return changed;
}

}  // namespace helix

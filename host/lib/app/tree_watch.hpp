// Follows folder trees with inotify so that a resident process wakes when a file under them
// is written, created, renamed or removed, instead of listing them on a timer.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

namespace helix {

class TreeWatch {
 public:
  // Follows each existing tree and every folder created under it later. Without inotify (not
  // in this kernel, out of instances or watches) it follows nothing and says why: the owner
  // polls instead.
  explicit TreeWatch(std::vector<std::string> trees);
  ~TreeWatch();
  TreeWatch(const TreeWatch&) = delete;
  TreeWatch& operator=(const TreeWatch&) = delete;

  bool following() const { return fd_ >= 0; }
  const std::string& why_not_following() const { return why_not_; }
  int fd() const { return fd_; }  // readable when events are pending
  std::size_t folders() const { return folders_.size(); }

  // Reads every pending event and follows the folders they created; true when something
  // under the trees changed (or events were lost: the owner must look at everything).
  bool drain();
  // Follows the trees that did not exist before (an agent installed since).
  void refresh();

 private:
  void follow_tree(const std::string& root);
  bool follow_folder(const std::string& folder);
  void give_up(std::string why);

  int fd_ = -1;
  std::vector<std::string> trees_;
  std::unordered_map<int, std::string> folders_;  // watch descriptor -> folder
  std::string why_not_;
};

// A root and one glob pattern of the sources under it ("~/.claude", "projects/*/*.jsonl").
struct RootPattern {
  std::string root, pattern;
};

// The folders sources can appear under: each root joined with the literal first segments of
// its pattern (~/.claude/projects for the pair above), so that an agent's other files (caches,
// logs) wake nobody. Canonical, sorted, no tree inside another.
std::vector<std::string> source_trees(const std::vector<RootPattern>& sources);

}  // namespace helix

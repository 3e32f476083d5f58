// Subagents and sessions as trees (see session_tree.hpp).
#include "recall/session_tree.hpp"

#include <functional>
#include <map>
#include <string>

namespace helix {
namespace {

bool is_call(const EventRow& e) {
  return e.kind == "tool_call" || e.kind == "edit" || e.kind == "test_run";
}
bool is_result(const EventRow& e) { return e.kind == "tool_result" || e.kind == "error"; }

// Emits `roots` and, after each, its children (recursively), one level deeper.
template <class Out>
void walk(const std::vector<std::size_t>& roots,
          const std::map<std::size_t, std::vector<std::size_t>>& children, int depth,
          std::vector<bool>& done, std::vector<Out>& out) {
  for (std::size_t i : roots) {
    if (done[i]) continue;  // a cycle in broken links: each item once
    done[i] = true;
    out.push_back({i, depth});
    if (auto it = children.find(i); it != children.end())
      walk(it->second, children, depth + 1, done, out);
  }
}

}  // namespace

std::vector<std::ptrdiff_t> subagent_owners(const std::vector<EventRow>& events) {
  std::map<std::string, std::size_t> calls;  // call id -> its call event
  std::map<int64_t, std::size_t> by_seq;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (is_call(events[i]) && !events[i].call_id.empty()) calls.try_emplace(events[i].call_id, i);
    by_seq[events[i].seq] = i;
  }
  std::vector<std::ptrdiff_t> owner(events.size(), kNoOwner);
  std::vector<int> state(events.size(), 0);  // 0 unknown, 1 being resolved, 2 resolved
  std::function<std::ptrdiff_t(std::size_t)> resolve = [&](std::size_t i) -> std::ptrdiff_t {
    if (state[i] == 2) return owner[i];
    if (state[i] == 1) return kNoOwner;  // a loop of parents
    state[i] = 1;
    const EventRow& e = events[i];
    std::ptrdiff_t found = kNoOwner;
    if (e.is_sidechain) {
      auto call = calls.find(e.call_id);
      if (!is_call(e) && !is_result(e) && call != calls.end() && call->second != i)
        found = static_cast<std::ptrdiff_t>(call->second);  // names its subagent's call
      else if (is_result(e) && call != calls.end() && call->second != i)
        found = resolve(call->second);  // where its own call belongs
      else if (auto parent = by_seq.find(e.parent_seq); parent != by_seq.end())
        found = resolve(parent->second);
    }
    owner[i] = found;
    state[i] = 2;
    return found;
  };
  for (std::size_t i = 0; i < events.size(); ++i) resolve(i);
  return owner;
}

std::vector<NestedEvent> nest_subagents(const std::vector<EventRow>& events) {
  const std::vector<std::ptrdiff_t> owner = subagent_owners(events);
  std::vector<std::size_t> roots;
  std::map<std::size_t, std::vector<std::size_t>> children;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (owner[i] == kNoOwner)
      roots.push_back(i);
    else
      children[static_cast<std::size_t>(owner[i])].push_back(i);
  }
  std::vector<NestedEvent> out;
  std::vector<bool> done(events.size(), false);
  walk(roots, children, 0, done, out);
  for (std::size_t i = 0; i < events.size(); ++i)  // owned by a call inside a loop: at the end
    if (!done[i]) out.push_back({i, 0});
  return out;
}

std::vector<NestedSession> session_tree(const std::vector<SessionRow>& sessions) {
  std::map<std::string, std::size_t> by_uid;
  for (std::size_t i = 0; i < sessions.size(); ++i) by_uid[sessions[i].uid] = i;
  std::vector<std::size_t> roots;
  std::map<std::size_t, std::vector<std::size_t>> children;
  for (std::size_t i = 0; i < sessions.size(); ++i) {
    const SessionRow& s = sessions[i];
    const std::string& up = s.parent_uid.empty() ? s.forked_from : s.parent_uid;
    auto it = by_uid.find(up);
    if (up.empty() || it == by_uid.end() || it->second == i)
      roots.push_back(i);
    else
      children[it->second].push_back(i);
  }
  std::vector<NestedSession> out;
  std::vector<bool> done(sessions.size(), false);
  walk(roots, children, 0, done, out);
  for (std::size_t i = 0; i < sessions.size(); ++i)
    if (!done[i]) out.push_back({i, 0});
  return out;
}

}  // namespace helix

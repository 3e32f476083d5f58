// Subagents as a tree: which call each subagent event belongs to (a session's events nested
// under the calls that launched their subagents), and sessions nested under the sessions that
// launched or were forked into them.
#pragma once

#include <cstddef>
#include <vector>

#include "model/rows.hpp"

namespace helix {

inline constexpr std::ptrdiff_t kNoOwner = -1;

// For each event (by index into `events`, in seq order), the index of the call whose subagent
// it belongs to, or kNoOwner. A subagent's event names its call (call_id, after the host
// resolved its link) or hangs under one that does (parent_seq); its own calls' results belong
// where their calls do.
std::vector<std::ptrdiff_t> subagent_owners(const std::vector<EventRow>& events);

// The events in display order with their depth: each subagent's events right after the call
// that launched it, one level deeper, in their own (time) order; the rest in seq order.
struct NestedEvent {
  std::size_t index = 0;
  int depth = 0;
};
std::vector<NestedEvent> nest_subagents(const std::vector<EventRow>& events);

// The sessions in display order with their depth: each session whose parent (a subagent's
// launcher) or origin (a fork's) is listed follows it, one level deeper; the rest keep their
// order.
struct NestedSession {
  std::size_t index = 0;
  int depth = 0;
};
std::vector<NestedSession> session_tree(const std::vector<SessionRow>& sessions);

}  // namespace helix

// A session's events as a conversation a reader follows: numbered turns (one per user prompt of
// the main conversation), tool calls with their results, subagent threads under the calls that
// started them, compactions marked; bookkeeping records left out. The HTML transcript and the
// MCP server's get_session read the same structure, so turn N is the same turn in both.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/rows.hpp"

namespace helix {

enum class StepKind {
  prompt,        // a user prompt (or a subagent's task)
  answer,        // an assistant message
  thinking,      // reasoning, shown folded
  tool_call,     // a call (tool_call, edit, test_run) with its results
  tool_result,   // a result whose call is not in the session
  error,         // an error that is not a tool's result
  interruption,  // the user interrupting
  decision,      // a question put to the user
  compaction,    // the context was compacted here (and the summary it left, if any)
};

struct Step {
  Step(StepKind k, std::size_t e) : kind(k), event(e) {}
  StepKind kind;
  std::size_t event = 0;             // index into the session's events
  std::vector<std::size_t> results;  // tool_call: its results, in order
  bool failed = false;               // tool_call: a result is an error
  std::vector<std::size_t> threads;  // tool_call: the subagent threads it started
  std::size_t summary = SIZE_MAX;    // compaction: the summary event that follows, if any
};

// A subagent's conversation (sidechain events of one file, or one run of them).
struct Thread {
  std::string label;  // "subagent a2271d1", from the file name when there is one
  std::vector<Step> steps;
  bool linked = false;  // placed under the call that started it
};

struct Turn {
  int number = 0;  // 1-based
  std::vector<Step> steps;
  std::vector<std::size_t> threads;  // unlinked subagent threads that ran during this turn
};

struct Conversation {
  std::vector<Turn> turns;
  std::vector<Thread> threads;
  std::size_t hidden = 0;  // bookkeeping events left out (lifecycle, other, completion, ...)
};

// `events` in seq order, with bodies (Store::events(uid, true)); the Conversation refers to
// them by index.
Conversation build_conversation(const std::vector<EventRow>& events);

// The event indices of a turn in reading order, each with its nesting depth (0 = the main
// conversation, 1 = a subagent started by one of its calls, ...): a call, then its subagent
// threads, then its results.
struct FlatEvent {
  std::size_t event;
  int depth;
};
std::vector<FlatEvent> flatten_turn(const Conversation& c, const Turn& turn);

bool is_compaction_marker(const EventRow& e);

}  // namespace helix

// What session_digest has learned from a session's events so far, and its resumable encoding:
// a versioned JSON object the host keeps with the digest (Tier 2), so that a session whose raw
// events were evicted can be resumed with only the events stored since.
#pragma once

#include "decisions.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace session_digest {

// One step of the main conversation's final turn, for the outcome rules.
struct Step {
  std::string kind, call_id;
};

// The errors of one failing call, or of one fingerprint for errors of no call (API errors).
struct ErrorGroup {
  std::string fingerprint, sample, tool;
  int64_t count = 0;
  std::string call_id;  // "" for an error of no call
};

// A call whose result has not arrived yet.
struct PendingCall {
  std::string kind;
  uint64_t signature = 0;  // fnv1a64 of tool + '\n' + input
};

// Everything end() and future events need from the events so far. Compact by construction:
// only the final turn's steps, only pending calls, failed calls as hashes. Usage-derived
// totals are not here: every usage record is streamed again on resume.
struct EventState {
  int64_t event_count = 0, retries = 0, turns = 0;
  bool had_talk = false;  // the main conversation has a prompt or an answer
  std::map<std::string, int64_t> kind_counts, tools, markers;
  std::string first_prompt, first_prompt_head, last_assistant, last_side_assistant;
  std::vector<ErrorGroup> errors;
  std::vector<Step> steps;                   // from the last main prompt on
  std::vector<Step> previous_steps;          // the turn before the final one
  int64_t compacted_at_turn = -1;            // the turn count when the context was last compacted
  bool final_prompt_command = false;         // the final turn's prompt is a slash command
  std::map<std::string, PendingCall> calls;  // call id -> the call, until its result
  std::map<std::string, bool> results;       // this turn's call ids -> result was an error
  std::set<uint64_t> failed_calls;           // signatures of calls that failed
  std::vector<Decision> decisions;
  std::map<std::string, std::vector<std::size_t>> pending_questions;  // call id -> decisions
  std::optional<std::size_t> brief_waiting;  // a brief whose answer is the next prompt
};

// The state as a JSON object {"v": 1, ...}.
std::string encode_state(const EventState& state);
// Throws std::invalid_argument for anything but a well-formed state of a known version.
EventState decode_state(std::string_view bytes);

}  // namespace session_digest

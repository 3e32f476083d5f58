// Conversation structure of a session (see conversation.hpp).
#include "recall/conversation.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <filesystem>
#include <optional>
#include <regex>
#include <set>

namespace helix {
namespace {

constexpr int kMaxDepth = 8;  // subagents of subagents, and a guard against odd links
constexpr std::size_t kPromptCompareBytes = 300;

bool is_call(const EventRow& e) {
  return e.kind == "tool_call" || e.kind == "test_run" || e.kind == "edit";
}
bool is_result(const EventRow& e) {
  return !e.call_id.empty() && (e.kind == "tool_result" || (e.kind == "error" && e.role == "tool"));
}
bool has_words(const EventRow& e) { return !e.text.empty() || !e.summary.empty(); }

// The agent id Claude Code puts in a subagent's file name: agent-<id>.jsonl.
std::string agent_id_of(const std::string& source_path) {
  static const std::regex name("^agent-([A-Za-z0-9_-]+)\\.jsonl(\\.zst)?$");
  std::smatch m;
  const std::string file = std::filesystem::path(source_path).filename().string();
  return std::regex_match(file, m, name) ? m[1].str() : std::string();
}

// The "prompt" argument of a call that starts a subagent (Claude's Task and Agent tools).
std::string prompt_argument(const EventRow& call) {
  boost::system::error_code ec;
  const auto v = boost::json::parse(call.text, ec);
  if (ec || !v.is_object()) return {};
  const auto* p = v.as_object().if_contains("prompt");
  return p && p->is_string() ? std::string(p->as_string()) : std::string();
}

std::string head(const std::string& text) { return text.substr(0, kPromptCompareBytes); }

// The step an event of this kind is, when it has words; nullopt for bookkeeping kinds. (Calls,
// their results and compaction markers are told apart before.)
std::optional<StepKind> plain_step(const std::string& kind) {
  static const std::map<std::string, StepKind> kSteps = {
      {"user_msg", StepKind::prompt},
      {"assistant_msg", StepKind::answer},
      {"thinking", StepKind::thinking},
      {"error", StepKind::error},
      {"human_intervention", StepKind::interruption},
      {"decision", StepKind::decision},
      {"tool_result", StepKind::tool_result}};  // a result that names no call
  const auto it = kSteps.find(kind);
  return it == kSteps.end() ? std::nullopt : std::optional<StepKind>(it->second);
}

class Builder {
 public:
  explicit Builder(const std::vector<EventRow>& events) : events_(events) {}

  Conversation build() {
    index_calls();
    group_threads();
    link_threads();
    for (auto& t : raw_threads_) c_.threads.push_back({t.label, steps_of(t.events), t.linked});
    build_turns();
    place_unlinked_threads();
    return std::move(c_);
  }

 private:
  struct RawThread {
    std::string key, label;
    std::vector<std::size_t> events;
    bool linked = false;
  };

  void index_calls() {
    for (std::size_t i = 0; i < events_.size(); ++i) {
      const EventRow& e = events_[i];
      if (is_call(e) && !e.call_id.empty()) call_of_id_.emplace(e.call_id, i);
      if (is_result(e)) results_of_id_[e.call_id].push_back(i);
      if (!e.is_sidechain) main_paths_.insert(e.source_path);
    }
  }

  // Sidechain events of a file of their own form one thread per file; sidechain events inside
  // a main transcript form one thread per uninterrupted run.
  void group_threads() {
    std::map<std::string, std::size_t> by_key;
    std::size_t run_start = SIZE_MAX;
    for (std::size_t i = 0; i < events_.size(); ++i) {
      const EventRow& e = events_[i];
      if (!e.is_sidechain) {
        run_start = SIZE_MAX;
        continue;
      }
      if (run_start == SIZE_MAX) run_start = i;
      const bool own_file = !main_paths_.count(e.source_path);
      const std::string key = own_file ? e.source_path : "run:" + std::to_string(run_start);
      auto [it, fresh] = by_key.emplace(key, raw_threads_.size());
      if (fresh) {
        const std::string id = own_file ? agent_id_of(e.source_path) : std::string();
        raw_threads_.push_back({key, id.empty() ? "subagent" : "subagent " + id, {}, false});
      }
      raw_threads_[it->second].events.push_back(i);
    }
  }

  void link_threads() {
    for (std::size_t t = 0; t < raw_threads_.size(); ++t) {
      const std::size_t call = starting_call(raw_threads_[t]);
      if (call == SIZE_MAX) continue;
      threads_of_call_[call].push_back(t);
      raw_threads_[t].linked = true;
    }
  }

  // The call that started a thread: the parent its first record names, else the call whose
  // result carries the file's agent id, else the call whose prompt argument is its first prompt.
  std::size_t starting_call(const RawThread& t) const {
    const EventRow& first = events_[t.events.front()];
    for (std::size_t i = 0; i < events_.size(); ++i)
      if (first.parent_seq >= 0 && events_[i].seq == first.parent_seq && is_call(events_[i]) &&
          !in_thread(t, i))
        return i;
    const std::string id = agent_id_of(first.source_path);
    if (!id.empty())
      for (const auto& [call_id, results] : results_of_id_)
        for (std::size_t r : results)
          if (events_[r].text.find("agentId: " + id) != std::string::npos &&
              call_of_id_.count(call_id))
            return call_of_id_.at(call_id);
    for (std::size_t i : t.events) {
      if (events_[i].kind != "user_msg") continue;
      for (const auto& [call_id, call] : call_of_id_) {
        const std::string prompt = prompt_argument(events_[call]);
        if (!prompt.empty() && !in_thread(t, call) && head(prompt) == head(events_[i].text))
          return call;
      }
      break;  // only the thread's first prompt is its task
    }
    return SIZE_MAX;
  }

  static bool in_thread(const RawThread& t, std::size_t i) {
    return std::find(t.events.begin(), t.events.end(), i) != t.events.end();
  }

  std::vector<Step> steps_of(const std::vector<std::size_t>& indices) {
    std::vector<Step> steps;
    for (std::size_t n = 0; n < indices.size(); ++n) {
      const std::size_t i = indices[n];
      const EventRow& e = events_[i];
      if (is_compaction_marker(e)) {
        Step s{StepKind::compaction, i};
        if (n + 1 < indices.size() && events_[indices[n + 1]].kind == "lifecycle" &&
            !is_compaction_marker(events_[indices[n + 1]]))
          s.summary = indices[++n];
        else if (!e.text.empty())
          s.summary = i;  // the compaction event carries its summary itself (Codex)
        steps.push_back(s);
      } else if (is_call(e)) {
        steps.push_back(call_step(i));
      } else if (is_result(e)) {
        if (!call_of_id_.count(e.call_id)) steps.push_back({StepKind::tool_result, i});
      } else if (const auto kind = plain_step(e.kind); kind && has_words(e)) {
        steps.push_back({*kind, i});
      } else {
        // lifecycle, other, completion (it repeats the last answer), retry, empty records
        ++c_.hidden;
      }
    }
    return steps;
  }

  Step call_step(std::size_t i) {
    Step s{StepKind::tool_call, i};
    const EventRow& e = events_[i];
    if (!e.call_id.empty())
      if (auto it = results_of_id_.find(e.call_id); it != results_of_id_.end()) {
        s.results = it->second;
        for (std::size_t r : s.results) s.failed = s.failed || events_[r].kind == "error";
      }
    if (auto it = threads_of_call_.find(i); it != threads_of_call_.end()) s.threads = it->second;
    return s;
  }

  // A new turn at every user prompt of the main conversation; what comes before the first
  // prompt belongs to the first turn.
  void build_turns() {
    std::vector<std::vector<std::size_t>> groups(1);
    bool prompted = false;
    for (std::size_t i = 0; i < events_.size(); ++i) {
      const EventRow& e = events_[i];
      if (e.is_sidechain) continue;
      if (e.kind == "user_msg" && has_words(e)) {
        if (prompted) groups.emplace_back();
        prompted = true;
      }
      groups.back().push_back(i);
    }
    for (const auto& group : groups) {
      if (group.empty()) continue;
      Turn t;
      t.number = static_cast<int>(c_.turns.size()) + 1;
      t.steps = steps_of(group);
      turn_first_.push_back(events_[group.front()]);
      c_.turns.push_back(std::move(t));
    }
  }

  // An unlinked thread goes to the turn it ran in: by time when the events have times, else
  // the last turn.
  void place_unlinked_threads() {
    for (std::size_t t = 0; t < c_.threads.size(); ++t) {
      if (c_.threads[t].linked) continue;
      if (c_.turns.empty()) c_.turns.push_back(Turn{1, {}, {}});
      const EventRow& first = events_[raw_threads_[t].events.front()];
      std::size_t turn = c_.turns.size() - 1;
      if (first.ts_ms > 0)
        for (std::size_t k = 0; k + 1 < turn_first_.size(); ++k)
          if (turn_first_[k + 1].ts_ms > first.ts_ms) {
            turn = k;
            break;
          }
      c_.turns[turn].threads.push_back(t);
    }
  }

  const std::vector<EventRow>& events_;
  Conversation c_;
  std::set<std::string> main_paths_;
  std::map<std::string, std::size_t> call_of_id_;
  std::map<std::string, std::vector<std::size_t>> results_of_id_;
  std::map<std::size_t, std::vector<std::size_t>> threads_of_call_;
  std::vector<RawThread> raw_threads_;
  std::vector<EventRow> turn_first_;  // each turn's first event (for its time)
};

void flatten_steps(const Conversation& c, const std::vector<Step>& steps, int depth,
                   std::vector<FlatEvent>& out) {
  for (const Step& s : steps) {
    out.push_back({s.event, depth});
    if (s.kind == StepKind::compaction && s.summary != SIZE_MAX) out.push_back({s.summary, depth});
    if (s.kind != StepKind::tool_call) continue;
    if (depth < kMaxDepth)
      for (std::size_t t : s.threads) flatten_steps(c, c.threads[t].steps, depth + 1, out);
    for (std::size_t r : s.results) out.push_back({r, depth});
  }
}

}  // namespace

// The adapters' one compaction event: a lifecycle event whose summary starts with "context
// compacted" (docs/sdk.md); "compact_boundary" is how the Claude adapter named it before.
bool is_compaction_marker(const EventRow& e) {
  return e.kind == "compaction" ||
         (e.kind == "lifecycle" && (e.summary.starts_with("context compacted") ||
                                    e.summary.find("compact_boundary") != std::string::npos));
}

Conversation build_conversation(const std::vector<EventRow>& events) {
  return Builder(events).build();
}

std::vector<FlatEvent> flatten_turn(const Conversation& c, const Turn& turn) {
  std::vector<FlatEvent> out;
  flatten_steps(c, turn.steps, 0, out);
  for (std::size_t t : turn.threads) flatten_steps(c, c.threads[t].steps, 1, out);
  return out;
}

}  // namespace helix

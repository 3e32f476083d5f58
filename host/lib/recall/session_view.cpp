// Session views within a token budget (see session_view.hpp).
#include "recall/session_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "base/json_text.hpp"
#include "base/text.hpp"
#include "recall/conversation.hpp"
#include "recall/session_json.hpp"
#include "recall/token_budget.hpp"
#include "recall/transcript.hpp"
#include "store/digest_store.hpp"

namespace helix {
namespace {

constexpr std::size_t kSummaryTextBytes = 300;
constexpr int64_t kMinimumUsefulTokens = 120;  // a budget below this holds the brief only

boost::json::value nullable(const std::string& text) {
  return text.empty() ? boost::json::value(nullptr) : boost::json::value(text);
}
boost::json::value time_or_null(int64_t ms) { return nullable(iso8601(ms)); }

boost::json::object envelope(const SessionRow& s, double cost_usd, const char* part,
                             int64_t max_tokens) {
  return {{"session", session_brief(s, cost_usd)},
          {"part", part},
          {"budget", {{"max_tokens", max_tokens}, {"used_tokens", 0}}},
          {"left_out", boost::json::array()},
          {"next", nullptr}};
}

// Records the tokens the finished view costs (the figure counts itself).
void set_used(boost::json::object& view) {
  auto& budget = view["budget"].as_object();
  for (int pass = 0; pass < 2; ++pass) budget["used_tokens"] = json_tokens(view);
}

void leave_out(boost::json::object& view, const std::string& what) {
  view["left_out"].as_array().emplace_back(what);
}

boost::json::object next_args(const SessionRow& s, const char* part, int64_t max_tokens) {
  return {{"id", s.uid}, {"part", part}, {"max_tokens", max_tokens}};
}

std::optional<boost::json::object> primary_digest(Store& store, const SessionRow& s,
                                                  const std::string& digester) {
  auto row = find_digest(store, s.uid, digester);
  if (!row) return std::nullopt;
  boost::system::error_code ec;
  auto v = boost::json::parse(row->json, ec);
  if (ec || !v.is_object()) return std::nullopt;
  return std::move(v.as_object());
}

std::string text_field(const boost::json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

// Drops the named members of `part`, in order, until the view fits, and says which went; when
// even that is not enough the whole part goes, and next asks again with the budget it needs.
void shrink_to_fit(boost::json::object& view, const char* part_key,
                   const std::vector<const char*>& droppable, int64_t max_tokens) {
  const int64_t whole = json_tokens(view);
  auto& part = view[part_key].as_object();
  std::string dropped;
  for (const char* key : droppable) {
    if (json_tokens(view) <= max_tokens) break;
    if (part.erase(key) > 0) dropped += (dropped.empty() ? "" : ", ") + std::string(key);
  }
  if (!dropped.empty()) leave_out(view, fmt::format("{}: {} (over the budget)", part_key, dropped));
  if (json_tokens(view) > max_tokens) {
    view[part_key] = nullptr;
    view["left_out"] = boost::json::array{boost::json::value(
        fmt::format("the {} (about {} tokens) does not fit in {}", part_key, whole, max_tokens))};
  }
  if (!dropped.empty() || view[part_key].is_null()) {
    auto& next = view["next"];
    if (next.is_null())
      next = boost::json::object{{"id", view["session"].as_object()["uid"]}, {"part", part_key}};
    next.as_object()["max_tokens"] = whole + 64;
  }
}

boost::json::array top_tools(const boost::json::object& digest, std::size_t n) {
  std::vector<std::pair<int64_t, std::string>> tools;
  if (const auto* h = digest.if_contains("tool_histogram"); h && h->is_object())
    for (const auto& [name, count] : h->as_object())
      if (count.is_int64()) tools.emplace_back(count.as_int64(), std::string(name));
  std::sort(tools.begin(), tools.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  boost::json::array out;
  for (std::size_t i = 0; i < tools.size() && i < n; ++i)
    out.push_back({{"tool", tools[i].second}, {"calls", tools[i].first}});
  return out;
}

// One event of a turn page: its text cut at `max_bytes`.
boost::json::object event_item(const EventRow& e, int depth, std::size_t max_bytes) {
  const std::string& text = e.text.empty() ? e.summary : e.text;
  boost::json::object item{{"seq", e.seq}, {"kind", e.kind}, {"ts", time_or_null(e.ts_ms)}};
  if (!e.role.empty()) item["role"] = e.role;
  if (!e.tool.empty()) item["tool"] = e.tool;
  if (depth > 0) item["subagent_depth"] = depth;
  if (is_compaction_marker(e)) item["compaction"] = true;
  if (text.size() > max_bytes) {
    std::size_t end = max_bytes;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;  // UTF-8
    item["text"] = text.substr(0, end);
    item["text_bytes_left_out"] = static_cast<int64_t>(text.size() - end);
  } else {
    item["text"] = text;
  }
  return item;
}

// The position a turn page reached: turn index (0-based) and events of it already given.
struct Cursor {
  std::size_t turn = 0, event = 0;
};

class TurnPager {
 public:
  TurnPager(const SessionRow& s, const Conversation& c, const std::vector<EventRow>& events,
            const ViewRequest& r, boost::json::object& view)
      : s_(s), c_(c), events_(events), r_(r), view_(view) {
    for (const auto& t : c.turns) flat_.push_back(flatten_turn(c, t));
  }

  void fill() {
    const std::size_t first = static_cast<std::size_t>(r_.from_turn - 1);
    const std::size_t last =
        r_.turn_count > 0 ? std::min(flat_.size(), first + static_cast<std::size_t>(r_.turn_count))
                          : flat_.size();
    Cursor at{first, static_cast<std::size_t>(r_.from_event)};
    std::vector<Cursor> placed;  // where each placed event came from, to take it back
    const std::size_t budget = static_cast<std::size_t>(r_.max_tokens * kBytesPerToken);
    const std::size_t reserve = 600;  // room for left_out and next
    std::size_t used = json_bytes(view_);
    while (at.turn < last) {
      if (at.event >= flat_[at.turn].size()) {
        at = {at.turn + 1, 0};
        continue;
      }
      const FlatEvent& fe = flat_[at.turn][at.event];
      auto item = event_item(events_[fe.event], fe.depth, kTurnEventMaxBytes);
      std::size_t cost = json_bytes(item) + 1 + (opened(at.turn) ? 0 : turn_overhead(at.turn));
      if (used + cost + reserve > budget) {
        if (!placed.empty()) break;
        // The page's first event alone is too large: cut it to the room there is.
        const std::size_t room = budget > used + reserve + 200 ? budget - used - reserve - 200 : 0;
        item = event_item(events_[fe.event], fe.depth, room);
        cost = json_bytes(item) + 1 + turn_overhead(at.turn);
        if (room == 0 || used + cost + reserve > budget) break;
      }
      place(at.turn, std::move(item));
      placed.push_back(at);
      used += cost;
      ++at.event;
    }
    finish(at, last);
    while (json_tokens(view_) > r_.max_tokens && !placed.empty()) {  // the reserve was short
      at = placed.back();
      placed.pop_back();
      take_back(at.turn);
      finish(at, last);
    }
  }

 private:
  bool opened(std::size_t turn) const {
    const auto& turns = view_.at("turns").as_array();
    return !turns.empty() &&
           turns.back().as_object().at("turn").as_int64() == static_cast<int64_t>(turn + 1);
  }
  boost::json::object turn_object(std::size_t turn) const {
    const auto& steps = c_.turns[turn].steps;
    const int64_t started = steps.empty() ? 0 : events_[steps.front().event].ts_ms;
    return {{"turn", static_cast<int64_t>(turn + 1)},
            {"started_at", time_or_null(started)},
            {"events", boost::json::array()}};
  }
  std::size_t turn_overhead(std::size_t turn) const { return json_bytes(turn_object(turn)) + 1; }

  void place(std::size_t turn, boost::json::object item) {
    auto& turns = view_["turns"].as_array();
    if (!opened(turn)) turns.push_back(turn_object(turn));
    turns.back().as_object()["events"].as_array().push_back(std::move(item));
  }
  void take_back(std::size_t turn) {
    auto& turns = view_["turns"].as_array();
    auto& events = turns.back().as_object()["events"].as_array();
    events.pop_back();
    if (events.empty() && opened(turn)) turns.pop_back();
  }

  // Sets left_out and next for a page that stopped at `at`, the window ending before `last`.
  void finish(Cursor at, std::size_t last) {
    view_["left_out"] = boost::json::array();
    view_["next"] = nullptr;
    std::size_t cut_texts = 0;
    for (const auto& t : view_.at("turns").as_array())
      for (const auto& e : t.as_object().at("events").as_array())
        if (e.as_object().contains("text_bytes_left_out")) ++cut_texts;
    if (cut_texts > 0)
      leave_out(view_, fmt::format("the text of {} event{} was cut (text_bytes_left_out says how "
                                   "much); the whole transcript is the resource "
                                   "helix://session/{}",
                                   cut_texts, cut_texts == 1 ? "" : "s", s_.uid));
    if (c_.hidden > 0)
      leave_out(view_,
                fmt::format("{} bookkeeping records (lifecycle, progress, metadata)", c_.hidden));
    while (at.turn < flat_.size() && at.event >= flat_[at.turn].size()) at = {at.turn + 1, 0};
    if (at.turn >= flat_.size()) return;
    const std::size_t total = flat_.size();
    if (at.turn < last)
      leave_out(view_, fmt::format("turn {} from its event {} on, and turns {}-{} (over the "
                                   "budget)",
                                   at.turn + 1, at.event + 1, at.turn + 2, total));
    else
      leave_out(view_, fmt::format("turns {}-{} (after the requested window)", at.turn + 1, total));
    auto next = next_args(s_, "turns", r_.max_tokens);
    next["from_turn"] = static_cast<int64_t>(at.turn + 1);
    if (at.event > 0) next["from_event"] = static_cast<int64_t>(at.event);
    if (r_.turn_count > 0) next["turn_count"] = r_.turn_count;
    view_["next"] = std::move(next);
  }

  const SessionRow& s_;
  const Conversation& c_;
  const std::vector<EventRow>& events_;
  const ViewRequest& r_;
  boost::json::object& view_;
  std::vector<std::vector<FlatEvent>> flat_;
};

}  // namespace

std::map<std::string, double> session_costs(Store& store) {
  std::map<std::string, double> costs;
  for (const auto& line : usage_report(store, "session", "", "")) costs[line.key] = line.cost_usd;
  return costs;
}

boost::json::object session_brief(const SessionRow& s, double cost_usd) {
  return {{"uid", s.uid},
          {"flavor", s.flavor},
          {"repo", nullable(s.repo)},
          {"title", nullable(s.title)},
          {"started_at", time_or_null(s.started_at_ms)},
          {"ended_at", time_or_null(s.ended_at_ms)},
          {"outcome", nullable(s.outcome)},
          {"turns", s.turns},
          {"input_tokens", s.usage.input_tokens},
          {"output_tokens", s.usage.output_tokens},
          {"cost_usd", round_micro(cost_usd)}};
}

boost::json::object summary_view(Store& store, const SessionRow& s, double cost_usd,
                                 const ViewRequest& r) {
  auto view = envelope(s, cost_usd, "summary", r.max_tokens);
  const auto digest = primary_digest(store, s, r.primary_digester);
  std::string first_prompt, last_answer;
  boost::json::value unpriced = boost::json::array();
  if (digest) {
    first_prompt = text_field(*digest, "first_prompt");
    last_answer = text_field(*digest, "last_assistant");
    if (const auto* cost = digest->if_contains("cost"); cost && cost->is_object())
      if (const auto* u = cost->as_object().if_contains("unpriced_models")) unpriced = *u;
  }
  boost::json::object summary{
      {"cwd", nullable(s.cwd)},
      {"git_branch", nullable(s.git_branch)},
      {"model", nullable(s.model)},
      {"agent_version", nullable(s.agent_version)},
      {"event_count", s.event_count},
      {"redactions", s.redactions},
      {"evicted_at", time_or_null(s.evicted_at_ms)},
      {"digested", digest.has_value()},
      {"first_prompt", nullable(truncated(first_prompt, kSummaryTextBytes))},
      {"last_answer", nullable(truncated(last_answer, kSummaryTextBytes))},
      {"tokens",
       {{"input", s.usage.input_tokens},
        {"output", s.usage.output_tokens},
        {"cache_read", s.usage.cache_read_tokens},
        {"cache_creation", s.usage.cache_creation_tokens},
        {"reasoning", s.usage.reasoning_tokens}}},
      {"unpriced_models", unpriced},
      {"top_tools", digest ? top_tools(*digest, 5) : boost::json::array()}};
  view["summary"] = std::move(summary);
  view["next"] = next_args(s, "turns", r.max_tokens);  // read on: the conversation itself
  shrink_to_fit(view, "summary",
                {"top_tools", "last_answer", "tokens", "first_prompt", "unpriced_models",
                 "agent_version", "git_branch", "cwd"},
                r.max_tokens);
  set_used(view);
  return view;
}

boost::json::object digest_view(Store& store, const SessionRow& s, double cost_usd,
                                const ViewRequest& r) {
  auto view = envelope(s, cost_usd, "digest", r.max_tokens);
  auto digest = primary_digest(store, s, r.primary_digester);
  if (!digest) {
    view["digest"] = nullptr;
    leave_out(view, fmt::format("the session has no digest by '{}' yet; the next sweep writes it",
                                r.primary_digester));
    set_used(view);
    return view;
  }
  view["digest"] = *digest;
  const int64_t whole = json_tokens(view);
  // Long lists lose their tail first, then whole members go.
  for (const char* key : {"usage_by_day", "error_snippets", "decisions"}) {
    auto* list = view["digest"].as_object().if_contains(key);
    if (!list || !list->is_array()) continue;
    std::size_t dropped = 0;
    while (json_tokens(view) > r.max_tokens && !list->as_array().empty()) {
      list->as_array().pop_back();
      ++dropped;
    }
    if (dropped > 0) leave_out(view, fmt::format("the last {} entries of {}", dropped, key));
  }
  if (whole > r.max_tokens) view["next"] = next_args(s, "digest", whole + 64);
  shrink_to_fit(view, "digest",
                {"tool_histogram", "kind_counts", "markers", "last_assistant", "first_prompt",
                 "cost", "usage_by_day", "error_snippets", "decisions"},
                r.max_tokens);
  set_used(view);
  return view;
}

boost::json::object turns_view(Store& store, const SessionRow& s, double cost_usd,
                               const ViewRequest& r) {
  auto view = envelope(s, cost_usd, "turns", r.max_tokens);
  view["turns"] = boost::json::array();
  if (s.evicted_at_ms > 0) {
    leave_out(view, fmt::format("the raw transcript was evicted on {} (retention); its digest "
                                "remains: part \"digest\"",
                                iso8601(s.evicted_at_ms)));
    view["next"] = next_args(s, "digest", r.max_tokens);
    set_used(view);
    return view;
  }
  const auto events = store.events(s.uid, /*with_bodies=*/true);
  const Conversation c = build_conversation(events);
  view["turn_total"] = static_cast<int64_t>(c.turns.size());
  if (r.from_turn > static_cast<int64_t>(c.turns.size())) {
    leave_out(view, fmt::format("the session has {} turns; from_turn {} is past its end",
                                c.turns.size(), r.from_turn));
    set_used(view);
    return view;
  }
  if (r.max_tokens >= kMinimumUsefulTokens) TurnPager(s, c, events, r, view).fill();
  set_used(view);
  return view;
}

}  // namespace helix

// What an agent reads of a stored session, as JSON within a token budget: a one-line brief, the
// summary, the digest, or a window of turns; each says what it left out and how to ask for
// the rest (the arguments of the next call).
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <map>
#include <string>

#include "store/store.hpp"

namespace helix {

// Texts of one event longer than this are cut in a turn page (the full text is in the
// session's transcript resource).
inline constexpr std::size_t kTurnEventMaxBytes = 2000;

// Each session's cost in USD as the primary digest priced it (usage_days), by uid.
std::map<std::string, double> session_costs(Store& store);

// {uid, flavor, repo, title, started_at, ended_at, outcome, turns, input_tokens, output_tokens,
//  cost_usd}: strings are null when unknown.
boost::json::object session_brief(const SessionRow& s, double cost_usd);

// A view's request: which session, which part, and the budget.
struct ViewRequest {
  std::string primary_digester;  // whose digest `digest` and `summary` read
  int64_t max_tokens = 4000;
  // part "turns": the first turn (1-based), how many (0 = as many as fit), and how many events
  // of the first turn to skip (a page cut inside a turn continues there).
  int64_t from_turn = 1, turn_count = 0, from_event = 0;
};

// The views. Each returns {"session": brief, "part": ..., <the part>, "budget": {max_tokens,
// used_tokens}, "left_out": [strings], "next": arguments object or null}; the whole
// serialized object stays within max_tokens (json_tokens), except that the session brief
// alone always comes back.
boost::json::object summary_view(Store& store, const SessionRow& s, double cost_usd,
                                 const ViewRequest& r);
boost::json::object digest_view(Store& store, const SessionRow& s, double cost_usd,
                                const ViewRequest& r);
boost::json::object turns_view(Store& store, const SessionRow& s, double cost_usd,
                               const ViewRequest& r);

}  // namespace helix

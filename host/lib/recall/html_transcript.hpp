// A stored session as one self-contained HTML page people can share: the header (title, repo,
// dates, tokens, cost, outcome), then its turns with thinking folded, tool calls and their
// outputs, subagents nested under the calls that started them, compactions marked, errors
// highlighted and redactions shown as such.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "recall/transcript.hpp"
#include "store/store.hpp"

namespace helix {

// Tool inputs and outputs and thinking longer than this are cut, saying how much was left out.
inline constexpr std::size_t kHtmlMaxBlockBytes = 20000;

// `events` with bodies (Store::events(uid, true)); `cost_usd` as the primary digest priced it.
std::string html_transcript(const SessionRow& session, const std::vector<EventRow>& events,
                            double cost_usd);

// A session whose raw events were evicted: its header and the digests that remain.
std::string html_evicted_session(const SessionRow& session,
                                 const std::vector<StoredDigest>& digests, double cost_usd);

}  // namespace helix

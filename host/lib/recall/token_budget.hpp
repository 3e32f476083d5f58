// How many tokens a JSON answer costs an agent, and trimming lists to a budget. Helix calls no
// model, so tokens are estimated: 4 bytes of serialized JSON per token, rounded up (the usual
// rule of thumb for English and code with BPE tokenizers; dense non-Latin text costs more).
#pragma once

#include <boost/json.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace helix {

inline constexpr int64_t kBytesPerToken = 4;

std::size_t json_bytes(const boost::json::value& v);
int64_t json_tokens(const boost::json::value& v);

// Puts the longest prefix of `items` that fits into `envelope[list_key]`: after
// `finish(envelope, kept)` has set what depends on how many were kept (what was left out, how
// to get the rest), the serialized envelope is at most `max_tokens`. Returns how many were
// kept (possibly 0: the caller decides whether an empty answer is an answer).
std::size_t pack_within_budget(
    boost::json::object& envelope, std::string_view list_key,
    const std::vector<boost::json::value>& items, int64_t max_tokens,
    const std::function<void(boost::json::object&, std::size_t kept)>& finish);

}  // namespace helix

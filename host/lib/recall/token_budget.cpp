// Token estimates and budget packing (see token_budget.hpp).
#include "recall/token_budget.hpp"

#include "base/json_text.hpp"

namespace helix {

std::size_t json_bytes(const boost::json::value& v) { return to_json(v).size(); }

int64_t json_tokens(const boost::json::value& v) {
  return (static_cast<int64_t>(json_bytes(v)) + kBytesPerToken - 1) / kBytesPerToken;
}

std::size_t pack_within_budget(
    boost::json::object& envelope, std::string_view list_key,
    const std::vector<boost::json::value>& items, int64_t max_tokens,
    const std::function<void(boost::json::object&, std::size_t kept)>& finish) {
  const auto budget = static_cast<std::size_t>(max_tokens * kBytesPerToken);
  auto fill = [&](std::size_t kept) {
    boost::json::array list;
    for (std::size_t i = 0; i < kept; ++i) list.push_back(items[i]);
    envelope[list_key] = std::move(list);
    finish(envelope, kept);
    return json_bytes(envelope);
  };
  // A first guess from the sizes alone, then fewer until the finished envelope fits.
  std::size_t used = fill(0), kept = 0;
  while (kept < items.size()) {
    const std::size_t cost = json_bytes(items[kept]) + 1;  // and a comma
    if (used + cost > budget) break;
    used += cost;
    ++kept;
  }
  while (fill(kept) > budget && kept > 0) --kept;
  return kept;
}

}  // namespace helix

#include "cli/cost_notes.hpp"
#include "cli/terminal.hpp"

#include "store/price_store.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <boost/json.hpp>
#include <iostream>
#include <map>

namespace helix {

boost::json::array unpriced_json(const std::vector<UnpricedModel>& unpriced) {
  boost::json::array out;
  for (const auto& u : unpriced)
    out.push_back(boost::json::object{{"model", u.model}, {"tokens", u.tokens}});
  return out;
}

void warn_unpriced(const std::vector<UnpricedModel>& unpriced) {
  if (unpriced.empty()) return;
  std::string models;
  for (const auto& u : unpriced)
    models += fmt::format("{}{} ({} tokens)", models.empty() ? "" : ", ",
                          u.model.empty() ? "(no model named)" : u.model, u.tokens);
  print_message(
      fmt::format("warning: no price for {}; the cost leaves these tokens out ('helix-host "
                  "prices' lists the price book, 'helix-host prices import FILE' adds newer "
                  "prices)",
                  models));
}

void warn_unpriced_sessions(Store& store, const std::vector<std::string>& uids) {
  std::map<std::string, int64_t> tokens;
  for (const auto& uid : uids)
    for (const auto& u : session_unpriced_models(store, uid)) tokens[u.model] += u.tokens;
  std::vector<UnpricedModel> unpriced;
  unpriced.reserve(tokens.size());
  for (const auto& [model, n] : tokens) unpriced.push_back({model, n});
  std::stable_sort(unpriced.begin(), unpriced.end(),
                   [](const auto& a, const auto& b) { return a.tokens > b.tokens; });
  warn_unpriced(unpriced);
}

std::string cost_line(const SessionRow& s) {
  std::string line = fmt::format("cost ${:.6f} at the price book's prices", s.cost_usd.value_or(0));
  if (s.agent_cost_usd) line += fmt::format("; the agent's own figure ${:.6f}", *s.agent_cost_usd);
  if (s.unpriced_tokens > 0) line += fmt::format("; {} tokens unpriced", s.unpriced_tokens);
  return line;
}

void warn_if_costs_stale(Store& store, const PriceBook& book) {
  const auto state = pricing_state(store);
  if (!state)
    print_message(
        "warning: the costs in this store were not computed by the host yet; the next "
        "'helix-host sweep' prices them");
  else if (state->fingerprint != book.fingerprint())
    print_message(fmt::format(
        "warning: the costs shown were priced with {}; this helix-host prices with {}: the next "
        "'helix-host sweep' prices them again",
        state->source, book.source()));
}

}  // namespace helix

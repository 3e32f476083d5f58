// What every report that shows a cost says with it: the models the price book cannot price
// (and the tokens that leaves out of the cost), and stored costs priced with another book.
#pragma once

#include "store/digest_store.hpp"
#include "store/store.hpp"

#include <boost/json/array.hpp>
#include <string>
#include <vector>

namespace helix {

// [{"model": .., "tokens": ..}], most tokens first: the `unpriced_models` of --json output.
boost::json::array unpriced_json(const std::vector<UnpricedModel>& unpriced);

// One line on stderr naming each unpriced model and its tokens; nothing when there are none.
void warn_unpriced(const std::vector<UnpricedModel>& unpriced);

// The unpriced models of the listed sessions (uids with unpriced tokens), on stderr.
void warn_unpriced_sessions(Store& store, const std::vector<std::string>& uids);

// "cost $1.234567 at the price book's prices; the agent's own figure $1.200000" (`show`).
std::string cost_line(const SessionRow& session);

// One line on stderr when the stored costs were priced with another book than `book`, the one
// this helix-host prices with (a newer helix-host, before its first sweep), or not yet priced.
void warn_if_costs_stale(Store& store, const PriceBook& book);

}  // namespace helix

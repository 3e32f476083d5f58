// JSON text as Helix writes it for readers (agents included): Boost.JSON's output, except that
// numbers with a fraction are written as plain decimals (0.65, not 6.5E-1).
#pragma once

#include <boost/json.hpp>
#include <string>

namespace helix {

std::string json_text(const boost::json::value& v);

// A cost in USD as answers carry it: rounded to a millionth of a dollar (0.338758, not
// 0.33875849999999996).
double cost_figure(double usd);

}  // namespace helix

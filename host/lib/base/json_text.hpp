// JSON text as helix writes it, for every reader (people, scripts, agents over MCP): Boost.JSON's
// text except that every floating-point number is a plain decimal rounded to 1e-6 (531.817078,
// 0.0), never exponent notation (5.31817078475E2), and one that is not finite is null.
#pragma once

#include <boost/json.hpp>
#include <string>

namespace helix {

std::string to_json(const boost::json::value& value);

// Indented by two spaces per level, one member per line, for files people edit (an agent's
// settings): numbers are written back exactly (the shortest text that reads back the same).
std::string to_pretty_json(const boost::json::value& value);

// A cost or share as written: rounded to 1e-6 (what to_json prints for it); 0 when not finite.
double round_micro(double value);

}  // namespace helix

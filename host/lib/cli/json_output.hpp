// JSON as helix-host prints it: Boost.JSON's text except that every floating-point number is a
// plain decimal rounded to 1e-6 (531.817078, 0.0), never exponent notation (5.31817078475E2).
#pragma once

#include <boost/json.hpp>
#include <string>

namespace helix {

std::string to_json(const boost::json::value& value);
// The same, indented by two spaces per level, one member per line (for files people edit).
std::string to_pretty_json(const boost::json::value& value);

// A cost or share as printed: rounded to 1e-6 (what to_json prints for it).
double round_micro(double value);

}  // namespace helix

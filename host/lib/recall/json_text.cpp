// Readable JSON text (see json_text.hpp).
#include "recall/json_text.hpp"

#include <fmt/format.h>

#include <cmath>

namespace helix {
namespace {

void write(const boost::json::value& v, std::string& out) {
  switch (v.kind()) {
    case boost::json::kind::double_: {
      const double d = v.get_double();
      out += std::isfinite(d) ? fmt::format("{}", d) : "null";  // shortest exact form
      return;
    }
    case boost::json::kind::array: {
      out += '[';
      bool first = true;
      for (const auto& item : v.get_array()) {
        if (!first) out += ',';
        first = false;
        write(item, out);
      }
      out += ']';
      return;
    }
    case boost::json::kind::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, item] : v.get_object()) {
        if (!first) out += ',';
        first = false;
        out += boost::json::serialize(boost::json::string(key));
        out += ':';
        write(item, out);
      }
      out += '}';
      return;
    }
    default:
      out += boost::json::serialize(v);
  }
}

}  // namespace

double cost_figure(double usd) { return std::round(usd * 1e6) / 1e6; }

std::string json_text(const boost::json::value& v) {
  std::string out;
  write(v, out);
  return out;
}

}  // namespace helix

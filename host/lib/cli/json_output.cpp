#include "cli/json_output.hpp"

#include "base/text.hpp"

#include <fmt/format.h>

#include <cmath>

namespace helix {
namespace {

// 1.500000 -> 1.5, 2.000000 -> 2.0: a number with a point stays a real number to readers that
// tell them apart.
std::string plain_decimal(double value) {
  std::string text = fmt::format("{:.6f}", round_micro(value));
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.') text += '0';
  return text == "-0.0" ? "0.0" : text;
}

// A string as JSON text that is valid UTF-8 whatever its bytes: a file name is bytes, not text,
// and one invalid byte would make the whole output unreadable to a JSON parser. Invalid
// sequences become U+FFFD.
std::string string_json(boost::json::string_view text) {
  if (is_valid_utf8(text)) return boost::json::serialize(text);
  const std::string repaired = valid_utf8(text);
  return boost::json::serialize(boost::json::string_view(repaired));
}

// `indent` < 0: on one line; else the current depth's indentation in spaces.
// Pretty output is for files people edit: their numbers are written back as they were.
void write(const boost::json::value& v, std::string& out, int indent = -1) {
  auto newline = [&](int depth) {
    if (indent >= 0) out += "\n" + std::string(static_cast<std::size_t>(depth), ' ');
  };
  const int inner = indent >= 0 ? indent + 2 : -1;
  switch (v.kind()) {
    case boost::json::kind::double_: {
      if (indent >= 0) {
        out += boost::json::serialize(v);
        return;
      }
      out += plain_decimal(v.get_double());
      return;
    }
    case boost::json::kind::array: {
      out += '[';
      bool first = true;
      for (const auto& e : v.get_array()) {
        if (!first) out += ',';
        first = false;
        newline(inner);
        write(e, out, inner);
      }
      if (!first) newline(indent);
      out += ']';
      return;
    }
    case boost::json::kind::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, e] : v.get_object()) {
        if (!first) out += ',';
        first = false;
        newline(inner);
        out += string_json(key);
        out += indent >= 0 ? ": " : ":";
        write(e, out, inner);
      }
      if (!first) newline(indent);
      out += '}';
      return;
    }
    case boost::json::kind::string:
      out += string_json(v.get_string());
      return;
    default:
      out += boost::json::serialize(v);
  }
}

}  // namespace

double round_micro(double value) {
  if (!std::isfinite(value)) return 0;
  return std::round(value * 1e6) / 1e6;
}

std::string to_json(const boost::json::value& value) {
  std::string out;
  write(value, out);
  return out;
}

std::string to_pretty_json(const boost::json::value& value) {
  std::string out;
  write(value, out, 0);
  return out + "\n";
}

}  // namespace helix

// JSON text as helix writes it (see json_text.hpp).
#include "base/json_text.hpp"

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

// The shortest text that reads back as `value`, still with a point or an exponent.
std::string exact_decimal(double value) {
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

// A string as JSON text that is valid UTF-8 whatever its bytes: a file name is bytes, not text,
// and one invalid byte would make the whole output unreadable to a JSON parser. Invalid
// sequences become U+FFFD; a NUL is valid JSON (\u0000) and stays.
std::string string_json(boost::json::string_view text) {
  if (is_valid_utf8(text)) return boost::json::serialize(text);
  std::string repaired;
  for (std::size_t from = 0;;) {
    const std::size_t nul = text.find('\0', from);
    repaired +=
        valid_utf8(text.substr(from, nul == boost::json::string_view::npos ? nul : nul - from));
    if (nul == boost::json::string_view::npos) break;
    repaired += '\0';
    from = nul + 1;
  }
  return boost::json::serialize(boost::json::string_view(repaired));
}

void write(const boost::json::value& v, std::string& out, int indent);

// `indent` < 0: on one line; else the current depth's indentation in spaces.
void newline(std::string& out, int indent) {
  if (indent >= 0) out += "\n" + std::string(static_cast<std::size_t>(indent), ' ');
}

void write_array(const boost::json::array& a, std::string& out, int indent) {
  const int inner = indent >= 0 ? indent + 2 : -1;
  out += '[';
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (i > 0) out += ',';
    newline(out, inner);
    write(a[i], out, inner);
  }
  if (!a.empty()) newline(out, indent);
  out += ']';
}

void write_object(const boost::json::object& o, std::string& out, int indent) {
  const int inner = indent >= 0 ? indent + 2 : -1;
  out += '{';
  bool first = true;
  for (const auto& [key, e] : o) {
    if (!first) out += ',';
    first = false;
    newline(out, inner);
    out += string_json(key);
    out += indent >= 0 ? ": " : ":";
    write(e, out, inner);
  }
  if (!o.empty()) newline(out, indent);
  out += '}';
}

void write(const boost::json::value& v, std::string& out, int indent) {
  switch (v.kind()) {
    case boost::json::kind::double_: {
      const double d = v.get_double();
      out += !std::isfinite(d) ? "null" : indent >= 0 ? exact_decimal(d) : plain_decimal(d);
      return;
    }
    case boost::json::kind::array:
      return write_array(v.get_array(), out, indent);
    case boost::json::kind::object:
      return write_object(v.get_object(), out, indent);
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
  write(value, out, -1);
  return out;
}

std::string to_pretty_json(const boost::json::value& value) {
  std::string out;
  write(value, out, 0);
  return out + "\n";
}

}  // namespace helix

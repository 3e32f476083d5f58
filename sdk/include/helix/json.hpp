// helix/json.hpp: optional helpers for adapters that parse JSON records with Boost.JSON.
//
// Not part of the ABI: include it only if the plugin links Boost.JSON. It covers what every
// JSONL adapter needs: lines holding several concatenated objects, deep nesting, invalid UTF-8,
// typed field access that never throws, and ISO-8601 timestamps.
#pragma once

#include <boost/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace helix::json {

// Parses every JSON value on one line ("{...}{...}" included), reusing its buffers: each value
// is built in one arena, released when the next value starts, so a record costs no heap
// allocation unless it outgrows the arena.
class LineParser {
 public:
  // Deep enough for real transcripts, shallow enough to bound the parser's stack.
  static constexpr std::size_t kMaxDepth = 512;
  static constexpr std::size_t kArenaBytes = std::size_t{64} * 1024;

  LineParser()
      : arena_buffer_(new unsigned char[kArenaBytes]),
        parser_(boost::json::storage_ptr(), options()) {}
  LineParser(const LineParser&) = delete;
  LineParser& operator=(const LineParser&) = delete;

  // Calls `on_value(value, byte_offset_in_line)` for each complete value; the value (and any
  // view into it) lives until the next value is parsed: to keep one longer, copy it with a
  // storage of its own (boost::json::value(v, boost::json::storage_ptr())). Returns an empty
  // string on success or the reason the value at `error_at` is unusable. After damage the
  // parser resynchronises on the next whole record of the line (see resync), so a torn record
  // costs only itself.
  std::string parse(std::string_view line,
                    const std::function<void(const boost::json::value&, std::size_t)>& on_value,
                    std::size_t* error_at = nullptr) {
    value_end_ = 0;
    std::string first_error;
    std::size_t pos = 0;
    while (true) {
      while (pos < line.size() && is_space(line[pos])) ++pos;
      if (pos >= line.size()) return first_error;
      reset();
      boost::system::error_code ec;
      std::size_t used = parser_.write_some(line.data() + pos, line.size() - pos, ec);
      if (ec) {
        if (first_error.empty()) {
          first_error = ec.message();
          if (error_at) *error_at = pos;
        }
        pos = resync(line, pos);
        if (pos == std::string_view::npos) return first_error;
        continue;
      }
      boost::json::value v = parser_.release();
      value_end_ = pos + used;  // the parser takes the whitespace after a value as well
      while (value_end_ > pos && is_space(line[value_end_ - 1])) --value_end_;
      on_value(v, pos);
      pos += used;
    }
  }

  // During on_value: the offset in the line just after the value's last byte.
  std::size_t value_end() const { return value_end_; }

 private:
  std::size_t value_end_ = 0;
  static constexpr int kResyncAttempts = 64;  // bounds the extra work a damaged line costs

  // A torn record: a writer died mid-record and the next record was appended to the same line
  // (anthropics/claude-code#52387). That record is the first object after `from` that parses
  // whole and is followed by the end of the line or another value; the torn record's own
  // complete inner objects are followed by a comma or a closing bracket instead.
  std::size_t resync(std::string_view line, std::size_t from) {
    std::size_t at = from;
    for (int attempt = 0; attempt < kResyncAttempts; ++attempt) {
      at = line.find('{', at + 1);
      if (at == std::string_view::npos) return at;
      reset();
      boost::system::error_code ec;
      std::size_t end = at + parser_.write_some(line.data() + at, line.size() - at, ec);
      if (ec) continue;
      while (end < line.size() && is_space(line[end])) ++end;
      if (end == line.size() || line[end] == '{') return at;
    }
    return std::string_view::npos;
  }

  static boost::json::parse_options options() {
    boost::json::parse_options o;
    o.max_depth = kMaxDepth;
    o.allow_invalid_utf8 = true;  // keep the record; the host repairs text before storing it
    return o;
  }
  static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

  // Frees the previous value for the next one: a fresh arena over the same first block (a
  // released monotonic_resource would keep doubling the size of the blocks it adds).
  void reset() {
    parser_.reset();  // drops what the parser still holds before its arena goes
    arena_.emplace(arena_buffer_.get(), kArenaBytes);
    parser_.reset(boost::json::storage_ptr(&*arena_));
  }

  std::unique_ptr<unsigned char[]> arena_buffer_;
  std::optional<boost::json::monotonic_resource> arena_;
  boost::json::parser parser_;
};

// Typed access that answers "absent" instead of throwing.
inline const boost::json::object* obj(const boost::json::value* v) {
  return v ? v->if_object() : nullptr;
}
inline const boost::json::object* obj(const boost::json::object& o, std::string_view key) {
  return obj(o.if_contains(key));
}
inline const boost::json::array* arr(const boost::json::object& o, std::string_view key) {
  auto* v = o.if_contains(key);
  return v ? v->if_array() : nullptr;
}
inline std::string_view str(const boost::json::value* v) {
  if (!v) return {};
  if (auto* s = v->if_string()) return {s->data(), s->size()};
  return {};
}
inline std::string_view str(const boost::json::object& o, std::string_view key) {
  return str(o.if_contains(key));
}
inline int64_t num(const boost::json::value* v, int64_t fallback = 0) {
  if (!v) return fallback;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64()) return static_cast<int64_t>(v->get_uint64());
  if (v->is_double()) {
    // Out of range (1e999 parses as infinity) or NaN: casting would be undefined behaviour.
    const double d = v->get_double();
    return d >= -9.2e18 && d <= 9.2e18 ? static_cast<int64_t>(d) : fallback;
  }
  return fallback;
}
inline int64_t num(const boost::json::object& o, std::string_view key, int64_t fallback = 0) {
  return num(o.if_contains(key), fallback);
}
inline double real(const boost::json::value* v, double fallback = 0) {
  if (!v) return fallback;
  if (v->is_double()) return v->get_double();
  if (v->is_int64()) return static_cast<double>(v->get_int64());
  if (v->is_uint64()) return static_cast<double>(v->get_uint64());
  return fallback;
}
inline bool truthy(const boost::json::object& o, std::string_view key) {
  auto* v = o.if_contains(key);
  return v && v->is_bool() && v->get_bool();
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil), so that
// this header needs only C++17.
inline int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

namespace detail {
// The n decimal digits at s[at] as a number, or -1.
inline int fixed_digits(std::string_view s, std::size_t at, std::size_t n) {
  if (at + n > s.size()) return -1;
  int out = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return -1;
    out = out * 10 + (s[i] - '0');
  }
  return out;
}
// The milliseconds of a ".123" fraction at s[pos] (any number of digits), moving pos past it.
inline int64_t fraction_ms(std::string_view s, std::size_t& pos) {
  int64_t ms = 0;
  if (pos >= s.size() || s[pos] != '.') return 0;
  int scale = 100;
  for (++pos; pos < s.size() && s[pos] >= '0' && s[pos] <= '9'; ++pos, scale /= 10)
    ms += int64_t{s[pos] - '0'} * scale;
  return ms;
}
// The seconds east of UTC of a "+02:00" at s[pos] (0 for "Z" or nothing); false if malformed.
inline bool utc_offset_s(std::string_view s, std::size_t pos, int64_t& offset_s) {
  offset_s = 0;
  if (pos >= s.size() || (s[pos] != '+' && s[pos] != '-')) return true;
  const int oh = fixed_digits(s, pos + 1, 2), om = fixed_digits(s, pos + 4, 2);
  if (oh < 0 || om < 0) return false;
  offset_s = (int64_t{oh} * 3600 + int64_t{om} * 60) * (s[pos] == '+' ? 1 : -1);
  return true;
}
inline bool valid_date(int y, int mo, int d) {
  static constexpr int kMonthDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return mo >= 1 && mo <= 12 && d >= 1 && d <= kMonthDays[mo - 1] && !(mo == 2 && d == 29 && !leap);
}
}  // namespace detail

// "2026-06-05T21:59:30.123Z" or "...+02:00" (fraction optional) to Unix ms; 0 if malformed.
inline int64_t iso8601_ms(std::string_view s) {
  const int y = detail::fixed_digits(s, 0, 4), mo = detail::fixed_digits(s, 5, 2),
            d = detail::fixed_digits(s, 8, 2), h = detail::fixed_digits(s, 11, 2),
            mi = detail::fixed_digits(s, 14, 2), se = detail::fixed_digits(s, 17, 2);
  if (y < 0 || mo < 0 || d < 0 || h < 0 || mi < 0 || se < 0 || !detail::valid_date(y, mo, d))
    return 0;
  std::size_t pos = 19;
  const int64_t ms = detail::fraction_ms(s, pos);
  int64_t offset_s = 0;
  if (!detail::utc_offset_s(s, pos, offset_s)) return 0;
  const int64_t days = days_from_civil(y, mo, d);
  return ((days * 86400 + int64_t{h} * 3600 + int64_t{mi} * 60 + se) - offset_s) * 1000 + ms;
}

}  // namespace helix::json

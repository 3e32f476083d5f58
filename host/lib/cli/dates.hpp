// Dates and days as users type and read them, in their own time zone: --since/--until values
// (ISO dates and times, YYYYMMDD, today, yesterday, Nd, last-week) checked strictly, and the
// local day, week and month a moment falls in.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace date {
class time_zone;
}

namespace helix {

class TimeZone {
 public:
  // --timezone NAME when given, else $TZ, else the system's zone (/etc/localtime), else UTC.
  // An unknown --timezone is a UsageError naming the closest zone; an unknown $TZ is reported
  // on stderr once and UTC is used.
  static TimeZone from_option(std::string_view option);
  static TimeZone utc() { return TimeZone(nullptr); }

  std::string name() const;
  // True when every day here is the UTC day (the zone is UTC or an alias of it).
  bool is_utc() const;

  // Local calendar values of a moment (Unix milliseconds).
  std::string day(int64_t unix_ms) const;     // YYYY-MM-DD
  std::string week(int64_t unix_ms) const;    // YYYY-MM-DD of the week's Sunday, as ccusage
  std::string month(int64_t unix_ms) const;   // YYYY-MM
  std::string minute(int64_t unix_ms) const;  // YYYY-MM-DD HH:MM
  // The first millisecond of local day `day` (YYYY-MM-DD) in Unix milliseconds.
  int64_t day_start_ms(std::string_view day) const;

 private:
  explicit TimeZone(const date::time_zone* zone) : zone_(zone) {}
  const date::time_zone* zone_;  // nullptr = UTC; owned by the tz database (lives forever)
};

enum class Bound { since, until };

// The moment a --since (first millisecond) or --until (last millisecond, inclusive) value
// names, or std::invalid_argument explaining the accepted forms. A day is a local day of
// `zone`; relative forms count from `now_ms`.
int64_t parse_when(std::string_view text, Bound bound, const TimeZone& zone, int64_t now_ms);

}  // namespace helix

#include "cli/dates.hpp"
#include "cli/terminal.hpp"

#include "base/suggest.hpp"
#include "cli/cli_support.hpp"

#include <date/date.h>
#include <date/tz.h>
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <regex>
#include <stdexcept>

namespace helix {
namespace {

using Ms = std::chrono::milliseconds;
using SysMs = date::sys_time<Ms>;
using LocalMs = date::local_time<Ms>;

const date::time_zone* find_zone(std::string_view name) {
  try {
    return date::locate_zone(name);
  } catch (const std::exception&) {
    return nullptr;
  }
}

std::vector<std::string> zone_names() {
  std::vector<std::string> out;
  for (const auto& z : date::get_tzdb().zones) out.push_back(std::string(z.name()));
  return out;
}

[[noreturn]] void not_a_date(std::string_view text, std::string_view why) {
  throw std::invalid_argument(
      fmt::format("'{}' is not a date{}: use YYYY-MM-DD, YYYYMMDD, an ISO-8601 time such as "
                  "2026-06-05T21:59:30Z, today, yesterday, Nd (N days ago) or last-week",
                  text, why));
}

date::year_month_day checked_day(std::string_view text, int y, unsigned m, unsigned d) {
  const date::year_month_day ymd{date::year{y}, date::month{m}, date::day{d}};
  if (!ymd.ok()) not_a_date(text, " (no such day)");
  return ymd;
}

int number(const std::string& digits) { return std::stoi(digits); }

// "YYYY-MM-DD" (already checked) as a day count.
date::sys_days to_days(std::string_view day) {
  const std::string d(day);
  return date::sys_days{date::year{std::stoi(d.substr(0, 4))} /
                        date::month{static_cast<unsigned>(std::stoi(d.substr(5, 2)))} /
                        date::day{static_cast<unsigned>(std::stoi(d.substr(8, 2)))}};
}

std::string iso_day(date::sys_days d) { return date::format("%F", d); }

}  // namespace

namespace {
// Zones that are UTC by name: answered without loading the tz database (a status line runs
// on every prompt).
bool utc_name(std::string_view name) {
  for (std::string_view n :
       {"UTC", "Etc/UTC", "UTC0", "GMT", "GMT0", "Etc/GMT", "Zulu", "Universal"})
    if (name == n) return true;
  return false;
}
}  // namespace

TimeZone TimeZone::from_option(std::string_view option) {
  if (utc_name(option)) return utc();
  if (!option.empty()) {
    if (auto* z = find_zone(option)) return TimeZone(z);
    throw UsageError(
        fmt::format("unknown time zone '{}'{} (names are as in /usr/share/zoneinfo, "
                    "e.g. America/New_York)",
                    option, did_you_mean(option, zone_names())));
  }
  if (const char* tz = std::getenv("TZ"); tz && *tz) {
    std::string_view name = tz;
    if (name.front() == ':') name.remove_prefix(1);
    if (utc_name(name)) return utc();
    if (auto* z = find_zone(name)) return TimeZone(z);
    print_message(fmt::format("TZ='{}' is not a zone name; days are in UTC", tz));
    return utc();
  }
  try {
    return TimeZone(date::current_zone());
  } catch (const std::exception&) {
    return utc();  // no /etc/localtime: the system runs on UTC
  }
}

std::string TimeZone::name() const { return zone_ ? std::string(zone_->name()) : "UTC"; }

bool TimeZone::is_utc() const {
  if (!zone_) return true;
  const std::string n = name();
  return n == "UTC" || n == "Etc/UTC" || n == "Etc/UCT" || n == "UCT" || n == "Etc/GMT" ||
         n == "GMT" || n == "Etc/Universal" || n == "Universal" || n == "Zulu" || n == "Etc/Zulu";
}

namespace {
LocalMs to_local(const date::time_zone* zone, int64_t unix_ms) {
  const SysMs t{Ms{unix_ms}};
  return zone ? zone->to_local(t) : LocalMs{Ms{unix_ms}};
}
}  // namespace

std::string TimeZone::day(int64_t unix_ms) const {
  return date::format("%F", date::floor<date::days>(to_local(zone_, unix_ms)));
}

std::string TimeZone::week(int64_t unix_ms) const {
  const auto d = date::floor<date::days>(to_local(zone_, unix_ms));
  const date::weekday wd{d};
  return date::format("%F", d - (wd - date::Sunday));
}

std::string TimeZone::month(int64_t unix_ms) const {
  return date::format("%Y-%m", date::floor<date::days>(to_local(zone_, unix_ms)));
}

std::string TimeZone::minute(int64_t unix_ms) const {
  return date::format("%F %H:%M", date::floor<std::chrono::minutes>(to_local(zone_, unix_ms)));
}

int64_t TimeZone::day_start_ms(std::string_view day) const {
  const date::local_days local{to_days(day).time_since_epoch()};
  // A day that starts in a DST gap begins at the first moment that exists.
  const auto sys = zone_ ? zone_->to_sys(date::local_time<Ms>(local), date::choose::earliest)
                         : SysMs(local.time_since_epoch());
  return date::floor<Ms>(sys).time_since_epoch().count();
}

namespace {

// An ISO-8601 time matched by parse_when's kTime: with its offset, or local to `zone`.
int64_t time_ms(std::string_view text, const std::smatch& m, const TimeZone& zone) {
  const auto ymd = checked_day(text, number(m[1]), static_cast<unsigned>(number(m[2])),
                               static_cast<unsigned>(number(m[3])));
  const int hh = number(m[4]), mm = number(m[5]), ss = m[6].matched ? number(m[6]) : 0;
  if (hh > 23 || mm > 59 || ss > 59) not_a_date(text, " (no such time of day)");
  int64_t ms = 0;
  if (m[7].matched) ms = number((m[7].str() + "00").substr(0, 3));
  const auto local = date::local_days{ymd} + std::chrono::hours{hh} + std::chrono::minutes{mm} +
                     std::chrono::seconds{ss} + Ms{ms};
  if (!m[8].matched)  // a local time
    return zone.day_start_ms(iso_day(date::sys_days{ymd})) +
           (local - date::local_days{ymd}).count();
  const std::string offset = m[8].str();
  int64_t offset_ms = 0;
  if (offset != "Z") {
    const std::string digits = offset.substr(1, 2) + offset.substr(offset.size() - 2);
    const int oh = number(digits.substr(0, 2)), om = number(digits.substr(2));
    if (oh > 23 || om > 59) not_a_date(text, " (no such UTC offset)");
    offset_ms = (oh * 60 + om) * 60000LL * (offset[0] == '-' ? -1 : 1);
  }
  return (date::sys_days{ymd}.time_since_epoch() + std::chrono::hours{hh} +
          std::chrono::minutes{mm} + std::chrono::seconds{ss})
                 .count() *
             1000 +
         ms - offset_ms;
}

}  // namespace

int64_t parse_when(std::string_view text, Bound bound, const TimeZone& zone, int64_t now_ms) {
  static const std::regex kIsoDay(R"((\d{4})-(\d{2})-(\d{2}))");
  static const std::regex kCompactDay(R"((\d{4})(\d{2})(\d{2}))");
  static const std::regex kDaysAgo(R"((\d{1,5})d)");
  static const std::regex kTime(
      R"((\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)");
  const std::string s(text);
  std::smatch m;
  const date::sys_days today = to_days(zone.day(now_ms));
  auto day_bound = [&](date::sys_days day) {
    if (bound == Bound::since) return zone.day_start_ms(iso_day(day));
    return zone.day_start_ms(iso_day(day + date::days{1})) - 1;
  };
  if (s == "today") return day_bound(today);
  if (s == "yesterday") return day_bound(today - date::days{1});
  if (std::regex_match(s, m, kDaysAgo)) return day_bound(today - date::days{number(m[1])});
  if (s == "last-week") {  // the calendar week before this one, Monday to Sunday
    const auto first = today - (date::weekday{today} - date::Monday) - date::days{7};
    return day_bound(bound == Bound::since ? first : first + date::days{6});
  }
  if (std::regex_match(s, m, kIsoDay) || std::regex_match(s, m, kCompactDay)) {
    const auto ymd = checked_day(text, number(m[1]), static_cast<unsigned>(number(m[2])),
                                 static_cast<unsigned>(number(m[3])));
    return day_bound(date::sys_days{ymd});
  }
  if (std::regex_match(s, m, kTime)) return time_ms(text, m, zone);
  not_a_date(text, "");
}

}  // namespace helix

// The stable JSON shapes of `sessions --json`, `show --json` and `status --json`
// (documented in docs/schema.md; fields are only ever added).
#pragma once

#include "store/store.hpp"

#include <boost/json.hpp>
#include <cstdint>
#include <string>

namespace helix {

std::string iso8601(int64_t unix_ms);  // "" for 0
// "2026-06-05", "2026-06-05T21:59:30Z" -> Unix ms; throws std::invalid_argument otherwise.
int64_t parse_date(const std::string& text);

boost::json::object session_json(const SessionRow& s);
boost::json::object event_json(const EventRow& e, bool with_bodies);
boost::json::object status_json(const StoreStatus& s, const std::string& store_file);

}  // namespace helix

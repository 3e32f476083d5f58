// The events a whole document gave before a complete new parse replaces them, so that the new
// parse keeps the seq of every event it repeats and the sweep can say what was added, replaced,
// removed or left as it was.
#pragma once

#include "model/payload_pack.hpp"
#include "model/records.hpp"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>

namespace helix {

class Database;

// What an event says (kind, role, tool, summary, time, model, parent, text and payload) as one
// 64-bit hash: equal when the event is unchanged.
uint64_t event_fingerprint(const EventRecord& e, std::string_view tool, std::string_view text,
                           std::string_view payload);

class PriorEvents {
 public:
  // An event's identity across parses: its session, its uid (or, without one, its offset) and
  // its ordinal.
  using Key = std::tuple<std::string, std::string, int64_t>;
  static Key key_of(const std::string& session_uid, const EventRecord& e);

  struct Prior {
    int64_t seq = 0;
    uint64_t fingerprint = 0;
    bool seen = false;  // the new parse has it again
  };

  // The visible events source `source_id` stored, read before its rows are deleted.
  static PriorEvents read(Database& db, int64_t source_id);

  // The prior event with this identity that the new parse has not claimed yet (nullptr: none);
  // it is claimed.
  Prior* claim(const Key& key);
  // Prior events the new parse did not have, by session uid.
  std::map<std::string, int64_t> unclaimed() const;

 private:
  std::map<Key, Prior> events_;
};

}  // namespace helix

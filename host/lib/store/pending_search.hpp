// An event stored in the open write batch whose text the search index has yet to take: the
// index is written once per batch, not per chunk.
#pragma once

#include <cstdint>
#include <string>

namespace helix {

struct PendingSearch {
  int64_t event_id = 0;
  std::string session_uid, kind, role, tool, text;
  bool shadow = false;
};

}  // namespace helix

// The order of a session's events: by time across the files that describe it, each file's own
// order kept (a subagent's transcript between its call and the call's result, Grok's runtime
// events between the messages they happened among).
#pragma once

#include <cstdint>
#include <string>

namespace helix {

class Database;

// Records an agent writes in one burst are stamped a few milliseconds apart in any order (a
// prompt after the attachments it carries): within this much of the latest time of its file, a
// record keeps its place in the file. One stamped earlier still (Grok writes a /compact prompt
// after the compaction it started) is placed by its stamp.
inline constexpr int64_t kBurstMs = 100;

// Renumbers the session's visible events (their seq, and the parent_seq that name them) so that
// they follow time: each event is placed at the latest time its own source reached by then (its
// own, or the one before it in that source when it has none or one less than 100 ms earlier: a
// burst keeps the order it was written in), ties and events of sources without a time keep their
// storage order. A function of the stored events and their storage order only, so ordering a
// session again gives the same numbers. Uses the session's existing seq numbers, so next_seq is
// unchanged; the saved digest states saw other numbers and are no longer resumed (covered_seq
// is cleared). Returns whether anything moved.
bool order_events_by_time(Database& db, const std::string& session_uid);

}  // namespace helix

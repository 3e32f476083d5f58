// Events ordered by time across sources (see event_order.hpp).
#include "store/event_order.hpp"

#include "store/database.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <vector>

namespace helix {
namespace {

struct StoredEvent {
  int64_t id = 0, seq = 0, parent_seq = -1, ts_ms = 0, source_id = 0;
  int64_t at = 0;  // the time it is ordered by
};

// In storage order (row id): each source's events in its file order, chunk after chunk.
std::vector<StoredEvent> visible_events(Database& db, const std::string& session_uid) {
  auto st = db.cached(
      "SELECT id, seq, parent_seq, ts_ms, source_id FROM events "
      "WHERE session_uid = ? AND shadowed = 0 ORDER BY id");
  st->bind(1, session_uid);
  std::vector<StoredEvent> events;
  while (st->step())
    events.push_back({st->integer(0), st->integer(1), st->is_null(2) ? -1 : st->integer(2),
                      st->is_null(3) ? 0 : st->integer(3), st->integer(4)});
  return events;
}

// Each event is placed at the latest time its source reached so far, unless its own stamp is
// further back than a burst. An event before its source's first time stays behind the event
// stored before it. Computed in storage order only, so the result does not depend on an earlier
// ordering of the session.
void assign_times(std::vector<StoredEvent>& events) {
  std::map<int64_t, int64_t> reached;  // by source
  int64_t previous = 0;
  for (auto& e : events) {
    int64_t& source = reached[e.source_id];
    const bool late = e.ts_ms > 0 && e.ts_ms < source - kBurstMs;
    if (e.ts_ms > source) source = e.ts_ms;
    e.at = late ? e.ts_ms : source > 0 ? source : previous;
    previous = e.at;
  }
}

}  // namespace

bool order_events_by_time(Database& db, const std::string& session_uid) {
  std::vector<StoredEvent> events = visible_events(db, session_uid);
  assign_times(events);
  std::vector<std::size_t> order(events.size());  // by time, then storage order
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return events[a].at < events[b].at; });
  std::vector<int64_t> seqs;  // the session's numbers, in their order
  seqs.reserve(events.size());
  for (const auto& e : events) seqs.push_back(e.seq);
  std::sort(seqs.begin(), seqs.end());
  std::map<int64_t, int64_t> renumbered;  // old seq -> new seq
  bool moved = false;
  for (std::size_t k = 0; k < order.size(); ++k) {
    renumbered[events[order[k]].seq] = seqs[k];
    moved = moved || events[order[k]].seq != seqs[k];
  }
  if (!moved) return false;
  // Negative numbers first: the unique (session, seq) index never sees two rows share a number.
  auto move = db.cached("UPDATE events SET seq = -1 - ?, parent_seq = ? WHERE id = ?");
  auto reparent = db.cached("UPDATE events SET parent_seq = ? WHERE id = ?");
  for (const auto& e : events) {
    const int64_t seq = renumbered.at(e.seq);
    auto parent = renumbered.find(e.parent_seq);
    const int64_t parent_seq = parent == renumbered.end() ? e.parent_seq : parent->second;
    if (seq == e.seq && parent_seq == e.parent_seq) continue;
    Statement& st = seq == e.seq ? *reparent : *move;
    int column = 1;
    if (seq != e.seq) st.bind(column++, seq);
    if (parent_seq >= 0)
      st.bind(column++, parent_seq);
    else
      st.bind_null(column++);
    st.bind(column, e.id).run();
  }
  auto settle = db.cached("UPDATE events SET seq = -1 - seq WHERE session_uid = ? AND seq < 0");
  settle->bind(1, session_uid).run();
  // A digest's saved state names the events it saw by seq: it is resumed no more.
  auto forget = db.cached("UPDATE digests SET covered_seq = NULL WHERE session_uid = ?");
  forget->bind(1, session_uid).run();
  return true;
}

}  // namespace helix

// The fleet's answers for one member: usage totals, sessions, full-text search and one session,
// over the configured team's rows that the database lets this login read (row-level security
// decides, not this client). The read API of `usage`, `sessions`, `search` and `show` with
// --fleet, and the one an MCP server answers from within the same scope.
#pragma once

#include "config/fleet_config.hpp"
#include "model/rows.hpp"
#include "store/digest_store.hpp"
#include "store/search_query.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace helix {

namespace pg {
class Connection;
}

// Where a fleet row came from.
struct FleetOrigin {
  std::string team, host_id, host_name, member;
};

struct FleetSession {
  SessionRow row;  // source_path is never pushed: always empty
  FleetOrigin origin;
  int64_t pushed_at_ms = 0, version = 0;
};

struct FleetUsageLine {
  UsageLine line;
  std::string host_name;  // --by host: the name of the host whose id is line.key
};

struct FleetHit {
  SearchHit hit;  // rank: -ts_rank, so lower is better as in local search
  FleetOrigin origin;
};

// One pushed session with its digests and its pushed events (text included; no raw record,
// file position or payload reference: those never leave the host).
struct FleetSessionDetail {
  FleetSession session;
  std::vector<DigestRow> digests;
  std::vector<EventRow> events;
};

class FleetReader {
 public:
  // Connects as [fleet] configures and checks the schema version; throws what to fix.
  explicit FleetReader(const FleetConfig& config);
  ~FleetReader();

  // Totals of the pushed usage ledger grouped by `by`: day, month, session, model, repo,
  // flavor, host or member; days from `since_day` (YYYY-MM-DD, "" = all), sessions of `flavor`
  // and of repository `repo` ("" = all). Throws std::invalid_argument for another `by`.
  std::vector<FleetUsageLine> usage(const std::string& by, const std::string& since_day,
                                    const std::string& flavor, const std::string& repo = "");

  // Pushed sessions as `filter` selects them (its flavor, repo, times, order and limit),
  // streamed one at a time.
  void for_each_session(const SessionFilter& filter,
                        const std::function<void(const FleetSession&)>& visit);

  // Best first: events' texts (of the kinds local search indexes) and the digests of sessions
  // whose events were not pushed. `query.match` is web-search syntax (words, "a phrase", OR,
  // -word); query.kind "digest" selects digests only.
  std::vector<FleetHit> search(const SearchQuery& query);

  // Every pushed copy of session `uid` (one per host that pushed it; only `host_id`'s when
  // given).
  std::vector<FleetSessionDetail> show(const std::string& uid, const std::string& host_id);

 private:
  FleetConfig config_;
  std::unique_ptr<pg::Connection> db_;
};

}  // namespace helix

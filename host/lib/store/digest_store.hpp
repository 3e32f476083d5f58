// Tier 2 in the store: digests per (session, digester), the per-day token table, and the reads
// the digest runner and the digest, env and usage commands need.
#pragma once

#include "pricing/price_book.hpp"
#include "store/store.hpp"

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace helix {

// What a digest's state has seen of its session's kept events (schema.cpp, version 9): the
// events up to `seq`, `events` of them visible, `untimed` of those without a time.
struct DigestCoverage {
  int64_t seq = 0, events = 0, untimed = 0;
};

struct DigestRow {
  std::string session_uid, digester, version, json;
  int64_t digested_at_ms = 0;
  std::string state;            // the digester's resumable state with this digest ("" = none)
  bool has_base_state = false;  // a state as of the last eviction is stored (candidates only)
  bool has_state = false;       // `state` is stored (candidates only)
  // Candidates: what the stored state has seen. Fresh rows: the highest seq the state has seen
  // (events and untimed are counted when the row is written).
  std::optional<DigestCoverage> covered;
};

// What decides whether a session needs digesting.
struct DigestCandidate {
  std::string uid;
  int64_t ingested_at_ms = 0;
  bool evicted = false;                      // its earlier raw events are gone
  std::map<std::string, DigestRow> digests;  // by digester name (json and state left empty)
};

// The sessions some configured digester may owe a digest, with what is known of their digests:
// those with records newer than their last analysis (an indexed lookup), those digested by
// another major version of a configured digester, and those a configured digester has no
// digest of. `majors` maps each configured digester to its major version. A no-op sweep reads
// indexes only.
std::vector<DigestCandidate> digest_candidates(Store& store,
                                               const std::map<std::string, std::string>& majors);

// The state the digester's digest of `uid` had when the session was last evicted.
std::optional<std::string> base_state(Store& store, const std::string& uid,
                                      const std::string& digester);

// The state stored with the digester's current digest of `uid`.
std::optional<std::string> saved_state(Store& store, const std::string& uid,
                                       const std::string& digester);

// The session's visible events at or below `seq` are still those a digest counted (none was
// deleted or gained a time since), so its state can be resumed with the events above `seq`.
bool coverage_intact(Store& store, const std::string& uid, const DigestCoverage& covered);

std::vector<StoredUsage> session_usage(Store& store, const std::string& uid);

std::optional<DigestRow> find_digest(Store& store, const std::string& uid,
                                     const std::string& digester);

// Prices sessions' usage with a price book: rebuilds a session's usage_days rows from its usage
// ledger (tokens, their cost at the book's prices, what the agent said they cost, the tokens
// no price covers) and the session row's totals, writing only what changed. Each model name is
// looked up once.
class UsagePricer {
 public:
  explicit UsagePricer(const PriceBook& book) : book_(book) {}
  const PriceBook& book() const { return book_; }
  const ModelPrice* find(const std::string& model);
  // True when a row of the session changed.
  bool price_session(Store& store, const std::string& uid);

 private:
  const PriceBook& book_;
  std::map<std::string, const ModelPrice*> found_;
};

// Replaces the session's digests by `fresh` (one per digester, with their states), rebuilds its
// usage_days rows from the usage ledger priced by `prices`, and sets analyzed_at, outcome and
// task_ref (from `primary`, the primary digester's digest, fresh or stored), all or nothing: a
// transaction of its own, or a savepoint in the caller's (the digest pass's batch). Inside the
// caller's transaction the digest rows are staged, and reach `digests` (and the search index, by
// trigger) when the caller runs flush_digests before it commits: FTS5 writes a new index segment at
// the end of every statement that changes it, which cost a sixth of the digest pass when each
// session's digests were a statement of their own.
void write_digests(Store& store, const std::string& uid, const std::vector<DigestRow>& fresh,
                   const std::optional<std::string>& primary_json, int64_t now_ms,
                   UsagePricer& prices);

// Moves the digests write_digests staged in this transaction into `digests`, in one statement.
void flush_digests(Database& db);

// The digest pass commits a batch of sessions at a time (a few hundred, or half a second's
// work): a COMMIT per session cost more than digesting a small grown session. A pass cut short
// loses at most one batch, which the next sweep digests again.
class DigestWriteBatch {
 public:
  explicit DigestWriteBatch(Store& store) : db_(store.database()) {}
  void open() {
    if (tx_) return;
    tx_.emplace(db_);
    opened_ = std::chrono::steady_clock::now();
    sessions_ = 0;
  }
  void session_written() {
    if (++sessions_ >= 256 || std::chrono::steady_clock::now() - opened_ > kMaxOpen)
      commit();
    else if (sessions_ % kStagedSessions == 0)
      flush_digests(db_);
  }
  void commit() {
    if (!tx_) return;
    struct Close {  // ends the batch however it ends: a failed flush or COMMIT rolls back
      std::optional<Transaction>& tx;
      ~Close() { tx.reset(); }
    } close{tx_};
    flush_digests(db_);  // the batch's digests and their search rows, in one statement
    tx_->commit();
  }

 private:
  static constexpr std::chrono::milliseconds kMaxOpen{500};
  // Staged digests (write_digests) are flushed this often within a batch: one index segment
  // per 32 sessions rather than per session, and the staging table's pages (held in memory)
  // stay at 32 sessions' digests, about 100 KB, rather than a whole batch's.
  static constexpr int kStagedSessions = 32;
  Database& db_;
  std::optional<Transaction> tx_;
  std::chrono::steady_clock::time_point opened_;
  int sessions_ = 0;
};

// Every digest of the session, by digester name (what export shows of an evicted session).
std::vector<DigestRow> session_digests(Store& store, const std::string& uid);

// Recomputes the usage_rollup rows of the days usage_days triggers marked stale, from
// usage_days, and clears the marks, all or nothing (within the caller's transaction, if any).
// The digest pass calls it at its end.
void refresh_usage_rollup(Store& store);

// Where usage_report reads: usage_rollup when it answers the grouping and no day is stale
// (the default), or usage_days itself always (what the rollup must agree with).
enum class UsageSource { rollup_when_current, usage_days };

// Token and cost totals of usage_days grouped by `by` (day, session, model, repo, flavor),
// for days from `since_day` to `until_day` (YYYY-MM-DD, inclusive, "" = open) and sessions of
// `flavor` ("" = all).
// Token sums are the same from either source; a cost may differ in floating-point rounding.
struct UsageLine {
  std::string key;
  int64_t input_tokens = 0, output_tokens = 0, cache_creation_tokens = 0, cache_read_tokens = 0,
          reasoning_tokens = 0, calls = 0;
  double cost_usd = 0;                   // at the price book's prices
  std::optional<double> agent_cost_usd;  // what the agents reported; none when none did
  int64_t unpriced_tokens = 0;           // tokens of calls the price book cannot price
  // Adds another line's figures (the key stays).
  UsageLine& operator+=(const UsageLine& l) {
    input_tokens += l.input_tokens;
    output_tokens += l.output_tokens;
    cache_creation_tokens += l.cache_creation_tokens;
    cache_read_tokens += l.cache_read_tokens;
    reasoning_tokens += l.reasoning_tokens;
    calls += l.calls;
    cost_usd += l.cost_usd;
    if (l.agent_cost_usd) agent_cost_usd = agent_cost_usd.value_or(0) + *l.agent_cost_usd;
    unpriced_tokens += l.unpriced_tokens;
    return *this;
  }
};
std::vector<UsageLine> usage_report(Store& store, const std::string& by,
                                    const std::string& since_day, const std::string& flavor,
                                    UsageSource source = UsageSource::rollup_when_current,
                                    const std::string& until_day = "");

// A model the price book has no price for, and the tokens of its calls (input, output, cache
// reads and writes) that no cost covers.
struct UnpricedModel {
  std::string model;  // "" when the records name none
  int64_t tokens = 0;
};

// The unpriced models of the days and flavor usage_report reads, most tokens first.
std::vector<UnpricedModel> unpriced_models(Store& store, const std::string& since_day,
                                           const std::string& flavor,
                                           const std::string& until_day = "");

// A session's cost on one day with one model (its usage_days row).
struct UsageDayCost {
  std::string day, model;
  double cost_usd = 0;
  std::optional<double> agent_cost_usd;
};
std::vector<UsageDayCost> session_usage_days(Store& store, const std::string& uid);

// The unpriced models of one session, most tokens first.
std::vector<UnpricedModel> session_unpriced_models(Store& store, const std::string& uid);

// usage_days summed per (day, model, flavor, repo), for days from `since_day` to `until_day`
// (YYYY-MM-DD, inclusive; "" = open): what reports group and filter further (by repository
// scope, by day and flavor) without a query per grouping.
struct UsageCell {
  std::string day, model, flavor, repo;
  UsageLine totals;  // key unused
};
std::vector<UsageCell> usage_cells(Store& store, const std::string& since_day,
                                   const std::string& until_day);

// The Tier 2 tables, for the status size measurement and for documentation.
inline constexpr const char* kTier2Tables[] = {"digests",
                                               "usage_days",
                                               "usage",
                                               "usage_rollup",
                                               "usage_rollup_stale",
                                               "digest_coverage",
                                               "digest_seen_records",
                                               "agent_costs",
                                               "imported_prices",
                                               "pricing_state"};

}  // namespace helix

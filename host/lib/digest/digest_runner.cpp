#include "digest/digest_runner.hpp"

#include "base/clock.hpp"
#include "base/semver.hpp"
#include "plugins/digester_instance.hpp"
#include "store/digest_seen.hpp"
#include "store/digest_store.hpp"
#include "store/price_store.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>

namespace helix {
namespace {

// What one digester does with one candidate session.
enum class Plan { skip, begin, resume_growth, resume_evicted, cannot_fold };

Plan plan_for(const DigestCandidate& c, const DigesterInstance& d) {
  const PluginInfo& plugin = d.plugin();
  auto it = c.digests.find(plugin.name);
  const bool have = it != c.digests.end();
  const bool same_major =
      have && major_version(it->second.version) == major_version(plugin.version);
  const bool grew = !have || it->second.digested_at_ms < c.ingested_at_ms;
  if (!c.evicted) {
    if (!grew && same_major) return Plan::skip;
    // A kept session that grew: the state this very version saved, and the new events.
    const bool resumable = have && it->second.version == plugin.version && it->second.has_state &&
                           it->second.covered && d.can_resume();
    return resumable ? Plan::resume_growth : Plan::begin;
  }
  // Evicted: the earlier events are gone, so only growth can be folded into the digest, from
  // the state saved at eviction, by the same major version.
  if (!have || !same_major || !grew) return Plan::skip;
  return d.can_resume() && it->second.has_base_state ? Plan::resume_evicted : Plan::cannot_fold;
}

// A started digester, and the seq after which it is streamed events (-1: all of them).
struct Running {
  const DigesterInstance* digester;
  int64_t after_seq = -1;
};

// The digesters due for one session, started (begin or resume) and ready for its events.
struct Started {
  std::vector<Running> running;
  std::vector<std::string> cannot_fold;  // digester names
  // Digesters that refused the state they saved (name, their message): given the whole session.
  std::vector<std::pair<std::string, std::string>> refused_state;
};

// Resumes a kept session's digest from its saved state when the events it saw are unchanged;
// otherwise (or when the digester refuses the state) begins it again from the first event.
Running resume_growth(Store& store, const DigestCandidate& c, const SessionRow& session,
                      const DigesterInstance& d, Started& started) {
  const DigestCoverage covered = *c.digests.at(d.plugin().name).covered;
  if (coverage_intact(store, c.uid, covered))
    if (auto state = saved_state(store, c.uid, d.plugin().name)) try {
        d.resume(session, *state);
        return {&d, covered.seq};
      } catch (const std::exception& e) {
        started.refused_state.emplace_back(d.plugin().name, e.what());
      }
  d.begin(session);
  return {&d, -1};
}

Started start_session(Store& store, const DigestCandidate& c, const SessionRow& session,
                      const std::vector<std::unique_ptr<DigesterInstance>>& digesters,
                      DigestReport& report) {
  Started out;
  for (const auto& d : digesters) {
    switch (plan_for(c, *d)) {
      case Plan::skip:
        break;
      case Plan::cannot_fold:
        out.cannot_fold.push_back(d->plugin().name);
        break;
      case Plan::begin:
        d->begin(session);
        out.running.push_back({d.get()});
        break;
      case Plan::resume_growth:
        out.running.push_back(resume_growth(store, c, session, *d, out));
        break;
      case Plan::resume_evicted:
        try {
          d->resume(session, base_state(store, c.uid, d->plugin().name).value_or(""));
          out.running.push_back({d.get()});
        } catch (const std::exception& e) {
          report.problems.push_back(e.what());
        }
        break;
    }
  }
  return out;
}

// Streams the session's events and usage to the started digesters and collects their digests;
// `primary_json` receives the primary digester's. An evicted session's events that its base
// state already holds (at covered offsets, or copies of records it saw) are skipped; a resumed
// kept session's digester is streamed only the events after those its state saw.
std::vector<DigestRow> digest_session(Store& store, const DigestCandidate& candidate,
                                      const SessionRow& session,
                                      const std::vector<Running>& running,
                                      const std::string& primary,
                                      std::optional<std::string>& primary_json,
                                      DigestReport& report) {
  std::vector<DigestRow> fresh;
  if (running.empty()) return fresh;
  const std::vector<uint64_t> seen =
      candidate.evicted ? seen_records(store, candidate.uid) : std::vector<uint64_t>{};
  int64_t from = running.front().after_seq, last_seq = -1;
  for (const Running& r : running) from = std::min(from, r.after_seq);
  store.for_each_event(
      candidate.uid, EventFilter{candidate.evicted, from}, [&](const EventView& e) {
        last_seq = e.seq;
        if (!e.uid.empty() &&
            std::binary_search(seen.begin(), seen.end(), seen_record_key(e.uid, e.ordinal)))
          return;
        for (const Running& r : running)
          if (e.seq > r.after_seq) r.digester->event(session, e);
      });
  for (const auto& u : session_usage(store, candidate.uid))
    for (const Running& r : running) r.digester->usage(session, u);
  for (const Running& r : running) {
    try {
      DigestOutput out = r.digester->end(session);
      DigestRow row;
      row.digester = r.digester->plugin().name;
      row.version = r.digester->plugin().version;
      row.json = std::move(out.json);
      row.state = std::move(out.state);
      if (!candidate.evicted) row.covered = DigestCoverage{std::max(r.after_seq, last_seq)};
      if (row.digester == primary) primary_json = row.json;
      fresh.push_back(std::move(row));
    } catch (const std::exception& e) {
      report.problems.push_back(e.what());
    }
  }
  return fresh;
}

// The digester plugins of `[digest] digesters`, created with their settings; each one that
// cannot be is a problem of the report.
std::vector<std::unique_ptr<DigesterInstance>> load_digesters(const PluginRegistry& plugins,
                                                              const Config& config,
                                                              DigestReport& report) {
  std::vector<std::unique_ptr<DigesterInstance>> digesters;
  for (const auto& name : config.digesters) {
    const PluginInfo* plugin = plugins.find(name);
    if (!plugin || !plugin->digester) {
      report.problems.push_back(fmt::format(
          "digester '{}' is configured ([digest] digesters) but no digester plugin of that name "
          "is loaded; its digests are not updated",
          name));
      continue;
    }
    auto settings = config.digester_settings.find(name);
    try {
      digesters.push_back(std::make_unique<DigesterInstance>(
          *plugin, settings == config.digester_settings.end() ? "{}" : settings->second));
    } catch (const std::exception& e) {
      report.problems.push_back(e.what());
    }
  }
  return digesters;
}

// One pass of every digester over the sessions due, written in batches.
class DigestPass {
 public:
  DigestPass(Store& store, std::vector<std::unique_ptr<DigesterInstance>> digesters,
             std::string primary, const PriceBook& book, DigestReport& report)
      : store_(store),
        digesters_(std::move(digesters)),
        primary_(std::move(primary)),
        pricer_(book),
        batch_(store),
        report_(report) {}

  std::map<std::string, std::string> majors() const {
    std::map<std::string, std::string> out;
    for (const auto& d : digesters_) out[d->plugin().name] = major_version(d->plugin().version);
    return out;
  }

  void run(const std::vector<DigestCandidate>& candidates) {
    for (const auto& candidate : candidates) {
      try {
        batch_.open();
        digest(candidate);
      } catch (...) {
        batch_.commit();  // keep the sessions digested before the one that failed
        throw;
      }
    }
    batch_.commit();
    report_skipped();
  }

 private:
  void digest(const DigestCandidate& candidate) {
    auto session = store_.session(candidate.uid);
    if (!session) return;
    Started started = start_session(store_, candidate, *session, digesters_, report_);
    for (const auto& name : started.cannot_fold) ++cannot_fold_[name];
    for (const auto& [name, why] : started.refused_state)
      if (++refused_[name].first == 1) refused_[name].second = why;
    std::optional<std::string> primary_json;
    const std::vector<DigestRow> fresh = digest_session(
        store_, candidate, *session, started.running, primary_, primary_json, report_);
    // A session whose events are kept is tried again by the next sweep, its usage totalled
    // and priced now all the same (the host's, whatever the digesters do). The growth of an
    // evicted one that no digester folded is not: its digests stay as they are, its usage is
    // totalled, and it counts as analyzed until new records arrive (docs/digest.md).
    if (fresh.empty() && !candidate.evicted) {
      pricer_.price_session(store_, candidate.uid);
      batch_.session_written();
      return;
    }
    if (!primary_json && !primary_.empty())
      if (auto stored = find_digest(store_, candidate.uid, primary_)) primary_json = stored->json;
    write_digests(store_, candidate.uid, fresh, primary_json, now_ms(), pricer_);
    batch_.session_written();
    if (!fresh.empty()) count(started, fresh);
  }

  void count(const Started& started, const std::vector<DigestRow>& fresh) {
    ++report_.sessions_digested;
    if (std::any_of(started.running.begin(), started.running.end(),
                    [](const Running& r) { return r.after_seq >= 0; }))
      ++report_.sessions_resumed;
    for (const auto& row : fresh) ++report_.by_digester[row.digester];
  }

  // One problem per digester for the sessions it could not fold or whose state it refused.
  void report_skipped() {
    for (const auto& [name, n] : cannot_fold_)
      report_.problems.push_back(fmt::format(
          "digester '{}' cannot fold the growth of {} session(s) whose raw data was evicted (it "
          "does not resume, or the store kept no state for it); their previous digests are kept "
          "and they are not tried again until new records arrive",
          name, n));
    for (const auto& [name, r] : refused_)
      report_.problems.push_back(fmt::format(
          "digester '{}' refused the state it saved for {} grown session(s), which were digested "
          "again from their first event (the first refusal: {})",
          name, r.first, r.second));
  }

  Store& store_;
  std::vector<std::unique_ptr<DigesterInstance>> digesters_;
  std::string primary_;
  UsagePricer pricer_;
  DigestWriteBatch batch_;
  DigestReport& report_;
  std::map<std::string, int64_t> cannot_fold_;  // digester -> grown evicted sessions
  std::map<std::string, std::pair<int64_t, std::string>> refused_;  // -> sessions, first reason
};

}  // namespace

std::string primary_digester(const Config& config) {
  return config.digesters.empty() ? std::string() : config.digesters.front();
}

DigestReport run_digests(Store& store, const PluginRegistry& plugins, const Config& config) {
  const auto start = std::chrono::steady_clock::now();
  DigestReport report;
  auto digesters = load_digesters(plugins, config, report);
  // Costs are the host's: priced again first if the price book changed since they were.
  const PriceBook book = effective_price_book(store);
  report.repriced_sessions = price_with(store, book, now_ms());
  DigestPass pass(store, std::move(digesters), primary_digester(config), book, report);
  pass.run(digest_candidates(store, pass.majors()));
  refresh_usage_rollup(store);  // the days whose usage_days the pass changed
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace helix

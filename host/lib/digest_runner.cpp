#include "digest_runner.hpp"

#include "clock.hpp"
#include "digest_instance.hpp"
#include "digest_seen.hpp"
#include "digest_store.hpp"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <memory>

namespace helix {
namespace {

// What one digester does with one candidate session.
enum class Plan { skip, begin, resume, cannot_fold };

Plan plan_for(const DigestCandidate& c, const DigesterInstance& d) {
  const PluginInfo& plugin = d.plugin();
  auto it = c.digests.find(plugin.name);
  const bool have = it != c.digests.end();
  const bool same_major =
      have && major_version(it->second.version) == major_version(plugin.version);
  const bool grew = !have || it->second.digested_at_ms < c.ingested_at_ms;
  if (!c.evicted) return grew || !same_major ? Plan::begin : Plan::skip;
  // Evicted: the earlier events are gone, so only growth can be folded into the digest, from
  // the state saved at eviction, by the same major version.
  if (!have || !same_major || !grew) return Plan::skip;
  return d.can_resume() && it->second.has_base_state ? Plan::resume : Plan::cannot_fold;
}

// The digesters due for one session, started (begin or resume) and ready for its events.
struct Started {
  std::vector<const DigesterInstance*> running;
  std::vector<std::string> cannot_fold;  // digester names
};

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
        out.running.push_back(d.get());
        break;
      case Plan::resume:
        try {
          d->resume(session, base_state(store, c.uid, d->plugin().name).value_or(""));
          out.running.push_back(d.get());
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
// state already holds (at covered offsets, or copies of records it saw) are skipped.
std::vector<DigestRow> digest_session(Store& store, const DigestCandidate& candidate,
                                      const SessionRow& session,
                                      const std::vector<const DigesterInstance*>& running,
                                      const std::string& primary,
                                      std::optional<std::string>& primary_json,
                                      DigestReport& report) {
  std::vector<DigestRow> fresh;
  if (running.empty()) return fresh;
  const std::vector<uint64_t> seen = candidate.evicted
                                         ? seen_records(store.database(), candidate.uid)
                                         : std::vector<uint64_t>{};
  store.for_each_event(candidate.uid, EventFilter{candidate.evicted}, [&](const EventView& e) {
    if (!e.uid.empty() &&
        std::binary_search(seen.begin(), seen.end(), seen_record_key(e.uid, e.ordinal)))
      return;
    for (const DigesterInstance* d : running) d->event(session, e);
  });
  for (const auto& u : session_usage(store, candidate.uid))
    for (const DigesterInstance* d : running) d->usage(session, u);
  for (const DigesterInstance* d : running) {
    try {
      DigestOutput out = d->end(session);
      DigestRow row;
      row.digester = d->plugin().name;
      row.version = d->plugin().version;
      row.json = std::move(out.json);
      row.state = std::move(out.state);
      if (row.digester == primary) primary_json = row.json;
      fresh.push_back(std::move(row));
    } catch (const std::exception& e) {
      report.problems.push_back(e.what());
    }
  }
  return fresh;
}

}  // namespace

std::string primary_digester(const Config& config) {
  return config.digesters.empty() ? std::string() : config.digesters.front();
}

DigestReport run_digests(Store& store, const PluginRegistry& plugins, const Config& config) {
  const auto start = std::chrono::steady_clock::now();
  DigestReport report;
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
  const std::string primary = primary_digester(config);
  std::map<std::string, std::string> majors;
  for (const auto& d : digesters) majors[d->plugin().name] = major_version(d->plugin().version);
  std::map<std::string, int64_t> cannot_fold;  // digester -> grown evicted sessions
  for (const auto& candidate : digest_candidates(store, majors)) {
    auto session = store.session(candidate.uid);
    if (!session) continue;
    Started started = start_session(store, candidate, *session, digesters, report);
    for (const auto& name : started.cannot_fold) ++cannot_fold[name];
    std::optional<std::string> primary_json;
    const std::vector<DigestRow> fresh =
        digest_session(store, candidate, *session, started.running, primary, primary_json, report);
    // A session whose events are kept is tried again by the next sweep. The growth of an evicted
    // one that no digester folded is not: its digests stay as they are, its usage is totalled,
    // and it counts as analyzed until new records arrive (docs/digest.md).
    if (fresh.empty() && !candidate.evicted) continue;
    if (!primary_json && !primary.empty())
      if (auto stored = find_digest(store, candidate.uid, primary)) primary_json = stored->json;
    write_digests(store, candidate.uid, fresh, primary_json, now_ms());
    if (fresh.empty()) continue;
    ++report.sessions_digested;
    for (const auto& row : fresh) ++report.by_digester[row.digester];
  }
  for (const auto& [name, n] : cannot_fold)
    report.problems.push_back(fmt::format(
        "digester '{}' cannot fold the growth of {} session(s) whose raw data was evicted (it "
        "does not resume, or the store kept no state for it); their previous digests are kept and "
        "they are not tried again until new records arrive",
        name, n));
  refresh_usage_rollup(store.database());  // the days whose usage_days the pass changed
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace helix

#include "digest_runner.hpp"

#include "digest_instance.hpp"
#include "digest_store.hpp"

#include <chrono>
#include <fmt/format.h>
#include <memory>

namespace helix {
namespace {

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool stale(const DigestCandidate& c, const PluginInfo& plugin) {
  auto it = c.digests.find(plugin.name);
  if (it == c.digests.end()) return true;
  return it->second.digested_at_ms < c.ingested_at_ms ||
         major_version(it->second.version) != major_version(plugin.version);
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
  for (const auto& candidate : digest_candidates(store)) {
    if (!candidate.has_tier1_rows) continue;  // raw data gone: the stored digest is all there is
    std::vector<const DigesterInstance*> due;
    for (const auto& d : digesters)
      if (stale(candidate, d->plugin())) due.push_back(d.get());
    if (due.empty()) continue;
    auto session = store.session(candidate.uid);
    if (!session) continue;
    const auto events = store.events(candidate.uid, /*with_bodies=*/true);
    const auto usage = session_usage(store, candidate.uid);
    std::vector<DigestRow> fresh;
    std::optional<std::string> primary_json;
    for (const DigesterInstance* d : due) {
      try {
        DigestRow row;
        row.digester = d->plugin().name;
        row.version = d->plugin().version;
        row.json = d->digest(*session, events, usage);
        if (row.digester == primary) primary_json = row.json;
        fresh.push_back(std::move(row));
      } catch (const std::exception& e) {
        report.problems.push_back(e.what());
      }
    }
    if (fresh.empty()) continue;
    if (!primary_json && !primary.empty())
      if (auto stored = find_digest(store, candidate.uid, primary)) primary_json = stored->json;
    write_digests(store, candidate.uid, fresh, primary_json, now_ms());
    ++report.sessions_digested;
    for (const auto& row : fresh) ++report.by_digester[row.digester];
  }
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace helix

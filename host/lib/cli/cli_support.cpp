#include "cli/cli_support.hpp"
#include "cli/terminal.hpp"

#include "base/clock.hpp"
#include "base/suggest.hpp"
#include "cli/table.hpp"
#include "ingest/repo_resolver.hpp"
#include "recall/session_json.hpp"
#include "store/catalog.hpp"

#include <fmt/format.h>
#include <iostream>

namespace helix {
namespace po = boost::program_options;

namespace {
// First-party flavors: valid filter values even before any of their sessions is stored.
const std::vector<std::string> kKnownFlavors = {"claude", "codex", "grok", "gemini"};
constexpr int64_t kCandidatesShown = 10;

std::string option(const po::variables_map& vm, const char* name) {
  return vm.count(name) ? vm[name].as<std::string>() : std::string();
}
}  // namespace

std::string human_bytes(int64_t n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{} B", n) : fmt::format("{:.1f} {}", v, units[u]);
}

void load_plugins(PluginRegistry& registry, const Globals& g, const Config& config) {
  const auto& dirs = g.plugin_dirs.empty() ? config.plugin_dirs : g.plugin_dirs;
  for (const auto& dir : dirs) registry.load_directory(dir);
}

void print_refusals(const PluginRegistry& registry) {
  for (const auto& r : registry.refused())
    print_message(fmt::format("plugin {} refused: {}", r.path.string(), r.reason));
}

void load_adapter_plugins(PluginRegistry& registry, const Globals& g, const Config& config) {
  load_plugins(registry, g, config);
  print_refusals(registry);
  if (registry.adapters().empty())
    throw UsageError("no adapter plugins loaded; pass --plugins DIR or set [plugins] dirs");
}

Config load_configuration(const Globals& g) { return load_config(g.config_file); }

std::filesystem::path store_file(const Globals& g, const Config& config) {
  return resolve_store_file(g.store_dir, config.store_dir);
}

Store open_store_for_reading(const Globals& g, const Config& config) {
  const auto file = store_file(g, config);
  std::error_code ec;
  if (!std::filesystem::exists(file, ec))
    throw NotFound(fmt::format("no store at {} yet; run 'helix-host sweep' first", file.string()));
  return Store(file, /*read_only=*/true);
}

boost::json::value parse_stored_digest(const DigestRow& digest) {
  boost::system::error_code ec;
  boost::json::value doc = boost::json::parse(digest.json, ec);
  if (ec)
    throw std::runtime_error(fmt::format(
        "the digest of session {} by '{}' (table digests) is not valid JSON ({}); the store is "
        "damaged there: restore it from a backup, or delete that row so that a sweep digests "
        "the session again while its raw data is stored",
        digest.session_uid, digest.digester, ec.message()));
  return doc;
}

SessionRow resolve_session(Store& store, const std::string& ref) {
  if (ref.empty()) throw NotFound("no session '' (an empty id names none)");
  const auto uids = sessions_matching(store, ref, kCandidatesShown + 1);
  if (uids.empty())
    throw NotFound(fmt::format(
        "no session {} in the store (give flavor:id, the agent's own id or a unique prefix of "
        "either; 'helix-host sessions' lists them)",
        ref));
  if (uids.size() == 1) return *store.session(uids.front());
  std::string list;
  for (std::size_t i = 0; i < uids.size() && i < kCandidatesShown; ++i) {
    const auto s = store.session(uids[i]);
    list += fmt::format("\n  {}  {}  {}  {}", uids[i],
                        s->started_at_ms > 0 ? iso8601(s->started_at_ms).substr(0, 10) : "-",
                        s->repo.empty() ? "-" : s->repo, fit_width(s->title, 50));
  }
  if (uids.size() > kCandidatesShown) list += "\n  …";
  throw UsageError(
      fmt::format("'{}' matches more than one session; give more of its id:{}", ref, list));
}

SessionRow required_session(Store& store, const po::variables_map& vm, const char* command) {
  if (!vm.count("id"))
    throw UsageError(fmt::format("{} needs a session id (see 'helix-host sessions')", command));
  return resolve_session(store, vm["id"].as<std::string>());
}

ShortIds::ShortIds(Store& store) : uids_(all_session_uids(store)) {}

std::string ShortIds::operator()(const std::string& uid) const {
  constexpr std::size_t kMinIdChars = 8;
  const auto colon = uid.find(':');
  std::size_t needed = (colon == std::string::npos ? 0 : colon + 1) + kMinIdChars;
  auto common = [&](const std::string& other) {
    std::size_t n = 0;
    while (n < uid.size() && n < other.size() && uid[n] == other[n]) ++n;
    return n;
  };
  auto at = std::lower_bound(uids_.begin(), uids_.end(), uid);
  if (at != uids_.end() && *at == uid) {
    if (at != uids_.begin()) needed = std::max(needed, common(*(at - 1)) + 1);
    if (at + 1 != uids_.end()) needed = std::max(needed, common(*(at + 1)) + 1);
  }
  return uid.substr(0, std::min(needed, uid.size()));
}

TimeRange time_range(const po::variables_map& vm, const TimeZone& zone) {
  TimeRange r;
  try {
    if (vm.count("since"))
      r.since_ms = parse_when(option(vm, "since"), Bound::since, zone, now_ms());
    if (vm.count("until"))
      r.until_ms = parse_when(option(vm, "until"), Bound::until, zone, now_ms());
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (r.since_ms > r.until_ms)
    throw UsageError(
        fmt::format("--since {} is after --until {}", option(vm, "since"), option(vm, "until")));
  return r;
}

std::string checked_flavor(Store& store, const po::variables_map& vm) {
  std::string flavor = option(vm, "flavor");
  if (flavor.empty()) return flavor;
  std::vector<std::string> valid = stored_flavors(store);
  for (const auto& f : kKnownFlavors)
    if (std::find(valid.begin(), valid.end(), f) == valid.end()) valid.push_back(f);
  if (std::find(valid.begin(), valid.end(), flavor) != valid.end()) return flavor;
  throw UsageError(fmt::format("--flavor must be {}, not '{}'{}", one_of(valid), flavor,
                               did_you_mean(flavor, valid)));
}

std::optional<int64_t> limit_option(const po::variables_map& vm) {
  if (!vm.count("limit")) return std::nullopt;
  const auto limit = vm["limit"].as<int64_t>();
  if (limit < 1) throw UsageError("--limit must be at least 1");
  return limit;
}

std::string repo_option(const po::variables_map& vm) {
  const std::string repo = option(vm, "repo");
  return repo == "." ? RepoResolver().repo_for(std::filesystem::current_path().string()) : repo;
}

void reject_with_fleet(const po::variables_map& vm, std::initializer_list<const char*> options) {
  for (const char* name : options)
    if (vm.count(name) && !vm[name].defaulted())
      throw UsageError(fmt::format(
          "--{} cannot be used with --fleet (the fleet database does not answer it)", name));
}

std::string checked_repo(Store& store, const po::variables_map& vm) {
  std::string repo = repo_option(vm);
  if (repo.empty()) return repo;
  const auto repos = stored_repos(store);
  if (std::find(repos.begin(), repos.end(), repo) != repos.end()) return repo;
  std::string hint = did_you_mean(repo, repos);
  if (hint.empty())  // "proj" for "my-proj": the repositories that contain it
    for (const auto& r : repos)
      if (r.find(repo) != std::string::npos) {
        hint = fmt::format(" (did you mean '{}'?)", r);
        break;
      }
  throw UsageError(fmt::format("no session of repository '{}' in the store{}{}", repo, hint,
                               repos.empty() ? "" : "; 'helix-host usage --by repo' lists them"));
}

}  // namespace helix

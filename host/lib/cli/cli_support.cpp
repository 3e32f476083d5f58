#include "cli/cli_support.hpp"

#include "store/store.hpp"

#include <fmt/format.h>
#include <iostream>

namespace helix {
namespace po = boost::program_options;

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

po::variables_map parse_command(const std::vector<std::string>& args,
                                const po::options_description& options,
                                const po::positional_options_description& positional) {
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
  po::notify(vm);
  return vm;
}

void load_plugins(PluginRegistry& registry, const Globals& g, const Config& config) {
  const auto& dirs = g.plugin_dirs.empty() ? config.plugin_dirs : g.plugin_dirs;
  for (const auto& dir : dirs) registry.load_directory(dir);
}

void print_refusals(const PluginRegistry& registry) {
  for (const auto& r : registry.refused())
    std::cerr << fmt::format("helix-host: plugin {} refused: {}\n", r.path.string(), r.reason);
}

std::filesystem::path store_file(const Globals& g, const Config& config) {
  return resolve_store_file(g.store_dir, config.store_dir);
}

std::string required_uid(const po::variables_map& vm, const char* command) {
  if (!vm.count("uid"))
    throw UsageError(fmt::format("{} needs a session uid (see 'helix-host sessions')", command));
  return vm["uid"].as<std::string>();
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

std::optional<SessionRow> find_session_or_report(Store& store, const std::string& uid) {
  auto session = store.session(uid);
  if (!session && uid.empty())
    std::cerr << "helix-host: no session: the session uid is empty (see 'helix-host sessions')\n";
  else if (!session)
    std::cerr << fmt::format("helix-host: no session {} in the store\n", uid);
  return session;
}

}  // namespace helix

#include "conformance/plugin_check.hpp"

#include "conformance/adapter_checks.hpp"
#include "conformance/check_report.hpp"
#include "conformance/digester_checks.hpp"
#include "plugins/plugin_registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <regex>

namespace helix {
namespace {

namespace fs = std::filesystem;

bool semantic_version(const char* v) {
  static const std::regex pattern(R"(\d+\.\d+\.\d+([-+][0-9A-Za-z.+-]*)?)");
  return v && std::regex_match(v, pattern);
}

std::vector<std::string> words(const char* const* list) {
  std::vector<std::string> out;
  for (auto p = list; p && *p; ++p) out.emplace_back(*p);
  return out;
}

void extensions(const PluginInfo& p, CheckReport& report);

// The descriptor, the table and the extensions, as the loader read them.
void check_declaration(const PluginInfo& p, CheckReport& report) {
  report.section(fmt::format("plugin {} {} ({}), {}", p.name, p.version, p.kind, p.path.string()));
  const uint32_t table = p.adapter ? p.adapter->struct_size : p.digester->struct_size;
  const std::size_t first =
      p.adapter ? HELIX_ADAPTER_VTABLE_SIZE_1_0 : HELIX_DIGESTER_VTABLE_SIZE_1_1;
  const std::size_t now = p.adapter ? sizeof(helix_adapter_vtable) : sizeof(helix_digester_vtable);
  report.pass(
      "descriptor and sizes",
      fmt::format("loaded by the host's loader; needs ABI {}.{} (this host: {}.{}); table "
                  "{} bytes (first version {}, this ABI {})",
                  p.abi_major, p.abi_minor, HELIX_ABI_MAJOR, HELIX_ABI_MINOR, table, first, now));
  report.check(semantic_version(p.version.c_str()), "version", p.version + " is a semantic version",
               "'" + p.version + "' is not a semantic version (x.y.z); the host compares majors");
  if (!p.adapter) return;
  std::string problem;
  for (auto pattern = p.adapter->patterns; pattern->glob && problem.empty(); ++pattern)
    if (pattern->layout != HELIX_LAYOUT_LINES && pattern->layout != HELIX_LAYOUT_DOCUMENT)
      problem = fmt::format("pattern {} has layout {}, neither LINES (1) nor DOCUMENT (2)",
                            pattern->glob, pattern->layout);
  if (problem.empty() && !p.adapter->root_env &&
      !(p.adapter->default_roots && *p.adapter->default_roots))
    problem = "neither a root variable nor a default root: the host finds no sources";
  report.check(problem.empty(), "sources", fmt::format("flavor {}", p.adapter->flavor), problem);
  extensions(p, report);
}

void extensions(const PluginInfo& p, CheckReport& report) {
  std::vector<std::string> offered, problems;
  if (p.resume) {
    const auto argv = words(p.resume->argv);
    offered.push_back(argv.empty()
                          ? "helix.resume/1 (refuses)"
                          : "helix.resume/1 (" + fmt::format("{}", fmt::join(argv, " ")) + ")");
    if (!argv.empty() && std::none_of(argv.begin(), argv.end(), [](const auto& w) {
          return w.find("{session_id}") != std::string::npos;
        }))
      problems.push_back("the resume command names no {session_id}");
    if (argv.empty() && !p.resume->refusal) problems.push_back("a resume refusal without reason");
  }
  if (p.hook) {
    offered.push_back("helix.hook/1");
    if (words(p.hook->session_id_keys).empty())
      problems.push_back("the hook declaration names no session id key");
  }
  if (!p.reparse_below.empty()) {
    offered.push_back("helix.reparse/1 (below " + p.reparse_below + ")");
    if (!semantic_version(p.reparse_below.c_str()))
      problems.push_back("reparse_below '" + p.reparse_below + "' is not a semantic version");
  }
  report.check(problems.empty(), "extensions",
               offered.empty() ? "none" : fmt::format("{}", fmt::join(offered, ", ")),
               fmt::format("{}", fmt::join(problems, "; ")));
}

// The sample files: each file given (explicit), and the files under each directory given whose
// names match one of the plugin's patterns, in name order.
std::vector<std::pair<fs::path, bool>> sample_files(const PluginInfo& plugin,
                                                    const std::vector<fs::path>& given) {
  std::vector<std::pair<fs::path, bool>> out;
  for (const auto& path : given) {
    if (!fs::is_directory(path)) {
      out.emplace_back(path, true);
      continue;
    }
    std::vector<fs::path> found;
    for (const auto& entry : fs::recursive_directory_iterator(path))
      if (entry.is_regular_file() && matches_a_pattern(plugin, entry.path()))
        found.push_back(entry.path());
    std::sort(found.begin(), found.end());
    for (auto& f : found) out.emplace_back(std::move(f), false);
  }
  return out;
}

}  // namespace

int run_plugin_check(const PluginCheckOptions& options, std::ostream& out) {
  out << fmt::format("helix-plugin-check (Helix plugin ABI {}.{}): {}\n", HELIX_ABI_MAJOR,
                     HELIX_ABI_MINOR, options.plugin.string());
  PluginRegistry registry;
  registry.load_plugin_file(options.plugin);
  CheckReport report(out);
  if (registry.loaded().empty()) {
    for (const auto& r : registry.refused()) report.fail("load", r.reason);
    if (registry.refused().empty()) report.fail("load", "nothing was loaded");
    report.finish();
    return 2;
  }
  const PluginInfo& plugin = registry.loaded().front();
  check_declaration(plugin, report);
  if (plugin.digester) {
    check_digester(plugin, options, report);
    return report.finish();
  }
  const auto samples = sample_files(plugin, options.samples);
  if (samples.empty()) {
    report.fail("samples", "an adapter is checked over sample files: pass --sample FILE|DIR");
    report.finish();
    return 2;
  }
  for (const auto& [sample, explicit_sample] : samples) {
    if (!fs::is_regular_file(sample)) {
      report.fail("sample", sample.string() + " is not a readable file");
      continue;
    }
    check_adapter_sample(plugin, options, sample, explicit_sample, report);
  }
  return report.finish();
}

}  // namespace helix

// helix-plugin-check: the conformance kit of the Helix SDK (docs/sdk.md, section 9).
#include "conformance/plugin_check.hpp"

#include <boost/program_options.hpp>

#include <iostream>

namespace po = boost::program_options;

int main(int argc, char** argv) {
  helix::PluginCheckOptions options;
  po::options_description opts(
      "usage: helix-plugin-check [options] PLUGIN.so\n"
      "Loads PLUGIN.so through helix-host's loader and checks it over sample files; prints one\n"
      "PASS or FAIL line per check and exits 0 when every check passed, 1 when one failed, 2\n"
      "when the plugin could not be checked.\n\noptions");
  std::vector<std::string> samples;
  std::string plugin;
  opts.add_options()("help,h", "this help")(
      "sample,s", po::value(&samples)->composing(),
      "a sample file the adapter reads, or a directory of them (repeatable)")(
      "config", po::value(&options.config_json)->default_value("{}"),
      "the plugin's configuration section, as a JSON object")(
      "seed", po::value(&options.seed)->default_value(1), "seed of the random cuts and damage")(
      "rounds", po::value(&options.rounds)->default_value(20),
      "random cuttings and growth sequences per sample")(
      "min-mb-per-s", po::value(&options.min_mb_per_s)->default_value(1.0),
      "slower parsing fails the speed check")("timeout",
                                              po::value(&options.timeout_s)->default_value(10),
                                              "seconds after which one parse call counts as hung");
  po::options_description hidden;
  hidden.add_options()("plugin", po::value(&plugin));
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("plugin", 1);
  try {
    po::variables_map vm;
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
    if (vm.count("help")) {
      std::cout << opts << "\n";
      return 0;
    }
    if (plugin.empty()) throw po::error("name the plugin file to check");
  } catch (const po::error& e) {
    std::cerr << "helix-plugin-check: " << e.what() << "\n" << opts << "\n";
    return 2;
  }
  options.plugin = plugin;
  for (const auto& s : samples) options.samples.emplace_back(s);
  return helix::run_plugin_check(options, std::cout);
}

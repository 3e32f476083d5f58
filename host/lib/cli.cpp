#include "cli.hpp"

#include "plugin_registry.hpp"

#include <fmt/format.h>
#include <iostream>

namespace helix {

int run_cli(int argc, char** argv) {
  PluginRegistry registry;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--plugins") registry.load_directory(argv[i + 1]);
  for (const auto& p : registry.loaded())
    std::cout << fmt::format("{}\t{}\t{}\t{}.{}\t{}\n", p.name, p.kind, p.version, p.abi_major,
                             p.abi_minor, p.path.string());
  for (const auto& r : registry.refused())
    std::cout << fmt::format("refused\t{}\t{}\n", r.path.string(), r.reason);
  return kExitOk;
}

}  // namespace helix

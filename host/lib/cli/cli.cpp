#include "cli/cli.hpp"
#include "cli/exit_codes.hpp"
#include "cli/terminal.hpp"

#include "base/suggest.hpp"
#include "cli/cli_support.hpp"
#include "cli/commands.hpp"
#include "config/config.hpp"
#include "store/store.hpp"

#include <fmt/format.h>
#include <helix/helix_plugin.h>
#include <boost/program_options.hpp>
#include <iostream>

namespace helix {
namespace po = boost::program_options;

namespace {

// Prints the message of an error that ends the command, and returns its exit code.
int report(std::string_view message, int code) {
  print_message(message);
  return code;
}

std::string version_text() {
  return fmt::format("helix-host {}\nplugin ABI {}.{} (SDK {})\n", HELIX_VERSION, HELIX_ABI_MAJOR,
                     HELIX_ABI_MINOR, HELIX_VERSION);
}

// Splits the command line: the global options (anywhere) and the command with its arguments.
struct CommandLine {
  Globals globals;
  std::string command;
  std::vector<std::string> args;
  bool help = false, version = false;
  std::string generate;  // the build's man page and completions
};

CommandLine split(int argc, char** argv) {
  po::options_description hidden;
  hidden.add_options()("command", po::value<std::string>())(
      "args", po::value<std::vector<std::string>>())("generate", po::value<std::string>());
  po::options_description all;
  all.add(global_options()).add(hidden);
  po::positional_options_description positional;
  positional.add("command", 1).add("args", -1);
  // Stop at the command for options that only it knows: "--" and everything after it belong
  // to the command as well.
  auto parsed = po::command_line_parser(argc, argv)
                    .options(all)
                    .positional(positional)
                    .allow_unregistered()
                    .run();
  po::variables_map vm;
  po::store(parsed, vm);
  po::notify(vm);
  CommandLine c;
  c.help = vm.count("help") > 0;
  c.version = vm.count("version") > 0;
  if (vm.count("generate")) c.generate = vm["generate"].as<std::string>();
  Globals& g = c.globals;
  if (vm.count("plugins")) g.plugin_dirs = vm["plugins"].as<std::vector<std::string>>();
  if (vm.count("config")) g.config_file = vm["config"].as<std::string>();
  if (vm.count("store")) g.store_dir = vm["store"].as<std::string>();
  if (vm.count("timezone")) g.timezone = vm["timezone"].as<std::string>();
  const std::string color = vm["color"].as<std::string>();
  const auto colors = global_choices().at("color");
  if (std::find(colors.begin(), colors.end(), color) == colors.end())
    throw UsageError(fmt::format("--color must be {}, not '{}'{}", one_of(colors), color,
                                 did_you_mean(color, colors)));
  g.style = decide_output_style(color, vm.count("no-pager") > 0);
  if (vm.count("command")) {
    c.command = vm["command"].as<std::string>();
    c.args = po::collect_unrecognized(parsed.options, po::include_positional);
    c.args.erase(c.args.begin());  // the command itself
  } else {                         // options only: an unknown one is a mistake
    auto rest = po::collect_unrecognized(parsed.options, po::exclude_positional);
    if (!rest.empty()) {
      std::vector<std::string> names;
      for (const auto& o : global_options().options()) names.push_back("--" + o->long_name());
      throw UsageError(
          fmt::format("unknown option '{}'{}", rest.front(), did_you_mean(rest.front(), names)));
    }
  }
  return c;
}

int run(const CommandLine& c) {
  if (c.version) {
    std::cout << version_text();
    return kExitOk;
  }
  if (!c.generate.empty()) {
    std::cout << generated_file(c.generate);
    return kExitOk;
  }
  if (c.command.empty()) {
    std::cout << overview_help();
    return c.help ? kExitOk : kExitUsage;
  }
  const CommandSpec* spec = find_command(c.command);
  if (!spec)
    throw UsageError(fmt::format("unknown command '{}'{}; 'helix-host --help' lists them",
                                 c.command, did_you_mean(c.command, command_names())));
  if (c.help) {
    std::cout << command_help(*spec);
    return kExitOk;
  }
  return spec->run(c.globals, c.args);
}

int run_guarded(int argc, char** argv) {
  try {
    return run(split(argc, argv));
  } catch (const HelpShown&) {
    return kExitOk;
  } catch (const po::error& e) {
    return report(fmt::format("{} (see helix-host --help)", e.what()), kExitUsage);
  } catch (const UsageError& e) {
    return report(e.what(), kExitUsage);
  } catch (const ConfigError& e) {
    return report(e.what(), kExitConfig);
  } catch (const NotFound& e) {
    return report(e.what(), kExitNotFound);
  } catch (const StoreLocked& e) {
    return report(fmt::format("{}; try again later", e.what()), kExitBusy);
  } catch (const std::exception& e) {
    return report(e.what(), kExitFailure);
  }
}

}  // namespace

int run_cli(int argc, char** argv) {
  const int code = run_guarded(argc, argv);
  finish_pager();
  return code;
}

}  // namespace helix

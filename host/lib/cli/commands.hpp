// The helix-host commands as data: each one's usage, summary, options and examples. Per-command
// help, "did you mean", choice checks, the man page and the shell completions all come from it.
#pragma once

#include "cli/cli_support.hpp"

#include <boost/program_options.hpp>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace helix {

// What one command accepts: its options, its operands and the values some options allow.
struct CommandOptions {
  boost::program_options::options_description options{"options"};
  boost::program_options::positional_options_description positional;
  // option name -> its only valid values: checked by parse_command and offered by completions.
  std::map<std::string, std::vector<std::string>> choices;
};

struct CommandSpec {
  std::string_view name, operands, summary;
  std::vector<std::string_view> examples;  // shell lines, at least two
  void (*describe)(CommandOptions&);
  int (*run)(const Globals&, const std::vector<std::string>&);
};

// Every command, in the order `helix-host --help` lists them.
const std::vector<CommandSpec>& commands();
const CommandSpec* find_command(std::string_view name);
std::vector<std::string> command_names();

// The global options (valid before or after the command).
boost::program_options::options_description global_options();
// Choices of the global options (e.g. --color).
std::map<std::string, std::vector<std::string>> global_choices();

// Thrown after `CMD --help` printed the command's help: the command exits 0 at once.
struct HelpShown {};

// Parses the arguments of command `name` with its description. --help prints the command's
// help and throws HelpShown; an unknown option or an invalid choice is a UsageError naming the
// closest valid one.
boost::program_options::variables_map parse_command(std::string_view name,
                                                    const std::vector<std::string>& args);

// The help of one command: usage line, summary, options, examples.
std::string command_help(const CommandSpec& spec);
// The overview `helix-host --help` prints.
std::string overview_help();

// A file the build generates from these descriptions: "man" (helix-host.1), "bash", "zsh" or
// "fish" (completions). A UsageError for another name.
std::string generated_file(std::string_view kind);

}  // namespace helix

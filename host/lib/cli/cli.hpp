// The helix-host command line: global options and subcommands (exit codes: exit_codes.hpp).
#pragma once

namespace helix {

int run_cli(int argc, char** argv);

}  // namespace helix

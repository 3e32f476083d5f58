// helix-host: the command-line entry point. All behaviour lives in the modules of host/lib
// (cli/cli.hpp).
#include "cli/cli.hpp"

int main(int argc, char** argv) { return helix::run_cli(argc, argv); }

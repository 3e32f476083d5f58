// helix-host: the command-line entry point. All behaviour lives in helix_core (cli.hpp).
#include "cli.hpp"

int main(int argc, char** argv) { return helix::run_cli(argc, argv); }

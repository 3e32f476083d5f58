// A file of the store module must not see the command line, a module above it: this include
// fails to compile, which is what the module_rules_forbidden_include test expects.
#include "cli/exit_codes.hpp"
#include "store/store.hpp"

int module_probe_forbidden() { return helix::kExitOk; }

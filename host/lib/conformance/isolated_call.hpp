// Runs one call of a plugin in a child process with a time limit, so that helix-plugin-check
// reports a crash or a hang on one input and goes on with the next.
#pragma once

#include <functional>
#include <string>

namespace helix {

// "" when `call` returned (whatever it threw is the plugin's answer, not a fault), else what
// happened: "crashed with signal 11 (Segmentation fault)", "hung: no return within 10 s", ...
std::string run_isolated(const std::function<void()>& call, double timeout_s);

}  // namespace helix

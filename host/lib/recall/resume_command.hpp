// The agent's own command that resumes a stored session, as G2 resumes an archived session by
// name: `claude --resume <id>`, `codex resume <id>`, `grok -r <id>`, run in the session's cwd.
#pragma once

#include <string>
#include <vector>

#include "store/store.hpp"

namespace helix {

struct ResumePlan {
  bool possible = false;
  std::vector<std::string> argv;   // the agent's command, when possible
  std::string cwd;                 // where to run it
  std::string reason;              // why not, when not possible
  std::string shell_line() const;  // "cd '<cwd>' && claude --resume <id>", shell-quoted
};

// `adapter` is the plugin that claimed the session's source; `source_exists` whether that file
// (or directory) is still on disk; `cwd_exists` whether the working directory is.
ResumePlan plan_resume(const SessionRow& session, const std::string& adapter, bool source_exists,
                       bool cwd_exists);

// Quotes one word for a POSIX shell (only when it needs it).
std::string shell_quote(const std::string& word);

}  // namespace helix

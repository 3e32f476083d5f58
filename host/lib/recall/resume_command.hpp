// The agent's own command that resumes a stored session, as G2 resumes an archived session by
// name: `claude --resume <id>`, `codex resume <id>`, `grok -r <id>`, run in the session's cwd.
#pragma once

#include <boost/json.hpp>
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

// The plan for a stored session as things are now: which adapter claimed its transcript, and
// whether the transcript and the working directory are still on disk.
ResumePlan plan_resume(Store& store, const SessionRow& session);

// {session_uid, possible, command, argv, cwd, reason}: `resume --json` and the MCP tool.
boost::json::object resume_json(const std::string& uid, const ResumePlan& plan);

// Quotes one word for a POSIX shell (only when it needs it).
std::string shell_quote(const std::string& word);

}  // namespace helix

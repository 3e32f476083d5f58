// The agent's own command that resumes a stored session, as G2 resumes an archived session by
// name: `claude --resume <id>`, `codex resume <id>`, `grok -r <id>`, run in the session's cwd.
// Each adapter plugin declares its agent's command (helix.resume/1); nothing here is per flavor.
#pragma once

#include <boost/json.hpp>
#include <functional>
#include <optional>
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

// How an agent resumes its sessions, as the adapter that read them declares it.
struct ResumeRecipe {
  std::string agent;              // the agent's name for messages, e.g. "Claude Code"
  std::vector<std::string> argv;  // "{session_id}" in a word becomes the native id; empty: none
  std::string refusal;            // why the adapter's sessions cannot be resumed (argv empty)
  bool in_cwd = false;            // run in the session's cwd, which must be known and exist
  bool not_subagents = false;     // a subagent session is not resumed on its own
};

// `recipe` is what the adapter that claimed the session's source declares (nullopt: it declares
// nothing, or it is not loaded); `source_exists` whether that file (or directory) is still on
// disk; `cwd_exists` whether the working directory is.
ResumePlan plan_resume(const SessionRow& session, const std::optional<ResumeRecipe>& recipe,
                       bool source_exists, bool cwd_exists);

// The plan for a stored session as things are now: which adapter claimed its transcript, and
// whether the transcript and the working directory are still on disk.
// `recipe_of` names the resume recipe the adapter of that name declares (nullopt: none).
using ResumeRecipeOf = std::function<std::optional<ResumeRecipe>(const std::string& adapter)>;
ResumePlan plan_resume(Store& store, const SessionRow& session, const ResumeRecipeOf& recipe_of);

// {session_uid, possible, command, argv, cwd, reason}: `resume --json` and the MCP tool.
boost::json::object resume_json(const std::string& uid, const ResumePlan& plan);

// Quotes one word for a POSIX shell (only when it needs it).
std::string shell_quote(const std::string& word);

}  // namespace helix

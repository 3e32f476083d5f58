// Decisions put to the user: Claude's AskUserQuestion tool calls and the gstack "decision
// briefs" Codex agents write as prose (gstack-codex-session-spike.md), with their answers.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace session_digest {

struct Decision {
  std::string source;  // "ask_user_question" or "decision_brief"
  std::string id;      // the brief's D-number or <gstack-qid:...> marker; "" for tool calls
  std::string question, recommendation;
  std::vector<std::string> options;
  std::optional<std::string> answer;  // nullopt: no answer recorded
  int64_t ts_ms = 0;
};

// The questions of an AskUserQuestion call, from its input JSON ({"questions": [{"question",
// "header", "options": [{"label", ...}], ...}]}); empty when it is not that shape.
std::vector<Decision> ask_user_questions(std::string_view input_json);

// The answers in an AskUserQuestion result text, which Claude Code writes as
// `User has answered your questions: "<question>"="<answer>", "<q2>"="<a2>". You can now ...`.
std::map<std::string, std::string> ask_user_answers(std::string_view result_text);

// A decision brief in an agent message: a `<gstack-qid:...>` marker, or a `D<n> — <title>`
// line with at least two `A) ...` option lines; `Recommendation: ...` when present.
std::optional<Decision> decision_brief(std::string_view message);

}  // namespace session_digest

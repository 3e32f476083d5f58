// Resume plans from the commands adapters declare (see resume_command.hpp); the first-party
// commands and their sources are in docs/operations.md.
#include "recall/resume_command.hpp"

#include <fmt/format.h>

#include <filesystem>

namespace helix {
namespace {

ResumePlan refuse(std::string reason) {
  ResumePlan p;
  p.reason = std::move(reason);
  return p;
}

}  // namespace

std::string shell_quote(const std::string& word) {
  if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789-_./:=@%+,") == std::string::npos)
    return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string ResumePlan::shell_line() const {
  std::string line;
  for (const auto& word : argv) line += (line.empty() ? "" : " ") + shell_quote(word);
  return cwd.empty() ? line : fmt::format("cd {} && {}", shell_quote(cwd), line);
}

ResumePlan plan_resume(const SessionRow& s, const std::optional<ResumeRecipe>& recipe,
                       bool source_exists, bool cwd_exists) {
  if (!recipe)
    return refuse(
        fmt::format("helix-host does not know how {} resumes a session (its adapter "
                    "plugin declares no resume command)",
                    s.flavor));
  if (recipe->argv.empty())
    return refuse(fmt::format(
        "{}: {}", s.uid, recipe->refusal.empty() ? "its agent cannot resume it" : recipe->refusal));
  if (recipe->not_subagents && !s.parent_uid.empty())
    return refuse(
        fmt::format("{} is a subagent conversation, which {} does not resume on its "
                    "own; resume its parent {}",
                    s.uid, recipe->agent, s.parent_uid));
  std::vector<std::string> argv;
  for (std::string word : recipe->argv) {
    for (auto at = word.find("{session_id}"); at != std::string::npos;
         at = word.find("{session_id}", at + s.native_id.size()))
      word.replace(at, std::string_view("{session_id}").size(), s.native_id);
    argv.push_back(std::move(word));
  }
  if (!source_exists)
    return refuse(
        fmt::format("the transcript of {} is no longer on disk ({}), so {} cannot "
                    "resume it",
                    s.uid, s.source_path, argv.front()));
  if (recipe->in_cwd && s.cwd.empty())
    return refuse(
        fmt::format("the working directory of {} is not known; {} resumes sessions "
                    "per directory",
                    s.uid, argv.front()));
  if (recipe->in_cwd && !cwd_exists)
    return refuse(fmt::format("the working directory of {} ({}) no longer exists", s.uid, s.cwd));
  ResumePlan p;
  p.possible = true;
  p.argv = std::move(argv);
  if (recipe->in_cwd) p.cwd = s.cwd;
  return p;
}

ResumePlan plan_resume(Store& store, const SessionRow& session, const ResumeRecipeOf& recipe_of) {
  std::error_code ec;
  const auto source = store.find_source(session.source_path);
  const bool source_exists =
      !session.source_path.empty() && std::filesystem::exists(session.source_path, ec);
  const bool cwd_exists = !session.cwd.empty() && std::filesystem::is_directory(session.cwd, ec);
  return plan_resume(session, source ? recipe_of(source->adapter) : std::nullopt, source_exists,
                     cwd_exists);
}

boost::json::object resume_json(const std::string& uid, const ResumePlan& plan) {
  boost::json::array argv;
  for (const auto& a : plan.argv) argv.emplace_back(a);
  auto if_possible = [&](const std::string& text) {
    return plan.possible ? boost::json::value(text) : boost::json::value(nullptr);
  };
  return {
      {"session_uid", uid},
      {"possible", plan.possible},
      {"command", if_possible(plan.shell_line())},
      {"argv", std::move(argv)},
      {"cwd", if_possible(plan.cwd)},
      {"reason", plan.possible ? boost::json::value(nullptr) : boost::json::value(plan.reason)}};
}

}  // namespace helix

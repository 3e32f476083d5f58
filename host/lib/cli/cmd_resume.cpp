// helix-host resume: prints the agent's own command that resumes a stored session.
#include <fmt/format.h>

#include <boost/json.hpp>
#include <iostream>

#include "cli/cmd_recall.hpp"
#include "cli/exit_codes.hpp"
#include "recall/resume_command.hpp"
#include "store/store.hpp"

namespace helix {
namespace po = boost::program_options;

int cmd_resume(const Globals& g, const std::vector<std::string>& args) {
  po::options_description opts("resume options");
  opts.add_options()("uid", po::value<std::string>(), "session uid")(
      "json", "JSON object: possible, command, argv, cwd, reason");
  po::positional_options_description pos;
  pos.add("uid", 1);
  auto vm = parse_command(args, opts, pos);
  const std::string uid = required_uid(vm, "resume");
  Config config = load_config(g.config_file);
  Store store(store_file(g, config), /*read_only=*/true);
  auto session = find_session_or_report(store, uid);
  if (!session) return kExitNotFound;
  const ResumePlan plan = plan_resume(store, *session);
  if (vm.count("json")) {
    std::cout << boost::json::serialize(resume_json(uid, plan)) << "\n";
  } else if (plan.possible) {
    std::cout << plan.shell_line() << "\n";
  } else {
    std::cerr << fmt::format("helix-host: cannot resume: {}\n", plan.reason);
  }
  return plan.possible ? kExitOk : kExitCannotResume;
}

}  // namespace helix

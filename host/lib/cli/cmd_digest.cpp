#include "cli/cmd_digest.hpp"

#include "cli/exit_codes.hpp"
#include "digest/digest_runner.hpp"
#include "recall/session_json.hpp"
#include "store/digest_store.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>
#include <filesystem>
#include <iostream>

namespace helix {
namespace po = boost::program_options;

namespace {

// The session's digest from `digester`, or the primary one; prints why when there is none.
std::optional<DigestRow> lookup(const Globals& g, const Config& config, const std::string& uid,
                                const std::string& digester, std::filesystem::path* db_file) {
  *db_file = std::filesystem::absolute(store_file(g, config));
  Store store(*db_file, /*read_only=*/true);
  const std::string name = digester.empty() ? primary_digester(config) : digester;
  auto row = find_digest(store, uid, name);
  if (!row)
    std::cerr << fmt::format(
        "helix-host: no digest of {} by '{}' in the store (is the session "
        "there, and has a sweep digested it?)\n",
        uid, name);
  return row;
}

po::variables_map uid_command(const std::string& name, const std::vector<std::string>& args,
                              po::options_description& opts) {
  opts.add_options()("uid", po::value<std::string>(), "session uid")(
      "digester", po::value<std::string>(), "whose digest (default: the primary digester)");
  po::positional_options_description pos;
  pos.add("uid", 1);
  auto vm = parse_command(args, opts, pos);
  if (!vm.count("uid"))
    throw UsageError(fmt::format("{} needs a session uid (see 'helix-host sessions')", name));
  return vm;
}

std::string option(const po::variables_map& vm, const char* name) {
  return vm.count(name) ? vm[name].as<std::string>() : std::string();
}

// 'text' for a POSIX shell, inside single quotes.
std::string shell_quote(std::string_view text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The infra bucket of §11.1: MCP tools and agent plumbing (planning, task lists, tool search),
// i.e. calls that move no project work forward by themselves.
bool infra_tool(std::string_view tool) {
  static const std::string_view kPlumbing[] = {"TodoWrite",
                                               "TodoRead",
                                               "ToolSearch",
                                               "ListMcpResourcesTool",
                                               "ReadMcpResourceTool",
                                               "update_plan",
                                               "TaskCreate",
                                               "TaskUpdate",
                                               "TaskList",
                                               "TaskGet",
                                               "EnterPlanMode",
                                               "ExitPlanMode"};
  if (tool.starts_with("mcp__") || tool.starts_with("mcp_")) return true;
  for (auto p : kPlumbing)
    if (tool == p) return true;
  return false;
}

int64_t integer_at(const boost::json::object& o, const char* key) {
  auto* v = o.if_contains(key);
  return v && v->is_number() ? v->to_number<int64_t>() : 0;
}

}  // namespace

int cmd_digest(const Globals& g, const std::vector<std::string>& args) {
  po::options_description opts("digest options");
  opts.add_options()("json", "the digest as JSON");
  auto vm = uid_command("digest", args, opts);
  Config config = load_config(g.config_file);
  std::filesystem::path db_file;
  auto row = lookup(g, config, option(vm, "uid"), option(vm, "digester"), &db_file);
  if (!row) return kExitNotFound;
  if (vm.count("json")) {
    std::cout << row->json << "\n";
    return kExitOk;
  }
  const auto doc = boost::json::parse(row->json).as_object();
  std::cout << fmt::format("{}  digested {} by {} {}\n", row->session_uid,
                           iso8601(row->digested_at_ms), row->digester, row->version);
  for (const auto& [key, value] : doc) {
    if (key == "session_uid") continue;
    std::cout << fmt::format(
        "  {}: {}\n", std::string_view(key),
        value.is_string() ? std::string(value.get_string()) : boost::json::serialize(value));
  }
  return kExitOk;
}

int cmd_env(const Globals& g, const std::vector<std::string>& args) {
  po::options_description opts("env options");
  auto vm = uid_command("env", args, opts);
  Config config = load_config(g.config_file);
  std::filesystem::path db_file;
  auto row = lookup(g, config, option(vm, "uid"), option(vm, "digester"), &db_file);
  if (!row) return kExitNotFound;
  const auto doc = boost::json::parse(row->json).as_object();
  auto text = [&](const char* key) {
    auto* v = doc.if_contains(key);
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
  };
  int64_t tokens = 0;
  if (auto* cost = doc.if_contains("cost"); cost && cost->is_object())
    tokens = integer_at(cost->get_object(), "input_tokens") +
             integer_at(cost->get_object(), "output_tokens");
  int64_t calls = 0, infra = 0;
  if (auto* tools = doc.if_contains("tool_histogram"); tools && tools->is_object())
    for (const auto& [tool, n] : tools->get_object()) {
      const int64_t count = n.is_number() ? n.to_number<int64_t>() : 0;
      calls += count;
      if (infra_tool(tool)) infra += count;
    }
  const double share = calls > 0 ? static_cast<double>(infra) / static_cast<double>(calls) : 0;
  std::cout << fmt::format("export HELIX_SESSION_UID={}\n", shell_quote(row->session_uid))
            << fmt::format("export HELIX_REPO={}\n", shell_quote(text("repo")))
            << fmt::format("export HELIX_FLAVOR={}\n", shell_quote(text("flavor")))
            << fmt::format("export HELIX_TOKENS={}\n", tokens)
            << fmt::format("export HELIX_INFRA_OVERHEAD_SHARE={:.3f}\n", share)
            << fmt::format("export HELIX_STORE_DB={}\n", shell_quote(db_file.string()));
  return kExitOk;
}

int cmd_usage(const Globals& g, const std::vector<std::string>& args) {
  po::options_description opts("usage options");
  opts.add_options()("by", po::value<std::string>()->default_value("day"),
                     "group by day, session, model, repo or flavor")(
      "since", po::value<std::string>(), "only days from DATE (YYYY-MM-DD)")(
      "flavor", po::value<std::string>(), "only sessions of this flavor")("json", "JSON");
  auto vm = parse_command(args, opts);
  const std::string by = vm["by"].as<std::string>();
  std::string since;
  if (vm.count("since")) {
    try {
      since = iso8601(parse_date(vm["since"].as<std::string>())).substr(0, 10);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  Config config = load_config(g.config_file);
  Store store(store_file(g, config), /*read_only=*/true);
  std::vector<UsageLine> lines;
  try {
    lines = usage_report(store, by, since, option(vm, "flavor"));
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  UsageLine total;
  for (const auto& l : lines) total += l;
  auto fields = [](const UsageLine& l) {
    return boost::json::object{{"input_tokens", l.input_tokens},
                               {"output_tokens", l.output_tokens},
                               {"cache_creation_tokens", l.cache_creation_tokens},
                               {"cache_read_tokens", l.cache_read_tokens},
                               {"reasoning_tokens", l.reasoning_tokens},
                               {"cost_usd", l.cost_usd}};
  };
  if (vm.count("json")) {
    boost::json::array rows;
    for (const auto& l : lines) {
      auto row = fields(l);
      row[by] = l.key;
      rows.push_back(std::move(row));
    }
    std::cout << boost::json::serialize(
                     boost::json::object{{"totals", fields(total)}, {"rows", std::move(rows)}})
              << "\n";
    return kExitOk;
  }
  const auto line = [](std::string_view key, const UsageLine& l) {
    return fmt::format("{:<48} {:>12} {:>10} {:>12} {:>14} {:>10} {:>10.2f}\n", key, l.input_tokens,
                       l.output_tokens, l.cache_creation_tokens, l.cache_read_tokens,
                       l.reasoning_tokens, l.cost_usd);
  };
  std::cout << fmt::format("{:<48} {:>12} {:>10} {:>12} {:>14} {:>10} {:>10}\n", by, "INPUT",
                           "OUTPUT", "CACHE WRITE", "CACHE READ", "REASONING", "COST USD");
  for (const auto& l : lines) std::cout << line(l.key.empty() ? "(none)" : l.key, l);
  std::cout << line("total", total);
  return kExitOk;
}

void print_digest_step(const DigestReport& r, bool quiet) {
  if (!quiet) {
    std::cout << fmt::format("  digested {} sessions in {:.2f} s", r.sessions_digested, r.seconds);
    for (const auto& [name, n] : r.by_digester) std::cout << fmt::format(" ({} {})", name, n);
    if (r.sessions_resumed > 0)
      std::cout << fmt::format(", {} grown sessions resumed from their saved state",
                               r.sessions_resumed);
    std::cout << "\n";
  }
  for (const auto& p : r.problems) std::cerr << "helix-host: " << p << "\n";
}

}  // namespace helix

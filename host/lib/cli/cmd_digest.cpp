#include "cli/cmd_digest.hpp"

#include "cli/cost_notes.hpp"
#include "cli/exit_codes.hpp"
#include "digest/digest_runner.hpp"
#include "fleet/fleet_reader.hpp"
#include "recall/session_json.hpp"
#include "store/digest_store.hpp"
#include "store/price_store.hpp"

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

// The host's cost of the session, put where a digest reports cost (cost.cost_usd,
// cost.unpriced_models, cost.prices_as_of, usage_by_day[].cost_usd, as the default digester's
// digest has them), with what the agent said it cost beside it: the digest shows the price
// book's current figures. A digest without a `cost` object is shown as its digester wrote it.
void put_host_cost(boost::json::object& doc, Store& store, const SessionRow& session,
                   const std::vector<UnpricedModel>& unpriced, const PriceBook& book) {
  auto* cost = doc.if_contains("cost");
  if (!cost || !cost->is_object()) return;
  auto& c = cost->get_object();
  c["cost_usd"] = session.cost_usd.value_or(0);
  c["agent_cost_usd"] = session.agent_cost_usd ? boost::json::value(*session.agent_cost_usd)
                                               : boost::json::value(nullptr);
  c["prices_as_of"] = book.source();
  boost::json::array names;
  for (const auto& u : unpriced) names.push_back(boost::json::value(u.model));
  c["unpriced_models"] = std::move(names);
  c["unpriced"] = unpriced_json(unpriced);
  auto* by_day = doc.if_contains("usage_by_day");
  if (!by_day || !by_day->is_array()) return;
  std::map<std::pair<std::string, std::string>, UsageDayCost> days;
  for (const auto& d : session_usage_days(store, session.uid)) days[{d.day, d.model}] = d;
  for (auto& v : by_day->get_array()) {
    auto* row = v.if_object();
    if (!row) continue;
    const auto* day = row->if_contains("day");
    const auto* model = row->if_contains("model");
    if (!day || !day->is_string() || !model || !model->is_string()) continue;
    auto it = days.find({std::string(day->get_string()), std::string(model->get_string())});
    if (it == days.end()) continue;
    (*row)["cost_usd"] = it->second.cost_usd;
    (*row)["agent_cost_usd"] = it->second.agent_cost_usd
                                   ? boost::json::value(*it->second.agent_cost_usd)
                                   : boost::json::value(nullptr);
  }
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
  Store store(db_file, /*read_only=*/true);
  auto session = store.session(row->session_uid);
  auto doc = parse_stored_digest(*row);
  std::vector<UnpricedModel> unpriced;
  if (session && doc.is_object()) {
    unpriced = session_unpriced_models(store, session->uid);
    const PriceBook book = effective_price_book(store);
    put_host_cost(doc.get_object(), store, *session, unpriced, book);
    warn_if_costs_stale(store, book);
  }
  warn_unpriced(unpriced);
  if (vm.count("json")) {
    std::cout << boost::json::serialize(doc) << "\n";
    return kExitOk;
  }
  std::cout << fmt::format("{}  digested {} by {} {}\n", row->session_uid,
                           iso8601(row->digested_at_ms), row->digester, row->version);
  if (!doc.is_object()) return kExitOk;
  for (const auto& [key, value] : doc.get_object()) {
    if (key == "session_uid") continue;
    std::cout << fmt::format(
        "  {}: {}\n", std::string_view(key),
        value.is_string() ? std::string(value.get_string()) : boost::json::serialize(value));
  }
  return kExitOk;
}

// Every field from the session's own row (the host's), none from a digest: swapping
// digesters never changes them.
int cmd_env(const Globals& g, const std::vector<std::string>& args) {
  po::options_description opts("env options");
  auto vm = uid_command("env", args, opts);
  Config config = load_config(g.config_file);
  const auto db_file = std::filesystem::absolute(store_file(g, config));
  Store store(db_file, /*read_only=*/true);
  auto session = find_session_or_report(store, option(vm, "uid"));
  if (!session) return kExitNotFound;
  const int64_t tokens = session->usage.input_tokens + session->usage.output_tokens;
  const double share = session->tool_calls > 0 ? static_cast<double>(session->infra_tool_calls) /
                                                     static_cast<double>(session->tool_calls)
                                               : 0;
  std::cout << fmt::format("export HELIX_SESSION_UID={}\n", shell_quote(session->uid))
            << fmt::format("export HELIX_REPO={}\n", shell_quote(session->repo))
            << fmt::format("export HELIX_FLAVOR={}\n", shell_quote(session->flavor))
            << fmt::format("export HELIX_TOKENS={}\n", tokens)
            << fmt::format("export HELIX_INFRA_OVERHEAD_SHARE={:.3f}\n", share)
            << fmt::format("export HELIX_STORE_DB={}\n", shell_quote(db_file.string()));
  return kExitOk;
}

int cmd_usage(const Globals& g, const std::vector<std::string>& args) {
  po::options_description opts("usage options");
  opts.add_options()("by", po::value<std::string>()->default_value("day"),
                     "group by day, session, model, repo or flavor (--fleet: also month, host, "
                     "member)")("since", po::value<std::string>(),
                                "only days from DATE (YYYY-MM-DD)")(
      "flavor", po::value<std::string>(), "only sessions of this flavor")("json", "JSON")(
      "fleet", "the team's totals, from the fleet database");
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
  std::vector<UsageLine> lines;
  std::map<std::string, std::string> host_names;  // --fleet --by host: host id -> name
  std::optional<Store> store;                     // the local store (not read with --fleet)
  try {
    if (vm.count("fleet")) {
      for (auto& f : FleetReader(config.fleet).usage(by, since, option(vm, "flavor"))) {
        if (by == "host") host_names[f.line.key] = f.host_name;
        lines.push_back(std::move(f.line));
      }
    } else {
      store.emplace(store_file(g, config), /*read_only=*/true);
      lines = usage_report(*store, by, since, option(vm, "flavor"));
    }
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  // The price notes are the local store's; fleet costs were computed on each host.
  std::vector<UnpricedModel> unpriced;
  boost::json::value prices = nullptr;
  if (store) {
    unpriced = unpriced_models(*store, since, option(vm, "flavor"));
    const PriceBook book = effective_price_book(*store);
    warn_if_costs_stale(*store, book);
    warn_unpriced(unpriced);
    prices = boost::json::value(book.source());
  }
  UsageLine total;
  for (const auto& l : lines) total += l;
  auto fields = [](const UsageLine& l) {
    return boost::json::object{
        {"input_tokens", l.input_tokens},
        {"output_tokens", l.output_tokens},
        {"cache_creation_tokens", l.cache_creation_tokens},
        {"cache_read_tokens", l.cache_read_tokens},
        {"reasoning_tokens", l.reasoning_tokens},
        {"cost_usd", l.cost_usd},
        {"agent_cost_usd",
         l.agent_cost_usd ? boost::json::value(*l.agent_cost_usd) : boost::json::value(nullptr)},
        {"unpriced_tokens", l.unpriced_tokens}};
  };
  if (vm.count("json")) {
    boost::json::array rows;
    for (const auto& l : lines) {
      auto row = fields(l);
      row[by] = l.key;
      if (by == "host" && vm.count("fleet")) row["host_name"] = host_names[l.key];
      rows.push_back(std::move(row));
    }
    std::cout << boost::json::serialize(
                     boost::json::object{{"totals", fields(total)},
                                         {"rows", std::move(rows)},
                                         {"unpriced_models", unpriced_json(unpriced)},
                                         {"prices", prices}})
              << "\n";
    return kExitOk;
  }
  const auto line = [](std::string_view key, const UsageLine& l) {
    return fmt::format("{:<48} {:>12} {:>10} {:>12} {:>14} {:>10} {:>10.2f} {:>10}\n", key,
                       l.input_tokens, l.output_tokens, l.cache_creation_tokens,
                       l.cache_read_tokens, l.reasoning_tokens, l.cost_usd,
                       l.agent_cost_usd ? fmt::format("{:.2f}", *l.agent_cost_usd) : "-");
  };
  std::cout << fmt::format("{:<48} {:>12} {:>10} {:>12} {:>14} {:>10} {:>10} {:>10}\n", by, "INPUT",
                           "OUTPUT", "CACHE WRITE", "CACHE READ", "REASONING", "COST USD",
                           "AGENT USD");
  for (const auto& l : lines) {
    std::string key = l.key.empty() ? "(none)" : l.key;
    if (by == "host" && vm.count("fleet")) key = fmt::format("{} ({})", host_names[l.key], l.key);
    std::cout << line(key, l);
  }
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
    if (r.repriced_sessions > 0)
      std::cout << fmt::format(", the costs of {} sessions priced again with a new price book",
                               r.repriced_sessions);
    std::cout << "\n";
  }
  for (const auto& p : r.problems) std::cerr << "helix-host: " << p << "\n";
}

}  // namespace helix

#include "cli/cmd_digest.hpp"
#include "cli/terminal.hpp"

#include "base/json_text.hpp"
#include "cli/cmd_sessions.hpp"
#include "cli/commands.hpp"
#include "cli/cost_notes.hpp"
#include "cli/exit_codes.hpp"
#include "digest/digest_runner.hpp"
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

// The digest by --digester (default: the primary one) of the session the command names;
// NotFound saying why when there is none.
DigestRow lookup(Store& store, const Config& config, const po::variables_map& vm,
                 const char* command) {
  const SessionRow session = required_session(store, vm, command);
  const std::string name =
      vm.count("digester") ? vm["digester"].as<std::string>() : primary_digester(config);
  auto row = find_digest(store, session.uid, name);
  if (!row)
    throw NotFound(fmt::format(
        "no digest of {} by '{}' in the store (has a sweep digested it since it was stored?)",
        session.uid, name));
  return *row;
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
  auto vm = parse_command("digest", args);
  Config config = load_configuration(g);
  Store store = open_store_for_reading(g, config);
  const DigestRow row = lookup(store, config, vm, "digest");
  auto session = store.session(row.session_uid);
  auto doc = parse_stored_digest(row);
  std::vector<UnpricedModel> unpriced;
  if (session && doc.is_object()) {
    unpriced = session_unpriced_models(store, session->uid);
    const PriceBook book = effective_price_book(store);
    put_host_cost(doc.get_object(), store, *session, unpriced, book);
    warn_if_costs_stale(store, book);
  }
  warn_unpriced(unpriced);
  if (vm.count("json")) {  // the document, its numbers printed as every command does
    std::cout << to_json(doc) << "\n";
    return kExitOk;
  }
  const TimeZone zone = TimeZone::from_option(g.timezone);
  std::cout << fmt::format("{}\n  digested {} by {} {}\n", bold(g.style, row.session_uid),
                           zone.minute(row.digested_at_ms), row.digester, row.version);
  if (doc.is_object()) std::cout << digest_summary(doc.get_object(), g.style.width, "  ");
  return kExitOk;
}

// Every field from the session's own row (the host's), none from a digest: swapping
// digesters never changes them.
int cmd_env(const Globals& g, const std::vector<std::string>& args) {
  auto vm = parse_command("env", args);
  Config config = load_configuration(g);
  const auto db_file = std::filesystem::absolute(store_file(g, config));
  Store store = open_store_for_reading(g, config);
  const auto session = std::make_optional(required_session(store, vm, "env"));
  const int64_t tokens = session->usage.input_tokens + session->usage.output_tokens;
  const double share = session->tool_calls > 0 ? static_cast<double>(session->infra_tool_calls) /
                                                     static_cast<double>(session->tool_calls)
                                               : 0;
  if (vm.count("json")) {  // the same values, under the names every JSON output uses
    std::cout << to_json(boost::json::object{{"session_uid", session->uid},
                                             {"repo", session->repo},
                                             {"flavor", session->flavor},
                                             {"tokens", tokens},
                                             {"infra_overhead_share", round_micro(share)},
                                             {"store_db", db_file.string()}})
              << "\n";
    return kExitOk;
  }
  std::cout << fmt::format("export HELIX_SESSION_UID={}\n", shell_quote(session->uid))
            << fmt::format("export HELIX_REPO={}\n", shell_quote(session->repo))
            << fmt::format("export HELIX_FLAVOR={}\n", shell_quote(session->flavor))
            << fmt::format("export HELIX_TOKENS={}\n", tokens)
            << fmt::format("export HELIX_INFRA_OVERHEAD_SHARE={:.3f}\n", share)
            << fmt::format("export HELIX_STORE_DB={}\n", shell_quote(db_file.string()));
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
  for (const auto& p : r.problems) print_message(p);
}

}  // namespace helix

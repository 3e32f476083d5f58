#include "cli/cmd_prices.hpp"

#include "base/clock.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "recall/session_json.hpp"
#include "store/price_store.hpp"
#include "store/sweep_lock.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>
#include <cmath>
#include <fstream>
#include <iostream>
#include <sstream>

namespace helix {
namespace po = boost::program_options;

namespace {

// USD per million tokens, as people read prices, without the float noise of the product.
double per_million(double usd_per_token) { return std::round(usd_per_token * 1e12) / 1e6; }

boost::json::object rates_json(const Rates& r) {
  return {{"input", per_million(r.input)},
          {"output", per_million(r.output)},
          {"cache_read", per_million(r.cache_read)},
          {"cache_write", per_million(r.cache_write)},
          {"cache_write_1h", per_million(r.cache_write_1h)}};
}

std::string rates_text(const Rates& r) {
  return fmt::format("{:>8.2f} {:>8.2f} {:>10.3f} {:>11.3f} {:>9.3f}", per_million(r.input),
                     per_million(r.output), per_million(r.cache_read), per_million(r.cache_write),
                     per_million(r.cache_write_1h));
}

// The store's price state, when there is a store to ask.
struct StoreView {
  std::optional<ImportedPrices> imported;
  std::optional<PricingState> priced;
};

int list_prices(const Globals& g, bool json) {
  Config config = load_configuration(g);
  const auto db_file = store_file(g, config);
  std::optional<PriceBook> book;
  StoreView view;
  if (std::filesystem::exists(db_file)) {
    Store store(db_file, /*read_only=*/true);
    book = effective_price_book(store);
    view = {imported_prices(store), pricing_state(store)};
  } else {
    book = built_in_price_book();
  }
  const bool current = view.priced && view.priced->fingerprint == book->fingerprint();
  if (json) {
    boost::json::array models;
    for (const auto& [key, p] : book->entries()) {
      boost::json::array tiers;
      for (const auto& t : p.tiers) {
        auto o = rates_json(t.rates);
        o["above_tokens"] = t.above_tokens;
        tiers.push_back(std::move(o));
      }
      auto o = rates_json(p.base);
      o["key"] = key;
      o["long_context"] = std::move(tiers);
      models.push_back(std::move(o));
    }
    boost::json::value imported = nullptr, priced = nullptr;
    if (view.imported)
      imported = boost::json::object{{"source", view.imported->source},
                                     {"imported_at", iso8601(view.imported->imported_at_ms)}};
    if (view.priced)
      priced = boost::json::object{{"source", view.priced->source},
                                   {"priced_at", iso8601(view.priced->priced_at_ms)},
                                   {"current", current}};
    std::cout << boost::json::serialize(
                     boost::json::object{{"source", book->source()},
                                         {"built_in", built_in_price_book().source()},
                                         {"imported", imported},
                                         {"store_costs", priced},
                                         {"unit", "USD per million tokens"},
                                         {"models", std::move(models)}})
              << "\n";
    return kExitOk;
  }
  std::cout << fmt::format("price book: {}\n", book->source());
  if (view.priced)
    std::cout << fmt::format("costs in the store: priced with {} at {}{}\n", view.priced->source,
                             iso8601(view.priced->priced_at_ms),
                             current ? "" : " (another book: the next sweep prices them again)");
  std::cout << fmt::format("USD per million tokens\n{:<44} {:>8} {:>8} {:>10} {:>11} {:>9}  {}\n",
                           "MODEL", "INPUT", "OUTPUT", "CACHE READ", "CACHE WRITE", "1H WRITE",
                           "LONG CONTEXT");
  for (const auto& [key, p] : book->entries()) {
    std::string tiers;
    for (const auto& t : p.tiers)
      tiers += fmt::format("{}above {}k: {:.2f} in, {:.2f} out", tiers.empty() ? "" : "; ",
                           t.above_tokens / 1000, per_million(t.rates.input),
                           per_million(t.rates.output));
    std::cout << fmt::format("{:<44} {}  {}\n", key, rates_text(p.base), tiers);
  }
  std::cout << fmt::format("{} models\n", book->entries().size());
  return kExitOk;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Validates the whole file before the store is touched: a bad file changes nothing.
int import_file(const Globals& g, const std::string& path, bool forget) {
  std::optional<PriceBook> file;
  if (!forget) try {
      file = PriceBook::from_litellm(read_file(path), path);
    } catch (const PriceBookError& e) {
      std::cerr << "helix-host: " << e.what() << "; nothing was imported\n";
      return kExitDataError;
    }
  Config config = load_configuration(g);
  const auto db_file = store_file(g, config);
  SweepLock lock(db_file);
  if (!lock.acquired()) {
    std::cerr << fmt::format(
        "helix-host: a sweep is running on {}; import the prices when it has finished\n",
        db_file.string());
    return kExitBusy;
  }
  Store store(db_file);
  const std::string label =
      forget ? std::string()
             : fmt::format("{} (imported {})", file->source(), iso8601(now_ms()).substr(0, 10));
  const RepriceReport r = forget ? forget_imported_prices(store, now_ms())
                                 : import_prices(store, *file, label, now_ms());
  if (!forget)
    std::cout << fmt::format("imported {} prices from {}\n", file->entries().size(), path);
  else
    std::cout << "imported prices forgotten\n";
  std::cout << fmt::format("price book: {}\nrepriced {} sessions ({} changed) in {:.2f} s\n",
                           effective_price_book(store).source(), r.sessions, r.changed, r.seconds);
  return kExitOk;
}

}  // namespace

int cmd_prices(const Globals& g, const std::vector<std::string>& args) {
  auto vm = parse_command("prices", args);
  const std::string action = vm.count("action") ? vm["action"].as<std::string>() : "";
  if (action.empty()) return list_prices(g, vm.count("json") > 0);
  if (action == "import") {
    if (!vm.count("file"))
      throw UsageError(
          "prices import needs a file: LiteLLM's model_prices_and_context_window.json");
    return import_file(g, vm["file"].as<std::string>(), /*forget=*/false);
  }
  if (action == "forget") {
    if (vm.count("file")) throw UsageError("prices forget takes no file");
    return import_file(g, "", /*forget=*/true);
  }
  throw std::logic_error("parse_command checks the action");
}

}  // namespace helix

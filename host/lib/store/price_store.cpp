#include "store/price_store.hpp"

#include "store/database.hpp"
#include "store/digest_store.hpp"
#include "store/schema.hpp"

#include <fmt/format.h>
#include <chrono>

namespace helix {
namespace {

// Read-only commands do not migrate: a store older than schema 12 has no price tables.
bool has_price_tables(Database& db) { return user_version(db) >= 12; }

std::string hex(uint64_t fingerprint) { return fmt::format("{:016x}", fingerprint); }

// The imported entries as stored, and the files they came from.
std::optional<std::pair<ImportedPrices, std::string>> stored_import(Database& db) {
  if (!has_price_tables(db)) return std::nullopt;
  auto st = db.cached("SELECT source, imported_at_ms, litellm_json FROM imported_prices");
  if (!st->step()) return std::nullopt;
  return std::make_pair(ImportedPrices{st->text(0), st->integer(1)}, st->text(2));
}

PriceBook book_with(const std::optional<std::pair<ImportedPrices, std::string>>& imported) {
  PriceBook book = built_in_price_book();
  if (imported) {
    const PriceBook files = PriceBook::from_litellm(
        imported->second, "the prices imported into the store (imported_prices)");
    book.overlay(files,
                 fmt::format("{} over {}", imported->first.source, built_in_price_book().source()));
  }
  return book;
}

// Prices every session with `book` and records it as the book of the stored costs.
RepriceReport reprice_all(Store& store, const PriceBook& book, int64_t now_ms) {
  Database& db = store.database();
  const auto start = std::chrono::steady_clock::now();
  RepriceReport report;
  UsagePricer pricer(book);
  std::vector<std::string> uids;
  {
    auto st = db.prepare("SELECT uid FROM sessions");
    while (st.step()) uids.push_back(st.text(0));
  }
  for (const auto& uid : uids) {
    ++report.sessions;
    if (pricer.price_session(store, uid)) ++report.changed;
  }
  refresh_usage_rollup(store);
  db.cached(R"sql(
    INSERT INTO pricing_state (id, fingerprint, source, priced_at_ms) VALUES (1, ?, ?, ?)
    ON CONFLICT (id) DO UPDATE SET fingerprint = excluded.fingerprint,
      source = excluded.source, priced_at_ms = excluded.priced_at_ms)sql")
      ->bind(1, hex(book.fingerprint()))
      .bind(2, book.source())
      .bind(3, now_ms)
      .run();
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace

PriceBook effective_price_book(Store& store) { return book_with(stored_import(store.database())); }

std::optional<ImportedPrices> imported_prices(Store& store) {
  auto stored = stored_import(store.database());
  return stored ? std::optional<ImportedPrices>(stored->first) : std::nullopt;
}

std::optional<PricingState> pricing_state(Store& store) {
  auto& db = store.database();
  if (!has_price_tables(db)) return std::nullopt;
  auto st = db.cached("SELECT fingerprint, source, priced_at_ms FROM pricing_state");
  if (!st->step()) return std::nullopt;
  return PricingState{std::stoull(st->text(0), nullptr, 16), st->text(1), st->integer(2)};
}

RepriceReport import_prices(Store& store, const PriceBook& file, const std::string& file_label,
                            int64_t now_ms) {
  auto& db = store.database();
  Transaction tx(db);
  auto imported = stored_import(db);
  PriceBook files = file;
  std::string source = file_label;
  if (imported) {  // earlier imports stay, under this file's entries
    files = PriceBook::from_litellm(imported->second, "the prices imported into the store");
    files.overlay(file, "");
    source = fmt::format("{} over {}", file_label, imported->first.source);
  }
  db.cached(R"sql(
    INSERT INTO imported_prices (id, source, imported_at_ms, litellm_json) VALUES (1, ?, ?, ?)
    ON CONFLICT (id) DO UPDATE SET source = excluded.source,
      imported_at_ms = excluded.imported_at_ms, litellm_json = excluded.litellm_json)sql")
      ->bind(1, source)
      .bind(2, now_ms)
      .bind(3, files.litellm_json())
      .run();
  RepriceReport report = reprice_all(store, book_with(stored_import(db)), now_ms);
  tx.commit();
  return report;
}

RepriceReport forget_imported_prices(Store& store, int64_t now_ms) {
  auto& db = store.database();
  Transaction tx(db);
  db.exec("DELETE FROM imported_prices");
  RepriceReport report = reprice_all(store, built_in_price_book(), now_ms);
  tx.commit();
  return report;
}

int64_t price_with(Store& store, const PriceBook& book, int64_t now_ms) {
  auto state = pricing_state(store);
  if (state && state->fingerprint == book.fingerprint()) return 0;
  Savepoint tx(store.database());
  const RepriceReport report = reprice_all(store, book, now_ms);
  tx.release();
  return state ? report.changed : 0;
}

}  // namespace helix

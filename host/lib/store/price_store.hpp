// The price book in the store: LiteLLM files imported over the built-in book, and which book
// the stored costs (usage_days, usage_rollup, sessions) were computed with.
#pragma once

#include "pricing/price_book.hpp"
#include "store/store.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace helix {

// The book costs are computed with: the built-in one, with the imported entries over it.
PriceBook effective_price_book(Store& store);

// What `prices import` has added to the built-in book.
struct ImportedPrices {
  std::string source;  // the files, for people
  int64_t imported_at_ms = 0;
};
std::optional<ImportedPrices> imported_prices(Store& store);

// The book the stored costs were last computed with.
struct PricingState {
  uint64_t fingerprint = 0;
  std::string source;
  int64_t priced_at_ms = 0;
};
std::optional<PricingState> pricing_state(Store& store);

struct RepriceReport {
  int64_t sessions = 0, changed = 0;  // sessions priced, and those whose rows changed
  double seconds = 0;
};

// Adds the entries of `file` (read from `file_label`) to the imported ones, replacing entries
// of the same LiteLLM key, and prices every session's usage again with the resulting book:
// one transaction, so nothing changes if any of it fails.
RepriceReport import_prices(Store& store, const PriceBook& file, const std::string& file_label,
                            int64_t now_ms);

// Drops the imported entries and prices every session with the built-in book again.
RepriceReport forget_imported_prices(Store& store, int64_t now_ms);

// Prices every session's usage with `book` when the stored costs were computed with another
// book (or never): what a new helix-host with a newer built-in book does on its first sweep.
// Within the caller's transaction, if any. Returns how many sessions' costs changed because
// the book did (0 when it had not, or when the store was never priced before).
int64_t price_with(Store& store, const PriceBook& book, int64_t now_ms);

}  // namespace helix

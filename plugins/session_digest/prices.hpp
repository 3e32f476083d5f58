// The dated price table the digest prices token usage with (USD per million tokens), and the
// [digesters.session_digest] prices overrides.
#pragma once

#include <boost/json.hpp>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace session_digest {

struct Price {
  double input = 0, output = 0, cache_read = 0, cache_creation = 0;  // USD per 1M tokens
};

class PriceTable {
 public:
  PriceTable();  // the shipped table

  // Overrides or adds model prefixes: {"<prefix>": {"input": .., "output": .., "cache_read":
  // .., "cache_creation": ..}}. Throws std::invalid_argument on a malformed entry.
  void override_with(const boost::json::object& prices);

  // The price of the longest model-id prefix that matches (case-insensitive, after dropping a
  // "provider/" prefix); nullopt for a model the table does not know.
  std::optional<Price> find(std::string_view model) const;

  const std::string& as_of() const { return as_of_; }

 private:
  std::map<std::string, Price> prices_;
  std::string as_of_;
};

}  // namespace session_digest

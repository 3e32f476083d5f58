#include "prices.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace session_digest {
namespace {

// List prices published by Anthropic, OpenAI and xAI, as of the date below. cache_creation is
// the 5-minute cache write price (the transcripts do not say which writes were 1-hour ones).
// OpenAI and xAI bill no cache writes; their input price applies to uncached input only.
constexpr const char* kAsOf = "2025-11-24";
struct Entry {
  const char* prefix;
  Price price;
};
constexpr Entry kPrices[] = {
    {"claude-opus-4-5", {5, 25, 0.5, 6.25}},
    {"claude-opus-4-1", {15, 75, 1.5, 18.75}},
    {"claude-opus-4", {15, 75, 1.5, 18.75}},
    {"claude-sonnet-4-5", {3, 15, 0.3, 3.75}},
    {"claude-sonnet-4", {3, 15, 0.3, 3.75}},
    {"claude-3-7-sonnet", {3, 15, 0.3, 3.75}},
    {"claude-3-5-sonnet", {3, 15, 0.3, 3.75}},
    {"claude-haiku-4-5", {1, 5, 0.1, 1.25}},
    {"claude-3-5-haiku", {0.8, 4, 0.08, 1}},
    {"claude-3-haiku", {0.25, 1.25, 0.03, 0.3}},
    {"claude-3-opus", {15, 75, 1.5, 18.75}},
    {"gpt-5.1-codex-mini", {0.25, 2, 0.025, 0}},
    {"gpt-5.1-codex", {1.25, 10, 0.125, 0}},
    {"gpt-5-1-codex", {1.25, 10, 0.125, 0}},  // the same model, as some Codex builds spell it
    {"gpt-5.1", {1.25, 10, 0.125, 0}},
    {"gpt-5-codex", {1.25, 10, 0.125, 0}},
    {"gpt-5-mini", {0.25, 2, 0.025, 0}},
    {"gpt-5-nano", {0.05, 0.4, 0.005, 0}},
    {"gpt-5", {1.25, 10, 0.125, 0}},
    {"gpt-4.1-mini", {0.4, 1.6, 0.1, 0}},
    {"gpt-4.1", {2, 8, 0.5, 0}},
    {"gpt-4o", {2.5, 10, 1.25, 0}},
    {"o3", {2, 8, 0.5, 0}},
    {"o4-mini", {1.1, 4.4, 0.275, 0}},
    {"codex-mini-latest", {1.5, 6, 0.375, 0}},
    {"grok-code-fast-1", {0.2, 1.5, 0.02, 0}},
    {"grok-4-fast", {0.2, 0.5, 0.05, 0}},
    {"grok-4", {3, 15, 0.75, 0}},
    {"grok-3-mini", {0.3, 0.5, 0.075, 0}},
    {"grok-3", {3, 15, 0.75, 0}},
};

std::string normalized(std::string_view model) {
  if (auto slash = model.rfind('/'); slash != std::string_view::npos)
    model.remove_prefix(slash + 1);
  std::string out(model);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

double rate(const boost::json::object& o, const char* key, const std::string& model) {
  const auto* v = o.if_contains(key);
  if (!v) return 0;
  if (!v->is_number() || v->to_number<double>() < 0)
    throw std::invalid_argument("prices." + model + "." + key +
                                " must be a non-negative number (USD per million tokens)");
  return v->to_number<double>();
}

}  // namespace

PriceTable::PriceTable() : as_of_(kAsOf) {
  for (const auto& e : kPrices) prices_[e.prefix] = e.price;
}

void PriceTable::override_with(const boost::json::object& prices) {
  for (const auto& [key, value] : prices) {
    const std::string model = normalized(key);
    if (!value.is_object())
      throw std::invalid_argument("prices." + model +
                                  " must be a table of input, output, "
                                  "cache_read and cache_creation prices");
    const auto& o = value.get_object();
    prices_[model] = Price{rate(o, "input", model), rate(o, "output", model),
                           rate(o, "cache_read", model), rate(o, "cache_creation", model)};
  }
  if (!prices.empty()) as_of_ += " + configured prices";
}

// `id` is the model `prefix` names: equal, or followed only by a release date or version tag
// ("-20250514", "-0709", "-latest", "@20240620", ":0"). So "claude-opus-4" prices
// "claude-opus-4-20250514" but never "claude-opus-4-6", a later model with its own price.
static bool names(std::string_view id, std::string_view prefix) {
  if (!id.starts_with(prefix)) return false;
  std::string_view rest = id.substr(prefix.size());
  if (rest.empty() || rest.front() == '@' || rest.front() == ':' || rest == "-latest") return true;
  if (rest.front() != '-') return false;
  std::size_t digits = 1;
  while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) ++digits;
  return digits - 1 >= 4;
}

std::optional<Price> PriceTable::find(std::string_view model) const {
  const std::string id = normalized(model);
  std::optional<Price> best;
  std::size_t best_len = 0;
  for (const auto& [prefix, price] : prices_)
    if (names(id, prefix) && prefix.size() > best_len) {
      best = price;
      best_len = prefix.size();
    }
  return best;
}

}  // namespace session_digest

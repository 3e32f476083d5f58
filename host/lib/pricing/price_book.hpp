// The price book: what one model call costs, per model, read from LiteLLM's price file format.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace helix {

// A price file that cannot be used, with the reason an administrator can act on.
struct PriceBookError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// USD per token of each kind of token a call bills. cache_write is the 5-minute cache write;
// cache_write_1h the 1-hour one (Anthropic bills it apart).
struct Rates {
  double input = 0, output = 0, cache_read = 0, cache_write = 0, cache_write_1h = 0;
  bool operator==(const Rates&) const = default;
};

// The tokens of one model call, in the host's token convention (docs/schema.md):
// cache_write counts every cache write, cache_write_1h the 1-hour part of them.
struct CallTokens {
  int64_t input = 0, output = 0, cache_read = 0, cache_write = 0, cache_write_1h = 0;
  int64_t billed() const { return input + output + cache_read + cache_write; }
};

struct ModelPrice {
  std::string key;  // the LiteLLM entry it comes from, e.g. "claude-sonnet-4-5"
  Rates base;
  // Long-context rates: when a call's prompt (input + cache reads + cache writes) is above
  // `above_tokens`, every token of the call is billed at `rates` (the highest tier exceeded).
  struct Tier {
    int64_t above_tokens = 0;
    Rates rates;
    bool operator==(const Tier&) const = default;
  };
  std::vector<Tier> tiers;  // ascending above_tokens
  bool operator==(const ModelPrice&) const = default;

  double cost(const CallTokens& call) const;
};

class PriceBook {
 public:
  // The entries of a LiteLLM model_prices_and_context_window.json (or a subset of it) that
  // price the models of Claude Code, Codex CLI, Grok Build and Gemini CLI: Anthropic, OpenAI,
  // xAI and Gemini chat models, plus Bedrock's base-region Claude entries for Claude models
  // Anthropic's listing lacks. `origin` names the file in error messages. Throws
  // PriceBookError when the text is not such a file or a price is not a plausible rate.
  static PriceBook from_litellm(std::string_view json, std::string origin);

  // Entries of `newer` replace this book's entries of the same LiteLLM key; the others stay.
  // `source` describes the result.
  void overlay(const PriceBook& newer, std::string source);

  // The price of `model` as an agent names it (provider prefixes, Bedrock and Vertex forms,
  // '.' or '-' between version numbers, a trailing release date), or nullptr.
  const ModelPrice* find(std::string_view model) const;

  // The price of every entry, by LiteLLM key.
  const std::map<std::string, ModelPrice>& entries() const { return entries_; }

  // Where the prices come from, e.g. "LiteLLM BerriAI/litellm@00035b69f416 (2026-07-18)".
  const std::string& source() const { return source_; }

  // The entries as LiteLLM JSON (what the store keeps of imported files): only the fields
  // read here, values as given.
  std::string litellm_json() const;

  // Changes whenever any price changes; stable across runs and builds.
  uint64_t fingerprint() const;

 private:
  void index();

  boost::json::object kept_;  // LiteLLM key -> its kept fields
  std::map<std::string, ModelPrice> entries_;
  std::map<std::string, std::string> by_name_;  // canonical model name -> key
  std::string source_;
};

// The book compiled into helix-host (host/lib/pricing/litellm_prices.json).
const PriceBook& built_in_price_book();

}  // namespace helix

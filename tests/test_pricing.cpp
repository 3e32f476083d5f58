// The price book: LiteLLM entries read and validated, model names matched, calls priced with
// long-context tiers and 1-hour cache writes (expected figures computed by hand).
#define BOOST_TEST_MODULE pricing
#include <boost/test/unit_test.hpp>

#include "pricing/price_book.hpp"

#include <string>

using namespace helix;

namespace {

// A LiteLLM file with rates that make hand computation easy (USD per token).
constexpr const char* kBook = R"json({
  "sample_spec": {"input_cost_per_token": 0.0, "litellm_provider": "one of ..."},
  "claude-long-1": {
    "litellm_provider": "anthropic", "mode": "chat",
    "input_cost_per_token": 3e-06, "output_cost_per_token": 1.5e-05,
    "cache_read_input_token_cost": 3e-07, "cache_creation_input_token_cost": 3.75e-06,
    "cache_creation_input_token_cost_above_1hr": 6e-06,
    "input_cost_per_token_above_200k_tokens": 6e-06,
    "output_cost_per_token_above_200k_tokens": 2.25e-05,
    "cache_read_input_token_cost_above_200k_tokens": 6e-07,
    "cache_creation_input_token_cost_above_200k_tokens": 7.5e-06,
    "cache_creation_input_token_cost_above_1hr_above_200k_tokens": 1.2e-05},
  "claude-short-1": {
    "litellm_provider": "anthropic", "mode": "chat",
    "input_cost_per_token": 5e-06, "output_cost_per_token": 2.5e-05,
    "cache_read_input_token_cost": 5e-07, "cache_creation_input_token_cost": 6.25e-06},
  "gpt-9": {
    "litellm_provider": "openai", "mode": "responses",
    "input_cost_per_token": 2e-06, "output_cost_per_token": 1e-05,
    "cache_read_input_token_cost": 2e-07,
    "input_cost_per_token_above_272k_tokens": 4e-06},
  "gpt-9.1-codex": {"litellm_provider": "openai", "mode": "chat",
    "input_cost_per_token": 1e-06, "output_cost_per_token": 8e-06},
  "xai/grok-9": {"litellm_provider": "xai", "mode": "chat",
    "input_cost_per_token": 1e-06, "output_cost_per_token": 4e-06},
  "gemini/gemini-9-pro": {"litellm_provider": "gemini", "mode": "chat",
    "input_cost_per_token": 1.25e-06, "output_cost_per_token": 1e-05},
  "anthropic.claude-old-1-20240101-v2:0": {"litellm_provider": "bedrock", "mode": "chat",
    "input_cost_per_token": 8e-07, "output_cost_per_token": 4e-06},
  "eu.anthropic.claude-old-1-20240101-v2:0": {"litellm_provider": "bedrock", "mode": "chat",
    "input_cost_per_token": 9e-06, "output_cost_per_token": 9e-06},
  "mistral/mistral-large": {"litellm_provider": "mistral", "mode": "chat",
    "input_cost_per_token": 2e-06, "output_cost_per_token": 6e-06},
  "dall-e-9": {"litellm_provider": "openai", "mode": "image_generation",
    "input_cost_per_token": 1e-06, "output_cost_per_token": 1e-06}
})json";

PriceBook book() { return PriceBook::from_litellm(kBook, "test.json"); }

std::string error_of(std::string_view text) {
  try {
    PriceBook::from_litellm(text, "prices.json");
  } catch (const PriceBookError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

BOOST_AUTO_TEST_CASE(keeps_the_agents_vendors_chat_models_only) {
  const PriceBook b = book();
  BOOST_TEST(b.entries().size() == 7u);  // not sample_spec, mistral, eu. or the image model
  BOOST_TEST(!b.entries().count("mistral/mistral-large"));
  BOOST_TEST(!b.entries().count("dall-e-9"));
  BOOST_TEST(b.find("mistral-large") == nullptr);
  BOOST_TEST(b.source() == "test.json");
}

// Names as agents write them resolve as ccusage resolves them: provider prefixes, '.' for '-',
// a trailing release date, Bedrock's forms; never a different version of the model.
BOOST_AUTO_TEST_CASE(model_names_resolve_across_their_spellings) {
  const PriceBook b = book();
  auto key = [&](std::string_view model) {
    const ModelPrice* p = b.find(model);
    return p ? p->key : std::string("(none)");
  };
  BOOST_TEST(key("claude-long-1") == "claude-long-1");
  BOOST_TEST(key("claude-long-1-20250929") == "claude-long-1");
  BOOST_TEST(key("anthropic/claude-long-1") == "claude-long-1");
  BOOST_TEST(key("Claude-Long-1") == "claude-long-1");
  BOOST_TEST(key("claude-long.1") == "claude-long-1");
  BOOST_TEST(key("us.anthropic.claude-long-1-20250929-v1:0") == "claude-long-1");
  BOOST_TEST(key("gpt-9-1-codex-2025-11-13") == "gpt-9.1-codex");
  BOOST_TEST(key("openai/gpt-9.1-codex") == "gpt-9.1-codex");
  BOOST_TEST(key("grok-9") == "xai/grok-9");
  BOOST_TEST(key("gemini-9-pro") == "gemini/gemini-9-pro");
  // Bedrock's base-region entry prices an old Claude model; the regional one does not.
  BOOST_TEST(key("claude-old-1-20240101") == "anthropic.claude-old-1-20240101-v2:0");
  BOOST_TEST(key("claude-long-1-5") == "(none)");  // a later version has a price of its own
  BOOST_TEST(key("claude-long-10") == "(none)");
  BOOST_TEST(key("claude-long") == "(none)");
  BOOST_TEST(key("gpt-9-mini") == "(none)");
  BOOST_TEST(key("<synthetic>") == "(none)");
  BOOST_TEST(key("") == "(none)");
}

// claude-long-1 at 200,000 prompt tokens or fewer: base rates; above: every token at the tier.
BOOST_AUTO_TEST_CASE(a_prompt_above_the_threshold_bills_the_whole_call_at_long_context_rates) {
  const PriceBook b = book();
  const ModelPrice& p = *b.find("claude-long-1");
  CallTokens at{.input = 10'000,
                .output = 2'000,
                .cache_read = 140'000,
                .cache_write = 50'000,
                .cache_write_1h = 20'000};  // prompt exactly 200,000
  // 10,000 × 3e-6 + 2,000 × 15e-6 + 140,000 × 0.3e-6 + 30,000 × 3.75e-6 + 20,000 × 6e-6
  // = 0.03 + 0.03 + 0.042 + 0.1125 + 0.12
  BOOST_TEST(p.cost(at) == 0.3345, boost::test_tools::tolerance(1e-12));
  CallTokens above = at;
  above.cache_read = 150'000;  // prompt 210,000
  // 10,000 × 6e-6 + 2,000 × 22.5e-6 + 150,000 × 0.6e-6 + 30,000 × 7.5e-6 + 20,000 × 12e-6
  // = 0.06 + 0.045 + 0.09 + 0.225 + 0.24
  BOOST_TEST(p.cost(above) == 0.66, boost::test_tools::tolerance(1e-12));
}

// A tier that gives only some rates changes only those; OpenAI's 272k tier here.
BOOST_AUTO_TEST_CASE(a_tier_keeps_the_base_rates_it_does_not_give) {
  const PriceBook b = book();
  const ModelPrice& p = *b.find("gpt-9");
  CallTokens call{.input = 100'000, .output = 1'000, .cache_read = 200'000};  // prompt 300,000
  // 100,000 × 4e-6 + 1,000 × 10e-6 + 200,000 × 0.2e-6 = 0.4 + 0.01 + 0.04
  BOOST_TEST(p.cost(call) == 0.45, boost::test_tools::tolerance(1e-12));
  call.cache_read = 172'000;  // prompt 272,000: not above
  // 100,000 × 2e-6 + 0.01 + 172,000 × 0.2e-6 = 0.2 + 0.01 + 0.0344
  BOOST_TEST(p.cost(call) == 0.2444, boost::test_tools::tolerance(1e-12));
}

// The 1-hour writes of a call are billed at their own rate, the rest at the 5-minute rate;
// without a 1-hour rate, at twice the input rate (Anthropic's rule, as ccusage does).
BOOST_AUTO_TEST_CASE(one_hour_cache_writes_are_billed_at_their_own_rate) {
  const PriceBook b = book();
  const CallTokens call{.cache_write = 3'000, .cache_write_1h = 2'343};
  // 657 × 3.75e-6 + 2,343 × 6e-6
  BOOST_TEST(b.find("claude-long-1")->cost(call) == 0.00246375 + 0.014058,
             boost::test_tools::tolerance(1e-12));
  // claude-short-1 gives no 1-hour rate: 657 × 6.25e-6 + 2,343 × (2 × 5e-6)
  BOOST_TEST(b.find("claude-short-1")->cost(call) == 0.00410625 + 0.02343,
             boost::test_tools::tolerance(1e-12));
  // More 1-hour tokens than writes (a malformed record) are capped at the writes.
  const CallTokens odd{.cache_write = 100, .cache_write_1h = 500};
  BOOST_TEST(b.find("claude-long-1")->cost(odd) == 100 * 6e-6, boost::test_tools::tolerance(1e-15));
}

// OpenAI, xAI and Gemini bill no cache writes; a cache price LiteLLM does not give is the
// input price (as ccusage prices Codex).
BOOST_AUTO_TEST_CASE(missing_cache_prices_fall_back_to_the_input_price) {
  const PriceBook b = book();
  const ModelPrice& grok = *b.find("grok-9");
  BOOST_TEST(grok.base.cache_read == 1e-06);
  BOOST_TEST(grok.base.cache_write == 1e-06);
  BOOST_TEST(grok.base.cache_write_1h == 2e-06);
  const CallTokens call{.input = 1'000, .output = 100, .cache_read = 9'000};
  BOOST_TEST(grok.cost(call) == 10'000 * 1e-6 + 100 * 4e-6, boost::test_tools::tolerance(1e-15));
}

BOOST_AUTO_TEST_CASE(bad_files_are_refused_with_the_reason) {
  BOOST_TEST(error_of("{\"a\": ").find("prices.json: not JSON") == 0u);
  BOOST_TEST(error_of("[1, 2]").find("the top level must be an object of models") !=
             std::string::npos);
  BOOST_TEST(error_of(R"({"mistral-x": {"litellm_provider": "mistral",
      "input_cost_per_token": 1e-06, "output_cost_per_token": 1e-06}})")
                 .find("no Anthropic, OpenAI, xAI or Gemini chat model") != std::string::npos);
  BOOST_TEST(error_of(R"({"gpt-9": {"litellm_provider": "openai",
      "input_cost_per_token": "cheap", "output_cost_per_token": 1e-06}})") ==
             "prices.json: \"gpt-9\".input_cost_per_token must be a non-negative number (USD per "
             "token), not \"cheap\"");
  BOOST_TEST(error_of(R"({"gpt-9": {"litellm_provider": "openai",
      "input_cost_per_token": 1e-06, "output_cost_per_token": -1e-06}})")
                 .find("output_cost_per_token must be a non-negative number") != std::string::npos);
  // Prices per million tokens where LiteLLM gives them per token.
  BOOST_TEST(error_of(R"({"gpt-9": {"litellm_provider": "openai",
      "input_cost_per_token": 2.5, "output_cost_per_token": 10}})")
                 .find("was it written per million tokens?") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_overlay_replaces_entries_and_changes_the_fingerprint) {
  PriceBook b = book();
  const uint64_t before = b.fingerprint();
  BOOST_TEST(book().fingerprint() == before);  // stable
  const PriceBook newer = PriceBook::from_litellm(R"({"gpt-9": {"litellm_provider": "openai",
      "input_cost_per_token": 1e-06, "output_cost_per_token": 5e-06},
      "gpt-10": {"litellm_provider": "openai",
      "input_cost_per_token": 3e-06, "output_cost_per_token": 9e-06}})",
                                                  "newer.json");
  b.overlay(newer, "newer.json over test.json");
  BOOST_TEST(b.fingerprint() != before);
  BOOST_TEST(b.source() == "newer.json over test.json");
  BOOST_TEST(b.find("gpt-9")->base.input == 1e-06);
  BOOST_TEST(b.find("gpt-9")->tiers.empty());  // the newer entry, whole
  BOOST_TEST(b.find("gpt-10") != nullptr);
  BOOST_TEST(b.find("claude-long-1") != nullptr);  // kept
  // What the store keeps reads back as the same book.
  const PriceBook again = PriceBook::from_litellm(b.litellm_json(), "again");
  BOOST_TEST(again.fingerprint() == b.fingerprint());
}

// The shipped book: LiteLLM's entries for the models in the fixtures, found by the names the
// agents write.
BOOST_AUTO_TEST_CASE(the_built_in_book_prices_current_agent_models) {
  const PriceBook& b = built_in_price_book();
  BOOST_TEST(b.source().find("LiteLLM BerriAI/litellm@") == 0u);
  for (const char* model :
       {"claude-opus-4-5-20251101", "claude-opus-4-7", "claude-sonnet-4-5-20250929",
        "claude-haiku-4-5-20251001", "gpt-5.3-codex", "gpt-5.5", "gpt-5-1-codex-2025-11-13",
        "grok-code-fast-1", "gemini-2.5-pro"})
    BOOST_TEST(b.find(model) != nullptr, model);
  BOOST_TEST(b.find("claude-opus-5-5") == nullptr);  // the mock API's invented model
}

#include "pricing/price_book.hpp"

#include <fmt/format.h>
#include <xxhash.h>
#include <algorithm>
#include <array>
#include <boost/json.hpp>
#include <cctype>
#include <charconv>
#include <tuple>

namespace helix {

// Defined in the litellm_prices.cpp that CMake generates from litellm_prices.json.
std::string_view builtin_litellm_prices_json();

namespace {
namespace json = boost::json;

// The vendors of the agents Helix reads, as LiteLLM names their own APIs.
constexpr std::string_view kFirstParty[] = {"anthropic", "openai", "text-completion-openai", "xai",
                                            "gemini"};
// A rate above this is a price per million tokens given where LiteLLM gives one per token.
constexpr double kMaxRate = 0.01;

// The rate fields read, in the order of Rates' members.
constexpr std::string_view kRateFields[] = {
    "input_cost_per_token", "output_cost_per_token", "cache_read_input_token_cost",
    "cache_creation_input_token_cost", "cache_creation_input_token_cost_above_1hr"};
constexpr std::size_t kInput = 0, kOutput = 1, kCacheRead = 2, kCacheWrite = 3, kCacheWrite1h = 4;
constexpr double Rates::*kMembers[] = {&Rates::input, &Rates::output, &Rates::cache_read,
                                       &Rates::cache_write, &Rates::cache_write_1h};

bool is_first_party(std::string_view provider) {
  return std::find(std::begin(kFirstParty), std::end(kFirstParty), provider) !=
         std::end(kFirstParty);
}

std::string_view text_of(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

// Which entries price an agent's calls: token-priced chat models of the agents' vendors, and
// Bedrock's base-region Claude entries ("anthropic.claude-…") for older Claude models.
bool prices_agent_calls(std::string_view key, const json::object& entry) {
  const std::string_view mode = text_of(entry, "mode");
  if (!mode.empty() && mode != "chat" && mode != "responses" && mode != "completion") return false;
  if (!entry.contains("input_cost_per_token") || !entry.contains("output_cost_per_token"))
    return false;
  const std::string_view provider = text_of(entry, "litellm_provider");
  return is_first_party(provider) ||
         (provider.starts_with("bedrock") && key.starts_with("anthropic.claude-"));
}

// A rate field's base name and long-context threshold: "input_cost_per_token_above_200k_tokens"
// is ("input_cost_per_token", 200000); a plain field has threshold 0.
std::optional<std::pair<std::size_t, int64_t>> rate_field(std::string_view name) {
  int64_t above = 0;
  if (name.ends_with("k_tokens")) {
    const auto at = name.rfind("_above_");
    if (at == std::string_view::npos) return std::nullopt;
    const std::string_view digits =
        name.substr(at + 7, name.size() - at - 7 - std::string_view("k_tokens").size());
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), above);
    if (ec != std::errc() || end != digits.data() + digits.size() || above <= 0)
      return std::nullopt;
    above *= 1000;
    name = name.substr(0, at);
  }
  for (std::size_t i = 0; i < std::size(kRateFields); ++i)
    if (kRateFields[i] == name) return std::make_pair(i, above);
  return std::nullopt;
}

double checked_rate(const json::value& v, std::string_view key, std::string_view field,
                    const std::string& origin) {
  if (!v.is_number() || v.to_number<double>() < 0)
    throw PriceBookError(
        fmt::format("{}: \"{}\".{} must be a non-negative number (USD per "
                    "token), not {}",
                    origin, key, field, json::serialize(v)));
  const double rate = v.to_number<double>();
  if (rate > kMaxRate)
    throw PriceBookError(fmt::format(
        "{}: \"{}\".{} is {} USD per token ({} per million): LiteLLM gives USD per token, and "
        "no model costs that much; was it written per million tokens?",
        origin, key, field, rate, rate * 1e6));
  return rate;
}

// The rates LiteLLM gives for one entry, by threshold (0 = the base rates).
using Given = std::array<std::optional<double>, std::size(kRateFields)>;
using GivenRates = std::map<int64_t, Given>;

GivenRates given_rates(std::string_view key, const json::object& entry, json::object& kept,
                       const std::string& origin) {
  GivenRates given;
  for (const auto& [name, value] : entry) {
    if (name == "litellm_provider" || name == "mode" || name == "max_input_tokens") {
      kept[name] = value;
      continue;
    }
    auto field = rate_field(name);
    if (!field || value.is_null()) continue;
    given[field->second][field->first] = checked_rate(value, key, name, origin);
    kept[name] = value;
  }
  return given;
}

// Fills what LiteLLM leaves out: a cached token costs an input token unless a cache price is
// given (OpenAI, xAI and Gemini bill no cache writes), a 1-hour cache write twice an input
// token (Anthropic's rule), and a long-context tier keeps the base rates it does not change.
ModelPrice model_price(std::string key, const GivenRates& given) {
  ModelPrice p;
  p.key = std::move(key);
  const Given& base = given.at(0);
  p.base.input = *base[kInput];
  p.base.output = *base[kOutput];
  p.base.cache_read = base[kCacheRead].value_or(p.base.input);
  p.base.cache_write = base[kCacheWrite].value_or(p.base.input);
  p.base.cache_write_1h = base[kCacheWrite1h].value_or(2 * p.base.input);
  for (const auto& [above, tier] : given) {
    if (above == 0) continue;
    ModelPrice::Tier t{above, p.base};
    for (std::size_t i = 0; i < tier.size(); ++i)
      if (tier[i]) t.rates.*kMembers[i] = *tier[i];
    if (!tier[kCacheWrite1h] && tier[kInput]) t.rates.cache_write_1h = 2 * t.rates.input;
    p.tiers.push_back(t);
  }
  return p;
}

// A model name as it is indexed and looked up: lower case, without provider prefixes
// ("openai/", "gemini/", "xai/"), Bedrock's region and vendor prefix and version suffix
// ("us.anthropic.…-v1:0") and Vertex's "@default", with '.' and '@' written '-', so that
// "claude-opus-4.7", "claude-opus-4-7" and "anthropic/claude-opus-4-7" are one name.
std::string canonical_name(std::string_view model) {
  if (auto slash = model.rfind('/'); slash != std::string_view::npos)
    model.remove_prefix(slash + 1);
  std::string name(model);
  for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (auto vendor = name.find("anthropic."); vendor != std::string::npos) {
    const std::string_view region = std::string_view(name).substr(0, vendor);
    static constexpr std::string_view kRegions[] = {"",    "global.", "us.", "eu.",    "apac.",
                                                    "au.", "jp.",     "ca.", "us-gov."};
    if (std::find(std::begin(kRegions), std::end(kRegions), region) != std::end(kRegions))
      name.erase(0, vendor + 10);
  }
  if (auto v = name.rfind("-v"); v != std::string::npos && v + 2 < name.size()) {
    const auto tail = name.find_first_not_of("0123456789:", v + 2);
    if (tail == std::string::npos && std::isdigit(static_cast<unsigned char>(name[v + 2])))
      name.resize(v);
  }
  if (name.ends_with("@default")) name.resize(name.size() - 8);
  std::replace(name.begin(), name.end(), '.', '-');
  std::replace(name.begin(), name.end(), '@', '-');
  return name;
}

bool digits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

// The name without a trailing release date ("-20250514", "-2025-11-13"), or "" when it has none.
std::string without_date(const std::string& name) {
  const std::string_view n = name;
  if (n.size() > 9 && n[n.size() - 9] == '-' && digits(n.substr(n.size() - 8)))
    return name.substr(0, n.size() - 9);
  if (n.size() > 11 && n[n.size() - 11] == '-' && digits(n.substr(n.size() - 10, 4)) &&
      n[n.size() - 6] == '-' && digits(n.substr(n.size() - 5, 2)) && n[n.size() - 3] == '-' &&
      digits(n.substr(n.size() - 2)))
    return name.substr(0, n.size() - 11);
  return {};
}

std::string source_label(const json::object& doc, const std::string& origin) {
  const auto* meta = doc.if_contains("helix_source");
  if (!meta || !meta->is_object()) return origin;
  const auto& m = meta->get_object();
  return fmt::format("LiteLLM {}@{} ({})", text_of(m, "repository"),
                     text_of(m, "commit").substr(0, 12), text_of(m, "date"));
}

}  // namespace

double ModelPrice::cost(const CallTokens& call) const {
  const int64_t prompt = call.input + call.cache_read + call.cache_write;
  const Rates* r = &base;
  for (const auto& t : tiers)
    if (prompt > t.above_tokens) r = &t.rates;
  const int64_t one_hour = std::clamp<int64_t>(call.cache_write_1h, 0, call.cache_write);
  return static_cast<double>(call.input) * r->input + static_cast<double>(call.output) * r->output +
         static_cast<double>(call.cache_read) * r->cache_read +
         static_cast<double>(call.cache_write - one_hour) * r->cache_write +
         static_cast<double>(one_hour) * r->cache_write_1h;
}

PriceBook PriceBook::from_litellm(std::string_view text, std::string origin) {
  boost::system::error_code ec;
  json::value doc = json::parse(text, ec);
  if (ec)
    throw PriceBookError(
        fmt::format("{}: not JSON ({}); expected LiteLLM's model_prices_and_context_window.json",
                    origin, ec.message()));
  if (!doc.is_object())
    throw PriceBookError(fmt::format(
        "{}: not a LiteLLM price file: the top level must be an object of models", origin));
  PriceBook book;
  std::vector<std::string> keys;
  for (const auto& [key, value] : doc.get_object())
    if (value.is_object() && prices_agent_calls(key, value.get_object())) keys.emplace_back(key);
  std::sort(keys.begin(), keys.end());
  for (const auto& key : keys) {
    json::object kept;
    const GivenRates given = given_rates(key, doc.at(key).get_object(), kept, origin);
    book.entries_.emplace(key, model_price(key, given));
    book.kept_.emplace(key, std::move(kept));
  }
  if (book.entries_.empty())
    throw PriceBookError(fmt::format(
        "{}: no Anthropic, OpenAI, xAI or Gemini chat model with token prices in it; is it "
        "LiteLLM's model_prices_and_context_window.json?",
        origin));
  book.source_ = source_label(doc.get_object(), origin);
  book.index();
  return book;
}

void PriceBook::overlay(const PriceBook& newer, std::string source) {
  for (const auto& [key, price] : newer.entries_) entries_.insert_or_assign(key, price);
  for (const auto& [key, fields] : newer.kept_) kept_[key] = fields;
  source_ = std::move(source);
  index();
}

void PriceBook::index() {
  by_name_.clear();
  // Several keys can name one model ("gemini-flash-latest", "gemini/gemini-flash-latest"): the
  // vendor's own entry wins over Bedrock's, then the shorter key.
  auto rank = [&](const std::string& key) {
    const bool bedrock = key.starts_with("anthropic.");
    return std::make_tuple(bedrock, key.size(), key);
  };
  for (const auto& [key, price] : entries_) {
    auto [it, added] = by_name_.emplace(canonical_name(key), key);
    if (!added && rank(key) < rank(it->second)) it->second = key;
  }
}

const ModelPrice* PriceBook::find(std::string_view model) const {
  if (model.empty()) return nullptr;
  std::string name = canonical_name(model);
  auto it = by_name_.find(name);
  if (it == by_name_.end()) {
    name = without_date(name);
    if (!name.empty()) it = by_name_.find(name);
  }
  return it == by_name_.end() ? nullptr : &entries_.at(it->second);
}

std::string PriceBook::litellm_json() const { return json::serialize(kept_); }

uint64_t PriceBook::fingerprint() const {
  std::string bytes;  // every key with its rates, in key order
  auto add = [&](const void* p, std::size_t n) { bytes.append(static_cast<const char*>(p), n); };
  auto add_rates = [&](const Rates& r) {
    for (auto member : kMembers) add(&(r.*member), sizeof(double));
  };
  for (const auto& [key, p] : entries_) {
    add(key.c_str(), key.size() + 1);  // with its NUL, so that keys stay apart
    add_rates(p.base);
    for (const auto& t : p.tiers) {
      add(&t.above_tokens, sizeof t.above_tokens);
      add_rates(t.rates);
    }
  }
  return XXH3_64bits(bytes.data(), bytes.size());
}

const PriceBook& built_in_price_book() {
  static const PriceBook book =
      PriceBook::from_litellm(builtin_litellm_prices_json(), "the built-in price book");
  return book;
}

}  // namespace helix

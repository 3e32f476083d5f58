#include "privacy/secret_rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace helix {
namespace secret_rule_data {
std::string_view rules_tsv();  // secret_rules.cpp.in
std::string_view allow_tsv();
}  // namespace secret_rule_data

namespace {

std::vector<std::string_view> split(std::string_view line, char by) {
  std::vector<std::string_view> out;
  for (std::size_t pos = 0;;) {
    const std::size_t at = line.find(by, pos);
    out.push_back(line.substr(pos, at == std::string_view::npos ? at : at - pos));
    if (at == std::string_view::npos) return out;
    pos = at + 1;
  }
}

// Calls f(line number, columns) for each line that is not blank or a comment.
template <class F>
void for_each_row(std::string_view tsv, std::size_t columns, std::string_view what, F&& f) {
  std::size_t number = 0;
  for (std::string_view line : split(tsv, '\n')) {
    ++number;
    if (line.empty() || line.front() == '#') continue;
    const auto fields = split(line, '\t');
    if (fields.size() != columns)
      throw std::invalid_argument(
          fmt::format("{} line {}: {} columns, not {}", what, number, fields.size(), columns));
    f(number, fields);
  }
}

double number(std::string_view text, std::string_view what, std::size_t line) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size())
    throw std::invalid_argument(fmt::format("{} line {}: '{}' is not a number", what, line, text));
  return value;
}

}  // namespace

std::vector<SecretRule> parse_secret_rules(std::string_view tsv) {
  std::vector<SecretRule> rules;
  for_each_row(tsv, 11, "secret_rules.tsv", [&](std::size_t line, const auto& f) {
    SecretRule r;
    r.id = f[0];
    if (f[1] != "high" && f[1] != "generic")
      throw std::invalid_argument(
          fmt::format("secret_rules.tsv line {}: confidence '{}'", line, f[1]));
    r.confidence = f[1] == "high" ? Confidence::kHigh : Confidence::kGeneric;
    r.group = static_cast<int>(number(f[2], "secret_rules.tsv", line));
    r.entropy = number(f[3], "secret_rules.tsv", line);
    r.decode_base64 = f[4] == "base64";
    if (f[5] != "-")
      for (auto k : split(f[5], ',')) r.keywords.emplace_back(k);
    if (f[6] != "-")
      for (auto k : split(f[6], ',')) r.required.emplace_back(k);
    r.context = static_cast<int>(number(f[7], "secret_rules.tsv", line));
    r.regex = f[8];
    r.sample = f[9];
    r.source = f[10];
    rules.push_back(std::move(r));
  });
  return rules;
}

std::vector<SecretAllow> parse_secret_allows(std::string_view tsv) {
  std::vector<SecretAllow> allows;
  for_each_row(tsv, 5, "secret_allow.tsv", [&](std::size_t line, const auto& f) {
    SecretAllow a;
    a.rule = f[0];
    if (f[1] == "secret")
      a.target = AllowTarget::kSecret;
    else if (f[1] == "match")
      a.target = AllowTarget::kMatch;
    else if (f[1] == "line")
      a.target = AllowTarget::kLine;
    else
      throw std::invalid_argument(fmt::format("secret_allow.tsv line {}: target '{}'", line, f[1]));
    if (f[2] != "regex" && f[2] != "stopword")
      throw std::invalid_argument(fmt::format("secret_allow.tsv line {}: kind '{}'", line, f[2]));
    a.stopword = f[2] == "stopword";
    a.value = f[3];
    a.source = f[4];
    allows.push_back(std::move(a));
  });
  return allows;
}

const std::vector<SecretRule>& builtin_secret_rules() {
  static const std::vector<SecretRule> rules = parse_secret_rules(secret_rule_data::rules_tsv());
  return rules;
}

const std::vector<SecretAllow>& builtin_secret_allows() {
  static const std::vector<SecretAllow> allows = parse_secret_allows(secret_rule_data::allow_tsv());
  return allows;
}

const SecretRule* find_builtin_rule(std::string_view id) {
  const auto& rules = builtin_secret_rules();
  const auto it =
      std::find_if(rules.begin(), rules.end(), [&](const SecretRule& r) { return r.id == id; });
  return it == rules.end() ? nullptr : &*it;
}

}  // namespace helix

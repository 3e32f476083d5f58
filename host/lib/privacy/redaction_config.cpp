#include "privacy/redaction_config.hpp"

#include "privacy/base64.hpp"
#include "privacy/secret_rules.hpp"
#include "privacy/secret_sample.hpp"

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>
#include <functional>

namespace helix {
namespace {

// Random secrets of a high-confidence rule an allow pattern is tried on: one that keeps any of
// them keeps that rule's secrets wholesale.
constexpr int kProbesPerRule = 16;

RE2::Options options() {
  RE2::Options o;
  o.set_log_errors(false);
  return o;
}

bool valid_rule_id(std::string_view id) {
  return !id.empty() && id.size() <= 64 && std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
}

// Secrets `rule` redacts, made at random from its sample; for the base64 rule, the encodings of
// other rules' secrets in their context.
std::vector<std::string> probes(const SecretRule& rule) {
  std::mt19937_64 random(std::hash<std::string>{}(rule.id));
  std::vector<std::string> out;
  if (rule.decode_base64) {
    for (const auto& other : builtin_secret_rules())
      if (other.confidence == Confidence::kHigh && !other.decode_base64 && other.sample != "-" &&
          out.size() < kProbesPerRule)
        out.push_back(base64_encode(expand_secret_sample(other.sample, random).text));
    return out;
  }
  if (rule.sample == "-") return out;
  for (int i = 0; i < kProbesPerRule; ++i)
    out.push_back(expand_secret_sample(rule.sample, random).secret);
  return out;
}

}  // namespace

std::string redaction_rule_problem(const RedactionRuleConfig& rule) {
  if (!valid_rule_id(rule.id))
    return fmt::format("rule id '{}' must be 1 to 64 characters of a-z, 0-9, '-' and '_'", rule.id);
  if (find_builtin_rule(rule.id))
    return fmt::format("rule id '{}' is taken by a built-in rule; choose another id", rule.id);
  RE2 re(rule.regex, options());
  if (!re.ok())
    return fmt::format("the regex of rule '{}' is not valid RE2 syntax: {}", rule.id, re.error());
  if (rule.group < -1 || rule.group > re.NumberOfCapturingGroups())
    return fmt::format("rule '{}' names group {}, but its regex has {} capturing group(s)", rule.id,
                       rule.group, re.NumberOfCapturingGroups());
  return {};
}

std::string redaction_allow_problem(const RedactionAllowConfig& allow,
                                    const std::vector<RedactionRuleConfig>& configured) {
  if (allow.rules.empty())
    return "each entry must name the rules it exempts values of (rules = [\"<rule id>\", ...]): "
           "a pattern for every rule could switch redaction off";
  RE2 re(allow.regex, options());
  if (!re.ok()) return fmt::format("'{}' is not valid RE2 syntax: {}", allow.regex, re.error());
  for (const auto& id : allow.rules) {
    const SecretRule* rule = find_builtin_rule(id);
    if (!rule) {
      if (std::none_of(configured.begin(), configured.end(),
                       [&](const RedactionRuleConfig& c) { return c.id == id; }))
        return fmt::format(
            "there is no rule '{}' (the built-in ids are listed by "
            "host/lib/privacy/secret_rules.tsv; configured ones by "
            "[[redaction.rules]])",
            id);
      continue;
    }
    if (rule->confidence != Confidence::kHigh) continue;
    for (const auto& secret : probes(*rule))
      if (RE2::PartialMatch(secret, re))
        return fmt::format(
            "'{}' would keep any '{}' secret (it matches randomly made ones): a high-confidence "
            "rule can only exempt specific values; write the pattern for the values you mean "
            "(for example '^' and the start of one test key)",
            allow.regex, id);
  }
  return {};
}

std::string redaction_disable_problem(const std::string& id) {
  const SecretRule* rule = find_builtin_rule(id);
  if (!rule)
    return fmt::format(
        "there is no built-in rule '{}' (the ids are listed by "
        "host/lib/privacy/secret_rules.tsv)",
        id);
  if (rule->confidence == Confidence::kHigh)
    return fmt::format(
        "'{}' is a high-confidence rule (a token format) and cannot be switched "
        "off; keep specific values with [[redaction.allow]] rules = [\"{}\"] "
        "regex = '...'",
        id, id);
  return {};
}

}  // namespace helix

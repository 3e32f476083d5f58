// The configuration's [redaction] section, as plain values the config module fills and the
// redactor compiles, and the checks that explain a mistake in it.
#pragma once

#include <string>
#include <vector>

namespace helix {

// One rule of the configuration's [[redaction.rules]].
struct RedactionRuleConfig {
  std::string id, regex;
  int group = -1;  // the part replaced; -1: group 1 when the regex has one, else the whole match
};

// One [[redaction.allow]] entry: values of the named rules that are kept.
struct RedactionAllowConfig {
  std::vector<std::string> rules;  // rule ids, built-in or configured; at least one
  std::string regex;               // RE2; a secret it matches is kept
};

// The configuration's [redaction] section.
struct RedactionConfig {
  std::vector<std::string> disable;         // generic built-in rule ids switched off
  std::vector<RedactionAllowConfig> allow;  // values kept, rule by rule
  std::vector<RedactionRuleConfig> rules;   // extra rules, applied with the built-in ones
};

// Why a configured rule, allow entry or disabled id cannot be used, or "" when it can. An allow
// entry may exempt specific values only: one that keeps randomly generated secrets of a
// high-confidence rule (as ".*" or "^ghp_" would) is refused. A high-confidence rule cannot be
// disabled.
std::string redaction_rule_problem(const RedactionRuleConfig& rule);
std::string redaction_allow_problem(const RedactionAllowConfig& allow,
                                    const std::vector<RedactionRuleConfig>& configured);
std::string redaction_disable_problem(const std::string& id);

}  // namespace helix

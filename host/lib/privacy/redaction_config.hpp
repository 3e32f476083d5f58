// The configuration's [redaction] section, as plain values: the config module fills it, the
// redactor compiles it.
#pragma once

#include <string>
#include <vector>

namespace helix {

// One rule of the configuration's [[redaction.rules]].
struct RedactionRuleConfig {
  std::string id, regex;
  int group = -1;  // the part replaced; -1: group 1 when the regex has one, else the whole match
};

// The configuration's [redaction] section.
struct RedactionConfig {
  std::vector<std::string> disable;        // built-in rule ids switched off
  std::vector<std::string> allow;          // RE2 regexes; a secret one of them matches is kept
  std::vector<RedactionRuleConfig> rules;  // extra rules, applied with the built-in ones
};

}  // namespace helix

// The built-in secret rules and the values they never redact, as data: secret_rules.tsv and
// secret_allow.tsv (written by scripts/generate-secret-rules, compiled into the binary).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace helix {

enum class Confidence {
  kHigh,     // a token format: configuration can never switch it off
  kGeneric,  // a shape that needs a name or a context: [redaction] disable may switch it off
};

struct SecretRule {
  std::string id;
  Confidence confidence = Confidence::kHigh;
  int group = -1;              // -1: the first capture group that matched, else the whole match;
                               // 0: the whole match; N: capture group N
  double entropy = 0;          // a secret of this Shannon entropy (bits a byte) or less is kept
  bool decode_base64 = false;  // the match is decoded; redacted when another rule finds in it
  std::vector<std::string> keywords;  // lower case: the rule applies to texts holding one
  std::vector<std::string> required;  // lower case: every match holds one (a prefilter only)
  int context = 0;     // gitleaks' match starts up to this many [\w.-] before this rule's
  std::string regex;   // RE2, compiled in multi-line mode
  std::string sample;  // a text the rule redacts (secret_sample.hpp), or "-"
  std::string source;  // where the format comes from
};

enum class AllowTarget { kSecret, kMatch, kLine };

// A value that is never a secret.
struct SecretAllow {
  std::string rule;  // the rule it exempts from, or "*" for every rule
  AllowTarget target = AllowTarget::kSecret;
  bool stopword = false;  // value is a lower-case text the secret holds, not a regex
  std::string value, source;
};

const std::vector<SecretRule>& builtin_secret_rules();
const std::vector<SecretAllow>& builtin_secret_allows();

// The built-in rule with this id, or nullptr.
const SecretRule* find_builtin_rule(std::string_view id);

// The tables' formats (see the files' headers). Throw std::invalid_argument naming the line.
std::vector<SecretRule> parse_secret_rules(std::string_view tsv);
std::vector<SecretAllow> parse_secret_allows(std::string_view tsv);

}  // namespace helix

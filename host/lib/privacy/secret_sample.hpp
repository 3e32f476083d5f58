// A rule's sample (the sample column of secret_rules.tsv) made into a text the rule redacts:
// {N:[class]} stands for N random characters of the class, [[ ]] marks the secret, and a
// backslash escapes the next character (\n, \t and \r are control characters).
#pragma once

#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace helix {

struct SecretSample {
  std::string text;                       // the whole sample, context included
  std::string secret;                     // the parts between [[ and ]], joined
  std::vector<std::string> random_parts;  // the secret's random runs of 8 characters or more
};

// Throws std::invalid_argument for a template that does not follow the syntax above.
SecretSample expand_secret_sample(std::string_view sample, std::mt19937_64& random);

}  // namespace helix

// Test support: secrets to plant, made at test time from every built-in redaction rule's sample
// (host/lib/privacy/secret_rules.tsv) and from base64 encodings of some of them, so the
// repository holds no token-shaped strings; and the look-alikes no rule may touch
// (tests/fixtures/secrets/negatives.txt).
#pragma once

#include "privacy/base64.hpp"
#include "privacy/secret_rules.hpp"
#include "privacy/secret_sample.hpp"
#include "temp_dir.hpp"

#include <random>
#include <string>
#include <vector>

#ifndef HELIX_TEST_FIXTURE_DIR
#error "HELIX_TEST_FIXTURE_DIR must name tests/fixtures"
#endif

namespace helix::test {

struct PlantedSecret {
  std::string rule;    // the rule the sample was made for
  std::string text;    // the sample as it would appear (with its context, e.g. "password = ...")
  std::string secret;  // the part redaction must remove
  std::vector<std::string> random_parts;  // its random runs: none may survive anywhere
};

inline std::string unescape_newlines(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == 'n') {
      out += '\n';
      ++i;
    } else {
      out += s[i];
    }
  }
  return out;
}

inline PlantedSecret planted_from(const std::string& rule, const std::string& sample,
                                  std::mt19937_64& random) {
  SecretSample s = expand_secret_sample(sample, random);
  if (s.random_parts.empty() && s.secret.size() >= 8) s.random_parts.push_back(s.secret);
  return {rule, s.text, s.secret, s.random_parts};
}

// `inner` base64-encoded, as a config file or a Kubernetes secret holds it: the whole encoding
// is the secret; its random parts are 12-character runs of the encoding of the inner secret.
inline PlantedSecret base64_planted(const PlantedSecret& inner, std::size_t offset,
                                    std::size_t wrap = 0) {
  std::string plain = std::string(offset, '#') + inner.text + "\n";
  std::string encoded = base64_encode(plain);
  PlantedSecret p{"base64-encoded-secret", "", "", {}};
  const std::size_t begin = (offset + inner.text.find(inner.secret)) * 4 / 3 + 4;
  const std::size_t end = (offset + inner.text.find(inner.secret) + inner.secret.size()) * 4 / 3;
  for (std::size_t at = begin; at + 12 <= end; at += 12)
    if (!wrap || at / wrap == (at + 11) / wrap) p.random_parts.push_back(encoded.substr(at, 12));
  if (wrap)
    for (std::size_t at = wrap; at < encoded.size(); at += wrap + 1) encoded.insert(at, "\n");
  p.text = encoded;
  p.secret = encoded;
  return p;
}

// One secret per built-in rule that has a sample (seeded: the same seed gives the same
// secrets), then base64 encodings of a GitHub token, an Anthropic key and a PEM private key at
// each byte alignment, one of them wrapped at 76 columns as base64(1) writes it.
inline std::vector<PlantedSecret> planted_secrets(unsigned seed = 1) {
  std::mt19937_64 random(seed);
  std::vector<PlantedSecret> out;
  for (const auto& rule : builtin_secret_rules())
    if (rule.sample != "-") out.push_back(planted_from(rule.id, rule.sample, random));
  for (const char* id : {"github-pat", "anthropic-api-key", "private-key"})
    for (std::size_t offset = 0; offset < 3; ++offset)
      for (const auto& rule : builtin_secret_rules())
        if (rule.id == id)
          out.push_back(base64_planted(planted_from(rule.id, rule.sample, random), offset,
                                       std::string(id) == "private-key" && offset == 0 ? 76 : 0));
  return out;
}

inline std::vector<std::string> secret_lookalikes() {
  std::vector<std::string> out;
  const std::string text =
      read_file(std::string(HELIX_TEST_FIXTURE_DIR) + "/secrets/negatives.txt");
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line[0] != '#') out.push_back(unescape_newlines(line));
  }
  return out;
}

}  // namespace helix::test

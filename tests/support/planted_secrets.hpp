// Test support: the planted secrets of tests/fixtures/secrets (one sample per redaction rule,
// generated from templates with a fixed seed) and the look-alikes no rule may touch.
#pragma once

#include "temp_dir.hpp"

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef HELIX_TEST_FIXTURE_DIR
#error "HELIX_TEST_FIXTURE_DIR must name tests/fixtures"
#endif

namespace helix::test {

struct PlantedSecret {
  std::string rule;    // the rule id the sample was written for
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

inline const char* secret_alphabet(char cls) {
  switch (cls) {
    case 'a':
      return "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    case 'l':
      return "abcdefghijklmnopqrstuvwxyz";
    case 'd':
      return "0123456789";
    case 'h':
      return "0123456789abcdef";
    case 'u':
      return "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
    case 'b':
      return "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    case '2':
      return "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    case 'g':
      return "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L";
  }
  throw std::runtime_error(std::string("planted.tsv: unknown class ") + cls);
}

// Expands one template; `seed` makes every expansion distinct and reproducible.
inline PlantedSecret expand_planted(const std::string& rule, const std::string& tmpl,
                                    unsigned seed) {
  std::mt19937 rng(seed);
  PlantedSecret p{rule, "", "", {}};
  bool in_secret = false;
  const std::string t = unescape_newlines(tmpl);
  for (std::size_t i = 0; i < t.size();) {
    std::string piece;
    if (t.compare(i, 2, "[[") == 0 || t.compare(i, 2, "]]") == 0) {
      in_secret = t[i] == '[';
      i += 2;
      continue;
    }
    if (t[i] == '{') {
      const std::size_t colon = t.find(':', i), close = t.find('}', i);
      const int n = std::stoi(t.substr(i + 1, colon - i - 1));
      const std::string alphabet = secret_alphabet(t[colon + 1]);
      std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
      for (int k = 0; k < n; ++k) piece += alphabet[pick(rng)];
      if (n >= 10) p.random_parts.push_back(piece);
      i = close + 1;
    } else {
      piece = t[i++];
    }
    p.text += piece;
    if (in_secret) p.secret += piece;
  }
  return p;
}

// Every sample of planted.tsv, expanded with seeds base, base+1, ...
inline std::vector<PlantedSecret> planted_secrets(unsigned base_seed = 1) {
  std::vector<PlantedSecret> out;
  const std::string tsv = read_file(std::string(HELIX_TEST_FIXTURE_DIR) + "/secrets/planted.tsv");
  std::size_t pos = 0;
  unsigned seed = base_seed;
  while (pos < tsv.size()) {
    std::size_t end = tsv.find('\n', pos);
    if (end == std::string::npos) end = tsv.size();
    const std::string line = tsv.substr(pos, end - pos);
    pos = end + 1;
    if (line.empty() || line[0] == '#') continue;
    const std::size_t tab = line.find('\t');
    out.push_back(expand_planted(line.substr(0, tab), line.substr(tab + 1), seed++));
  }
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

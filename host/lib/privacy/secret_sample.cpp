#include "privacy/secret_sample.hpp"

#include <fmt/format.h>
#include <functional>

#include <stdexcept>

namespace helix {
namespace {

char escaped(char c) {
  switch (c) {
    case 'n':
      return '\n';
    case 't':
      return '\t';
    case 'r':
      return '\r';
    default:
      return c;
  }
}

// The characters of a class written as in a regex, without negation: a-z ranges, \ escapes.
std::string class_chars(std::string_view spec) {
  std::string chars;
  for (std::size_t i = 0; i < spec.size();) {
    char first = spec[i];
    if (first == '\\' && i + 1 < spec.size()) first = escaped(spec[++i]);
    ++i;
    if (i + 1 < spec.size() && spec[i] == '-') {
      char last = spec[i + 1];
      i += 2;
      if (last == '\\' && i < spec.size()) last = escaped(spec[i++]);
      for (int c = static_cast<unsigned char>(first); c <= static_cast<unsigned char>(last); ++c)
        chars += static_cast<char>(c);
    } else {
      chars += first;
    }
  }
  return chars;
}

}  // namespace

namespace {

// A "{N:[class]}" run at sample[i], expanded with random characters of the class; `i` moves
// past it.
std::string random_run(std::string_view sample, std::size_t& i, std::mt19937_64& random,
                       const std::function<std::invalid_argument(std::string_view)>& bad) {
  const std::size_t colon = sample.find(":[", i);
  const std::size_t class_end =
      colon == std::string_view::npos ? colon : sample.find("]}", colon + 2);
  if (class_end == std::string_view::npos) throw bad("an unterminated {N:[class]}");
  int count = 0;
  for (char c : sample.substr(i + 1, colon - i - 1)) {
    if (c < '0' || c > '9') throw bad("a run's length is not a number");
    count = count * 10 + (c - '0');
  }
  const std::string chars = class_chars(sample.substr(colon + 2, class_end - colon - 2));
  if (chars.empty()) throw bad("an empty class");
  std::uniform_int_distribution<std::size_t> pick(0, chars.size() - 1);
  std::string piece;
  for (int k = 0; k < count; ++k) piece += chars[pick(random)];
  i = class_end + 2;
  return piece;
}

// The secret being expanded: its text, and its random runs (adjacent runs count as one).
struct SecretBuilder {
  SecretSample& out;
  std::string run;

  void add(const std::string& piece, bool random_piece) {
    out.secret += piece;
    if (random_piece)
      run += piece;
    else
      end_run();
  }
  void end_run() {
    if (run.size() >= 8) out.random_parts.push_back(run);
    run.clear();
  }
};

}  // namespace

SecretSample expand_secret_sample(std::string_view sample, std::mt19937_64& random) {
  const std::function<std::invalid_argument(std::string_view)> bad = [&](std::string_view why) {
    return std::invalid_argument(fmt::format("secret sample '{}': {}", sample, why));
  };
  SecretSample out;
  SecretBuilder secret{out, {}};
  bool in_secret = false;
  for (std::size_t i = 0; i < sample.size();) {
    if (sample.compare(i, 2, "[[") == 0 || sample.compare(i, 2, "]]") == 0) {
      in_secret = sample[i] == '[';
      secret.end_run();
      i += 2;
      continue;
    }
    std::string piece;
    const bool random_piece = sample[i] == '{';
    if (random_piece) {
      piece = random_run(sample, i, random, bad);
    } else if (sample[i] == '\\' && i + 1 < sample.size()) {
      piece = escaped(sample[i + 1]);
      i += 2;
    } else {
      piece = sample[i++];
    }
    out.text += piece;
    if (in_secret) secret.add(piece, random_piece);
  }
  secret.end_run();
  return out;
}

}  // namespace helix

// json_spans.cpp: a structural scan (strings, nesting, separators) that never builds values.
#include "json_spans.hpp"

namespace gemini {
namespace {

class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  bool done() const { return pos_ >= text_.size(); }
  std::size_t pos() const { return pos_; }
  char peek() const { return done() ? '\0' : text_[pos_]; }

  void skip_space() {
    while (!done() && (peek() == ' ' || peek() == '\t' || peek() == '\r' || peek() == '\n')) ++pos_;
  }

  bool take(char c) {
    skip_space();
    if (peek() != c) return false;
    ++pos_;
    return true;
  }

  // A string at the cursor; returns its raw (still escaped) content.
  bool string(std::string_view& raw) {
    skip_space();
    if (peek() != '"') return false;
    const std::size_t start = ++pos_;
    while (!done() && peek() != '"') pos_ += peek() == '\\' ? 2 : 1;
    if (done()) return false;
    raw = text_.substr(start, pos_++ - start);
    return true;
  }

  // Skips one value of any kind: a container by counting brackets outside strings.
  bool value() {
    skip_space();
    const char c = peek();
    if (c == '"') {
      std::string_view ignored;
      return string(ignored);
    }
    if (c != '{' && c != '[') {
      while (!done() && peek() != ',' && peek() != '}' && peek() != ']' && peek() != ' ' &&
             peek() != '\n' && peek() != '\r' && peek() != '\t')
        ++pos_;
      return true;
    }
    int depth = 0;
    while (!done()) {
      const char d = peek();
      if (d == '"') {
        std::string_view ignored;
        if (!string(ignored)) return false;
        continue;
      }
      ++pos_;
      if (d == '{' || d == '[') ++depth;
      if ((d == '}' || d == ']') && --depth == 0) return true;
    }
    return false;
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

// Moves the cursor to the value of `key` in the object at the cursor.
bool find_member(Scanner& s, std::string_view key) {
  if (!s.take('{')) return false;
  if (s.take('}')) return false;
  do {
    std::string_view name;
    if (!s.string(name) || !s.take(':')) return false;
    if (name == key) return true;
    if (!s.value()) return false;
  } while (s.take(','));
  return false;
}

}  // namespace

std::vector<Span> array_element_spans(std::string_view json,
                                      std::initializer_list<std::string_view> path) {
  Scanner s(json);
  for (std::string_view key : path)
    if (!find_member(s, key)) return {};
  std::vector<Span> spans;
  if (!s.take('[') || s.take(']')) return spans;
  do {
    s.skip_space();
    Span span{s.pos(), 0};
    if (!s.value()) break;
    span.end = s.pos();
    spans.push_back(span);
  } while (s.take(','));
  return spans;
}

}  // namespace gemini

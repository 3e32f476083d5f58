// helix/document.hpp: the byte span of each record inside a whole JSON document, for DOCUMENT
// adapters that need each record's source_offset and payload (C++17, no dependencies).
//
//   auto spans = helix::document::array_elements(doc, "messages");
//   if (!spans) throw std::runtime_error("torn or invalid document");  // fails the call
//   for (auto span : *spans) { ... span.begin is the record's offset, span.text(doc) its bytes }
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace helix::document {

// [begin, end) in bytes of the document.
struct Span {
  std::size_t begin = 0, end = 0;
  std::string_view text(std::string_view doc) const { return doc.substr(begin, end - begin); }
};

namespace detail {

// A structural JSON scanner: it checks that brackets, strings, separators and literals are
// well formed and records where values start and end, without building them.
class Scanner {
 public:
  static constexpr int kMaxDepth = 512;
  explicit Scanner(std::string_view doc) : doc_(doc) {}

  // Skips one value; false when it is malformed or cut short.
  bool value(int depth = 0) {
    skip_space();
    if (pos_ >= doc_.size() || depth > kMaxDepth) return false;
    switch (doc_[pos_]) {
      case '{':
        return container('}', depth, true);
      case '[':
        return container(']', depth, false);
      case '"':
        return string();
      default:
        return literal();
    }
  }
  // Skips the string at pos_ and returns its raw contents (escapes not decoded).
  bool string(std::string_view* contents = nullptr) {
    const std::size_t open = pos_++;
    while (pos_ < doc_.size()) {
      const char c = doc_[pos_++];
      if (c == '\\') {
        ++pos_;
      } else if (c == '"') {
        if (contents) *contents = doc_.substr(open + 1, pos_ - open - 2);
        return pos_ <= doc_.size();
      } else if (static_cast<unsigned char>(c) < 0x20) {
        return false;
      }
    }
    return false;
  }
  void skip_space() {
    while (pos_ < doc_.size() &&
           (doc_[pos_] == ' ' || doc_[pos_] == '\n' || doc_[pos_] == '\r' || doc_[pos_] == '\t'))
      ++pos_;
  }
  // At `c` (after blanks): consumes it.
  bool take(char c) {
    skip_space();
    if (pos_ >= doc_.size() || doc_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  bool at_end() {
    skip_space();
    return pos_ == doc_.size();
  }
  std::size_t pos() const { return pos_; }
  bool peek(char c) {
    skip_space();
    return pos_ < doc_.size() && doc_[pos_] == c;
  }

 private:
  bool container(char close, int depth, bool object) {
    ++pos_;
    if (take(close)) return true;
    do {
      if (object) {
        skip_space();
        if (pos_ >= doc_.size() || doc_[pos_] != '"' || !string() || !take(':')) return false;
      }
      if (!value(depth + 1)) return false;
    } while (take(','));
    return take(close);
  }
  bool literal() {
    const std::size_t start = pos_;
    while (pos_ < doc_.size() && (std::string_view("+-.0123456789eEtruefalsn").find(doc_[pos_]) !=
                                  std::string_view::npos))
      ++pos_;
    const std::string_view word = doc_.substr(start, pos_ - start);
    return word == "true" || word == "false" || word == "null" || number(word);
  }
  // -?digits(.digits)?([eE][+-]?digits)? (JSON's number; JavaScript writes 1e-7 and 1e+21).
  static bool number(std::string_view w) {
    std::size_t i = 0;
    auto digits = [&] {
      const std::size_t from = i;
      while (i < w.size() && w[i] >= '0' && w[i] <= '9') ++i;
      return i > from;
    };
    if (i < w.size() && w[i] == '-') ++i;
    if (!digits()) return false;
    if (i < w.size() && w[i] == '.' && (++i, !digits())) return false;
    if (i < w.size() && (w[i] == 'e' || w[i] == 'E')) {
      ++i;
      if (i < w.size() && (w[i] == '+' || w[i] == '-')) ++i;
      if (!digits()) return false;
    }
    return i == w.size();
  }

  std::string_view doc_;
  std::size_t pos_ = 0;
};

// At '[': scans the array, adding each element's span to `spans`; false when it is malformed.
inline bool element_spans(Scanner& s, std::vector<Span>& spans) {
  s.take('[');
  if (s.take(']')) return true;
  do {
    s.skip_space();
    const std::size_t begin = s.pos();
    if (!s.value(1)) return false;
    spans.push_back({begin, s.pos()});
  } while (s.take(','));
  return s.take(']');
}

// Scans the document's top-level object, adding the element spans of the first array under
// `key` to `spans`; false when it is no object or is malformed.
inline bool member_element_spans(Scanner& s, std::string_view key, std::vector<Span>& spans) {
  if (!s.take('{')) return false;
  if (s.take('}')) return true;
  do {
    std::string_view name;
    s.skip_space();
    if (!s.peek('"') || !s.string(&name) || !s.take(':')) return false;
    const bool wanted = name == key && s.peek('[') && spans.empty();
    if (wanted ? !element_spans(s, spans) : !s.value(1)) return false;
  } while (s.take(','));
  return s.take('}');
}

}  // namespace detail

// The spans of the elements of the array under `key` in the document's top-level object, or of
// the document itself when `key` is empty and the document is an array. An absent key gives no
// spans. std::nullopt when the document is not one complete, well-formed JSON value (a writer
// that rewrites the file in place can leave it torn): fail the parse then, so the host keeps
// what it stored from the last complete document.
inline std::optional<std::vector<Span>> array_elements(std::string_view doc,
                                                       std::string_view key = {}) {
  detail::Scanner s(doc);
  std::vector<Span> spans;
  const bool scanned = key.empty() ? s.peek('[') && detail::element_spans(s, spans)
                                   : detail::member_element_spans(s, key, spans);
  if (!scanned || !s.at_end()) return std::nullopt;
  return spans;
}

// True when `doc` is one complete, well-formed JSON value (structure only).
inline bool is_complete(std::string_view doc) {
  detail::Scanner s(doc);
  return s.value() && s.at_end();
}

}  // namespace helix::document

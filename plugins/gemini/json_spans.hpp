// json_spans.hpp: where each element of a JSON array lies in the text, so that a message inside
// a document (or inside a {"$set":{"messages":[...]}} line) gets its own byte offset and payload.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string_view>
#include <vector>

namespace gemini {

struct Span {
  std::size_t begin = 0, end = 0;  // [begin, end) in the scanned text
};

// The spans of the elements of the array reached from the top-level object by `path` (a key
// per level, e.g. {"messages"} or {"$set", "messages"}); empty when the path does not lead to an
// array. Meant for text Boost.JSON already accepted: on malformed input it stops early and
// returns what it found, never reading past the text.
std::vector<Span> array_element_spans(std::string_view json,
                                      std::initializer_list<std::string_view> path);

}  // namespace gemini

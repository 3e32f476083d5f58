// Semantic version helpers: plugins and digests compare versions by their major number.
#pragma once

#include <string>
#include <string_view>

namespace helix {

// The major number of a semantic version ("2.1.0" -> "2"); the whole text when it has no dot.
inline std::string major_version(std::string_view version) {
  return std::string(version.substr(0, version.find('.')));
}

}  // namespace helix

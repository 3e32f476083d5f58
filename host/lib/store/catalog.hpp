// What the store holds, as the command line names it: sessions found from what a user types
// (a prefix, the agent's own id), the flavors and repositories present, and stored warnings.
#pragma once

#include "store/store.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace helix {

// The uids of the sessions `ref` names, best match first, at most `limit`: the exact uid; else
// "flavor:prefix" of a uid; else the agent's own (native) id exactly; else a prefix of the
// native id or of the uid. More than one = ambiguous; none = no such session.
std::vector<std::string> sessions_matching(Store& store, std::string_view ref, int64_t limit);

// Every session uid, sorted (for the shortest unambiguous prefixes a listing shows).
std::vector<std::string> all_session_uids(Store& store);

// The distinct flavors and repositories of the stored sessions, sorted.
std::vector<std::string> stored_flavors(Store& store);
std::vector<std::string> stored_repos(Store& store);

struct WarningRow {
  std::string category, message, source_path;
  int64_t source_offset = 0, at_ms = 0;
};
struct WarningCount {
  std::string category;
  int64_t count = 0;
};

// The stored warnings per category (most frequent first).
std::vector<WarningCount> warning_counts(Store& store);
// The warnings of `category` ("" = every category), newest first, at most `limit` per category.
void for_each_warning(Store& store, std::string_view category, int64_t limit,
                      const std::function<void(const WarningRow&)>& visit);

}  // namespace helix

// Whether another user could change a file helix-host trusts (its plugins, its configuration),
// judged as ssh and sudo judge theirs.
#pragma once

#include <sys/stat.h>

#include <string>
#include <string_view>

namespace helix {

// Why a user other than this one or root could change `path` (a `what`, as `st` describes it):
// it belongs to such a user, or its group or everyone may write it. The reason names the fix
// and says what that user could then do (`stake`, e.g. "could change the code helix-host
// runs"). "" when nobody else can.
std::string changeable_by_others(const struct stat& st, std::string_view what,
                                 const std::string& path, std::string_view stake);

}  // namespace helix

// This machine's identity in the fleet: a random id generated once and kept in a file, and the
// machine's name as people know it.
#pragma once

#include <filesystem>
#include <string>

namespace helix {

// The host id kept in `file` (32 hex digits), created on first use (0600, its directory 0700):
// two processes creating it at once agree on one. "" = $XDG_STATE_HOME/helix/host-id. Throws
// std::runtime_error naming the file when it cannot be read or written, or holds something else.
std::string load_or_create_host_id(const std::string& file);

// The default place of the host id file.
std::filesystem::path default_host_id_file();

// gethostname(), for people to tell hosts apart (the id is what identifies them).
std::string host_name();

}  // namespace helix

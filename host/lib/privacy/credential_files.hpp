// Credential files (agent logins, keys, tokens) that helix-host never opens (design §9).
#pragma once

#include <string>

namespace helix {

// True for file names that hold credentials (auth.json, .credentials.json, keys, tokens...).
bool is_credential_file(std::string_view file_name);

// True when the file's name, or a directory on its path (.ssh, .gnupg, .aws...), says it holds
// credentials. Decided from the path alone, without opening anything.
bool is_credential_path(const std::string& path);

}  // namespace helix

#include "credential_files.hpp"

#include <fnmatch.h>

namespace helix {

bool is_credential_file(const std::string& name) {
  // Agent logins (Claude .credentials.json, Codex and Grok auth.json, Gemini oauth_creds.json),
  // SSH and TLS keys, token files, and the usual homes of passwords and registry tokens.
  static const char* const kPatterns[] = {
      ".credentials.json", "*credentials*.json", "credentials", "auth.json", "*auth*.json",
      "oauth*.json", "client_secret*.json", "token.json", "tokens.json", "*.token", "*_token",
      ".netrc", "_netrc", ".env", ".env.*", ".git-credentials", ".npmrc", ".pypirc", ".pgpass",
      ".my.cnf", "*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.kdbx",
      "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", "*.gpg", "secring.*"};
  for (const char* p : kPatterns)
    if (fnmatch(p, name.c_str(), FNM_CASEFOLD) == 0) return true;
  return false;
}

bool is_credential_path(const std::filesystem::path& path) {
  static const char* const kDirectories[] = {".ssh", ".gnupg", ".aws", ".azure", ".kube",
                                             ".docker", ".password-store"};
  for (const auto& part : path.parent_path())
    for (const char* d : kDirectories)
      if (part == d) return true;
  return is_credential_file(path.filename().string());
}

}  // namespace helix

#include "privacy/credential_files.hpp"

#include <fnmatch.h>
#include <algorithm>
#include <array>

namespace helix {
namespace {

// Agent logins (Claude .credentials.json, Codex and Grok auth.json, Gemini oauth_creds.json),
// SSH and TLS keys, token files, and the usual homes of passwords and registry tokens.
constexpr const char* kPatterns[] = {".credentials.json",
                                     "*credentials*.json",
                                     "credentials",
                                     "auth.json",
                                     "*auth*.json",
                                     "oauth*.json",
                                     "client_secret*.json",
                                     "token.json",
                                     "tokens.json",
                                     "*.token",
                                     "*_token",
                                     ".netrc",
                                     "_netrc",
                                     ".env",
                                     ".env.*",
                                     ".git-credentials",
                                     ".npmrc",
                                     ".pypirc",
                                     ".pgpass",
                                     ".my.cnf",
                                     "*.pem",
                                     "*.key",
                                     "*.p12",
                                     "*.pfx",
                                     "*.jks",
                                     "*.keystore",
                                     "*.kdbx",
                                     "id_rsa*",
                                     "id_dsa*",
                                     "id_ecdsa*",
                                     "id_ed25519*",
                                     "*.gpg",
                                     "secring.*"};

constexpr const char* kDirectories[] = {".ssh",  ".gnupg",  ".aws",           ".azure",
                                        ".kube", ".docker", ".password-store"};

// The literal text a pattern starts and ends with (before its first wildcard, after its
// last): an ASCII name matches the pattern only if it starts and ends with them, case aside.
// Checking that first spares fnmatch for nearly every name (a sweep asks for every file).
struct Affixes {
  std::string_view prefix, suffix;
};

Affixes affixes_of(std::string_view pattern) {
  const auto first = pattern.find_first_of("*?[\\");
  const auto last = pattern.find_last_of("*?[]\\");
  return {pattern.substr(0, first),
          last == std::string_view::npos ? pattern : pattern.substr(last + 1)};
}

char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool iequal(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return ascii_lower(x) == ascii_lower(y);
         });
}

bool may_match(const Affixes& a, std::string_view name) {
  return name.size() >= a.prefix.size() && name.size() >= a.suffix.size() &&
         iequal(name.substr(0, a.prefix.size()), a.prefix) &&
         iequal(name.substr(name.size() - a.suffix.size()), a.suffix);
}

bool is_ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return (c & 0x80) == 0; });
}

}  // namespace

bool is_credential_file(std::string_view name) {
  static const auto kAffixes = [] {
    std::array<Affixes, std::size(kPatterns)> out;
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = affixes_of(kPatterns[i]);
    return out;
  }();
  // Outside ASCII, case folding is the locale's: fnmatch decides every pattern.
  const bool ascii = is_ascii(name);
  std::string terminated;  // fnmatch's copy of the name, made only for a possible match
  for (std::size_t i = 0; i < kAffixes.size(); ++i) {
    if (ascii && !may_match(kAffixes[i], name)) continue;
    if (terminated.empty()) terminated.assign(name);
    if (fnmatch(kPatterns[i], terminated.c_str(), FNM_CASEFOLD) == 0) return true;
  }
  return false;
}

bool is_credential_path(const std::string& path) {
  const std::string_view p(path);
  const auto slash = p.rfind('/');
  const std::string_view file_name = slash == std::string_view::npos ? p : p.substr(slash + 1);
  const std::string_view parent = slash == std::string_view::npos ? "" : p.substr(0, slash);
  for (std::size_t pos = 0; pos < parent.size();) {  // each directory on the path, once
    auto end = std::min(parent.find('/', pos), parent.size());
    const std::string_view part = parent.substr(pos, end - pos);
    for (const char* d : kDirectories)
      if (part == d) return true;
    pos = end + 1;
  }
  return is_credential_file(file_name);
}

}  // namespace helix

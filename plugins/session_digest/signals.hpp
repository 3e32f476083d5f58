// Text signals of the digest: KeiSeiKit's event classes (MEMORY-FORMAT.md §1d), error
// fingerprints and short snippets.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace session_digest {

// The KeiSeiKit classes a tool output or error text belongs to, from its first 64 KiB:
// permission_denied (/permission\s+denied/i, "permission ... was denied" within one clause, and
// the rejections agents write: "tool use was rejected", "command rejected", "patch rejected"),
// worktree_error (worktree.*(error|denied|fail)),
// cargo_workspace (cargo.*workspace), retry_loop (retry|retrying|attempt \d+).
std::vector<std::string_view> text_classes(std::string_view text);

// A refused permission in an intervention's summary (Grok's permission_resolved deny).
bool is_permission_refusal(std::string_view summary);

// user_correction: a prompt saying "again", "опять" or "stop doing" (KeiSeiKit §1d).
bool is_user_correction(std::string_view prompt);

// The text folded to one line (runs of whitespace become one space) and cut to at most
// `max_bytes` without splitting a UTF-8 character.
std::string snippet(std::string_view text, std::size_t max_bytes);

// A stable 16-hex-digit fingerprint of an error: its tool and its first line with digits,
// hex ids and quoted paths masked, so the same failure with other numbers groups together.
std::string error_fingerprint(std::string_view tool, std::string_view text);

// FNV-1a 64 of `text`, continuing from `h`: a hash that is the same in every build and on every
// machine (std::hash is not), so it can be stored.
inline constexpr uint64_t kFnvBasis = 1469598103934665603ull;
uint64_t fnv1a64(std::string_view text, uint64_t h = kFnvBasis);

}  // namespace session_digest

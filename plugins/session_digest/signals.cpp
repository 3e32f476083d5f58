#include "signals.hpp"

#include <cctype>
#include <cstdint>
#include <cstdio>

namespace session_digest {
namespace {

constexpr std::size_t kScanBytes =
    std::size_t{64} * 1024;  // classes are decided by a text's beginning

std::string lower(std::string_view text) {
  std::string out(text.substr(0, kScanBytes));
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool has(std::string_view text, std::string_view word) {
  return text.find(word) != std::string_view::npos;
}

// /permission\s+denied/, or "permission" and "denied" within one short clause (Claude Code's
// "Permission for this tool use was denied"), or an agent's rejection of a call.
bool permission_denied(std::string_view t) {
  constexpr std::size_t kClause = 40;
  for (auto at = t.find("permission"); at != std::string_view::npos;
       at = t.find("permission", at + 1)) {
    const std::string_view rest = t.substr(at + 10, kClause);
    const auto denied = rest.find("denied");
    if (denied != std::string_view::npos &&
        rest.substr(0, denied).find_first_of(".\n") == std::string_view::npos)
      return true;
  }
  for (std::string_view rejected : {"tool use was rejected", "command rejected", "patch rejected"})
    if (has(t, rejected)) return true;
  return false;
}

// /attempt \d+/
bool attempt_number(std::string_view t) {
  for (auto at = t.find("attempt "); at != std::string_view::npos; at = t.find("attempt ", at + 1))
    if (at + 8 < t.size() && std::isdigit(static_cast<unsigned char>(t[at + 8]))) return true;
  return false;
}

// /a.*(b|c|d)/: one of the words somewhere after `first`.
bool followed_by(std::string_view t, std::string_view first,
                 std::initializer_list<std::string_view> then) {
  auto at = t.find(first);
  if (at == std::string_view::npos) return false;
  auto rest = t.substr(at + first.size());
  for (auto w : then)
    if (has(rest, w)) return true;
  return false;
}

}  // namespace

bool is_permission_refusal(std::string_view summary) {
  const std::string t = lower(summary);
  return has(t, "permission") && (has(t, "deny") || has(t, "denied") || has(t, "reject"));
}

std::vector<std::string_view> text_classes(std::string_view text) {
  const std::string t = lower(text);
  std::vector<std::string_view> out;
  if (permission_denied(t)) out.push_back("permission_denied");
  if (followed_by(t, "worktree", {"error", "denied", "fail"})) out.push_back("worktree_error");
  if (followed_by(t, "cargo", {"workspace"})) out.push_back("cargo_workspace");
  if (has(t, "retry") || attempt_number(t)) out.push_back("retry_loop");  // "retrying" too
  return out;
}

bool is_user_correction(std::string_view prompt) {
  const std::string t = lower(prompt);
  // "опять" is matched in both cases of its first letter; tolower() leaves UTF-8 alone.
  for (std::string_view w : {"again", "stop doing", "опять", "Опять"})
    if (has(t, w)) return true;
  return false;
}

namespace {
// Drops a UTF-8 character at the end of `out` that a cut went through.
void drop_cut_character(std::string& out) {
  std::size_t lead = out.size();
  while (lead > 0 && (static_cast<unsigned char>(out[lead - 1]) & 0xC0) == 0x80) --lead;
  if (lead == 0) return;
  const auto b = static_cast<unsigned char>(out[lead - 1]);
  const std::size_t need = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
  if (out.size() - (lead - 1) < need) out.resize(lead - 1);
}
}  // namespace

std::string snippet(std::string_view text, std::size_t max_bytes) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (out.size() + (space ? 1 : 0) >= max_bytes) {
      drop_cut_character(out);
      break;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::string error_fingerprint(std::string_view tool, std::string_view text) {
  auto start = text.find_first_not_of(" \t\r\n");
  text = start == std::string_view::npos ? std::string_view() : text.substr(start);
  text = text.substr(0, std::min(text.find('\n'), std::size_t{300}));
  std::string shape(tool);
  shape += '|';
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (std::isdigit(c) ||
        (std::isxdigit(c) && i + 1 < text.size() &&
         std::isxdigit(static_cast<unsigned char>(text[i + 1])) && shape.back() == '#')) {
      if (shape.back() != '#') shape += '#';  // numbers and the hex ids that follow a digit
      continue;
    }
    shape += static_cast<char>(std::tolower(c));
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a64(shape)));
  return hex;
}

uint64_t fnv1a64(std::string_view text, uint64_t h) {
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace session_digest

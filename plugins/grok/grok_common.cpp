// Shared helpers of the Grok Build adapter: source paths, cwd decoding, stable uids, text.
#include "grok_common.hpp"

#include <cctype>

namespace grok {
namespace {

std::string_view last_segment(std::string_view path) {
  auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string_view parent_of(std::string_view path) {
  auto slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// Grok's encode_cwd_dirname step 1 (urlencoding::encode): RFC 3986 unreserved bytes kept,
// every other byte as upper-case %XX.
std::string url_encode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += c;
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    }
  }
  return out;
}

uint64_t fnv1a(std::string_view text) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

}  // namespace

SourcePath split_source_path(std::string_view path) {
  SourcePath source;
  source.file_name = last_segment(path);
  const std::string_view dir = parent_of(path);
  if (source.file_name == "prompt_history.jsonl" || source.file_name == ".cwd") {
    source.group = last_segment(dir);
  } else {
    source.session_id = last_segment(dir);
    source.group = last_segment(parent_of(dir));
  }
  return source;
}

std::string decode_cwd_dirname(std::string_view group) {
  std::string decoded;
  for (std::size_t i = 0; i < group.size(); ++i) {
    if (group[i] != '%') {
      decoded += group[i];
      continue;
    }
    if (i + 2 >= group.size()) return {};
    const int high = hex_value(group[i + 1]), low = hex_value(group[i + 2]);
    if (high < 0 || low < 0) return {};
    decoded += static_cast<char>(high * 16 + low);
    i += 2;
  }
  const bool posix = !decoded.empty() && decoded[0] == '/';
  const bool windows = decoded.size() >= 3 &&
                       std::isalpha(static_cast<unsigned char>(decoded[0])) && decoded[1] == ':' &&
                       (decoded[2] == '\\' || decoded[2] == '/');
  // Only a canonical encoding is certain: the hashed long form ("slug-<blake3>") decodes to a
  // relative name, and a name that does not re-encode to itself was not written by Grok.
  if (!(posix || windows) || url_encode(decoded) != group) return {};
  return decoded;
}

std::string fingerprint(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  uint64_t hash = fnv1a(text);
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, hash >>= 4) out[static_cast<std::size_t>(i)] = kHex[hash & 15];
  return out;
}

uint32_t uid_ordinal(std::string_view uid) {
  constexpr uint64_t kFirst = 0x10000, kSpan = 0xFFFFFFFFULL - kFirst;
  return static_cast<uint32_t>(kFirst + fnv1a(uid) % kSpan);
}

std::string prompt_uid(int64_t prompt_index, std::string_view text) {
  return "prompt-" + std::to_string(prompt_index) + "-" + fingerprint(trim(text));
}
std::string reply_uid(int64_t prompt_index, std::string_view text) {
  return "reply-" + std::to_string(prompt_index) + "-" + fingerprint(trim(text));
}
std::string thought_uid(int64_t prompt_index, std::string_view text) {
  return "thought-" + std::to_string(prompt_index) + "-" + fingerprint(trim(text));
}
std::string result_uid(std::string_view call_id) { return std::string(call_id) + "/result"; }

std::string_view trim(std::string_view text) {
  const auto space = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

std::string_view unwrap_user_query(std::string_view text) {
  constexpr std::string_view kOpen = "<user_query>", kClose = "</user_query>";
  const auto open = text.find(kOpen);
  const auto close = text.rfind(kClose);
  if (open == std::string_view::npos || close == std::string_view::npos || close < open)
    return trim(text);
  return trim(text.substr(open + kOpen.size(), close - open - kOpen.size()));
}

std::string_view first_line(std::string_view text) {
  text = trim(text);
  return text.substr(0, text.find('\n'));
}

std::string content_text(const boost::json::value* content, bool mark_images) {
  if (!content) return {};
  if (auto* s = content->if_string()) return std::string(s->data(), s->size());
  if (auto* block = content->if_object()) {
    const std::string_view type = helix::json::str(*block, "type");
    if (type == "text" || type.empty()) return std::string(helix::json::str(*block, "text"));
    if (type == "content") return content_text(block->if_contains("content"), mark_images);
    return mark_images && type == "image" ? "[image]" : "";
  }
  std::string out;
  if (auto* blocks = content->if_array())
    for (const auto& part : *blocks) out += content_text(&part, mark_images);
  return out;
}

std::string json_text(const boost::json::value* value) {
  if (!value || value->is_null()) return {};
  if (auto* s = value->if_string()) return std::string(s->data(), s->size());
  return boost::json::serialize(*value);
}

helix::Usage normalized_usage(const boost::json::object& totals) {
  using helix::json::num;
  helix::Usage usage;
  usage.cache_read_tokens = num(totals, "cachedReadTokens");
  usage.cache_creation_tokens = num(totals, "cacheCreationTokens");
  const int64_t uncached =
      num(totals, "inputTokens") - usage.cache_read_tokens - usage.cache_creation_tokens;
  usage.input_tokens = uncached < 0 ? 0 : uncached;
  usage.output_tokens = num(totals, "outputTokens");
  usage.reasoning_tokens = num(totals, "reasoningTokens");
  if (auto* ticks = totals.if_contains("costUsdTicks"); ticks && !ticks->is_null())
    usage.cost_usd = helix::json::real(ticks) / 1e10;
  return usage;
}

void for_each_record(helix::ParseContext& ctx, helix::json::LineParser& parser,
                     std::string_view line, uint64_t offset, const RecordFn& on_record) {
  std::size_t error_at = 0;
  const std::string error = parser.parse(
      line,
      [&](const boost::json::value& value, std::size_t at) {
        if (auto* object = value.if_object())
          on_record(*object, line.substr(at, parser.value_end() - at), offset + at);
        else
          ctx.warn(offset + at, "not_an_object", "a record that is not a JSON object");
      },
      &error_at);
  if (!error.empty()) ctx.warn(offset + error_at, "invalid_json", error);
}

}  // namespace grok

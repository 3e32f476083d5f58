// The write side of full-text search (see search_index.hpp).
#include "store/search_index.hpp"

#include <sqlite3.h>

#include <array>
#include <boost/json.hpp>
#include <cctype>
#include <stdexcept>

#include "base/text.hpp"
#include "model/payload_pack.hpp"

namespace helix {
namespace {

// One event's indexed text is capped: a pasted log or a whole written file adds little to
// recall and much to the index.
constexpr std::size_t kMaxIndexedBytes = std::size_t{32} * 1024;
constexpr std::size_t kTitleChars = 80;

std::string_view capped(std::string_view text) {
  if (text.size() <= kMaxIndexedBytes) return text;
  std::size_t end = kMaxIndexedBytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;  // UTF-8
  return text.substr(0, end);
}

void string_leaves(const boost::json::value& v, std::string& out) {
  if (v.is_string()) {
    if (!out.empty()) out += '\n';
    out += v.as_string();
  } else if (v.is_object()) {
    for (const auto& [key, member] : v.as_object()) string_leaves(member, out);
  } else if (v.is_array()) {
    for (const auto& item : v.as_array()) string_leaves(item, out);
  }
}

// Tool arguments often arrive as a JSON object (Claude's Write, Grok's commands): index their
// string values, so that escaped newlines do not glue words together ("\nPermission").
std::string searchable_text(std::string_view text) {
  if (text.empty() || (text.front() != '{' && text.front() != '[')) return std::string(text);
  boost::system::error_code ec;
  const boost::json::value v = boost::json::parse(text, ec);
  if (ec) return std::string(text);
  std::string out;
  string_leaves(v, out);
  return out;
}

// helix_search_body(pack, text_off, text_len). Deleting an event's rows decompresses its pack
// once per pack, not once per event: the last pack is kept, recognised by its bytes (a pack's
// id can be reused once it is deleted, its bytes cannot be confused).
struct PackCache {
  std::string packed, raw;

  const std::string& unpack(std::string_view blob) {
    if (blob == packed) return raw;
    raw = unpack_payload(blob);
    packed.assign(blob);
    return raw;
  }
};

std::string body_from_pack(PackCache& cache, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[2]) == SQLITE_NULL) return {};  // a tool call without text
  if (sqlite3_value_type(argv[0]) != SQLITE_BLOB)
    throw std::runtime_error(
        "an event's text is missing from the store (its payload pack is gone); the store is "
        "damaged");
  const auto* data = static_cast<const char*>(sqlite3_value_blob(argv[0]));
  const std::string& raw =
      cache.unpack(std::string_view(data, static_cast<std::size_t>(sqlite3_value_bytes(argv[0]))));
  const sqlite3_int64 off = sqlite3_value_int64(argv[1]), len = sqlite3_value_int64(argv[2]);
  if (off < 0 || len < 0 || off + len > static_cast<sqlite3_int64>(raw.size()))
    throw std::runtime_error("an event's text lies outside its payload pack; the store is damaged");
  return indexed_body(
      std::string_view(raw).substr(static_cast<std::size_t>(off), static_cast<std::size_t>(len)));
}

// helix_spaceless(text): has_spaceless_script for the schema's trigger and migration.
void spaceless(sqlite3_context* ctx, int, sqlite3_value** argv) {
  const auto* text = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
  const int bytes = sqlite3_value_bytes(argv[0]);
  sqlite3_result_int(
      ctx, text && has_spaceless_script(std::string_view(text, static_cast<std::size_t>(bytes))));
}

void search_body(sqlite3_context* ctx, int, sqlite3_value** argv) {
  try {
    const std::string body = body_from_pack(*static_cast<PackCache*>(sqlite3_user_data(ctx)), argv);
    sqlite3_result_text64(ctx, body.data(), body.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  } catch (const std::exception& e) {  // never across SQLite's C frames
    sqlite3_result_error(ctx, e.what(), -1);
  }
}

}  // namespace

bool is_searchable_kind(std::string_view kind) {
  static constexpr std::array<std::string_view, 8> kinds = {
      "user_msg", "assistant_msg", "tool_call",          "test_run",
      "edit",     "error",         "human_intervention", "decision"};
  for (auto k : kinds)
    if (k == kind) return true;
  return false;
}

bool has_spaceless_script(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0xE0 || lead >= 0xF0 || i + 2 >= text.size()) continue;  // 3-byte sequences
    const char32_t cp = ((lead & 0x0F) << 12) |
                        ((static_cast<unsigned char>(text[i + 1]) & 0x3F) << 6) |
                        (static_cast<unsigned char>(text[i + 2]) & 0x3F);
    if ((cp >= 0x0E00 && cp <= 0x0FFF) ||                                    // Thai, Lao, Tibetan
        (cp >= 0x1000 && cp <= 0x109F) ||                                    // Myanmar
        (cp >= 0x1780 && cp <= 0x17FF) ||                                    // Khmer
        (cp >= 0x3040 && cp <= 0x30FF) ||                                    // hiragana, katakana
        (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x4E00 && cp <= 0x9FFF) ||  // CJK ideographs
        (cp >= 0xF900 && cp <= 0xFAFF))  // CJK compatibility ideographs
      return true;
  }
  return false;
}

bool is_searchable(std::string_view kind, std::string_view role, std::string_view tool,
                   std::string_view text) {
  if (is_searchable_kind(kind)) return !text.empty() || !tool.empty();
  if (kind == "lifecycle") return !text.empty();
  return kind == "tool_result" && role == "user" && !text.empty();
}

std::string indexed_body(std::string_view text) {
  std::string body = searchable_text(text);
  body.resize(capped(body).size());
  return body;
}

void register_search_functions(sqlite3* db) {
  // Innocuous (reads only its arguments): callable from the schema's view and trigger.
  // SQLite owns the cache from here, even when registering fails.
  if (sqlite3_create_function_v2(
          db, "helix_search_body", 3, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
          new PackCache, search_body, nullptr, nullptr,
          [](void* cache) { delete static_cast<PackCache*>(cache); }) != SQLITE_OK)
    throw std::runtime_error(std::string("cannot register the search functions: ") +
                             sqlite3_errmsg(db));
  if (sqlite3_create_function_v2(db, "helix_spaceless", 1,
                                 SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, nullptr,
                                 spaceless, nullptr, nullptr, nullptr) != SQLITE_OK)
    throw std::runtime_error(std::string("cannot register the search functions: ") +
                             sqlite3_errmsg(db));
}

std::string title_from_prompt(std::string_view prompt) {
  std::size_t pos = 0;
  for (;;) {
    while (pos < prompt.size() && std::isspace(static_cast<unsigned char>(prompt[pos]))) ++pos;
    if (pos + 1 >= prompt.size() || prompt[pos] != '<' ||
        !std::isalpha(static_cast<unsigned char>(prompt[pos + 1])))
      break;
    std::size_t name_end = prompt.find_first_of(" >", pos + 1);
    if (name_end == std::string_view::npos) break;
    const std::string close = "</" + std::string(prompt.substr(pos + 1, name_end - pos - 1)) + ">";
    std::size_t end = prompt.find(close, name_end);
    if (end == std::string_view::npos) break;
    pos = end + close.size();
  }
  return one_line(prompt.substr(pos), kTitleChars);
}

void refresh_prompt_title(Database& db, const std::string& session_uid) {
  auto prompts = db.cached(R"sql(
    SELECT p.data, e.text_off, e.text_len FROM events e JOIN payload_packs p ON p.id = e.pack_id
    WHERE e.session_uid = ? AND e.kind = 'user_msg' AND e.shadowed = 0 AND e.text_len > 0
    ORDER BY e.seq)sql");
  prompts->bind(1, session_uid);
  std::string title;
  while (title.empty() && prompts->step()) {
    const std::string raw = unpack_payload(prompts->blob(0));
    const auto off = static_cast<std::size_t>(prompts->integer(1));
    const auto len = static_cast<std::size_t>(prompts->integer(2));
    if (off + len <= raw.size()) title = title_from_prompt(std::string_view(raw).substr(off, len));
  }
  prompts->reset();
  auto set = db.cached("UPDATE sessions SET prompt_title = ? WHERE uid = ?");
  set->bind_text_or_null(1, title).bind(2, session_uid).run();
}

SearchIndexWriter::SearchIndexWriter(Database& db)
    : insert_(db.prepare("INSERT INTO search_events (rowid, tool, body) VALUES (?, ?, ?)")),
      insert_cjk_(db.prepare("INSERT INTO search_events_cjk (rowid, body) VALUES (?, ?)")),
      title_(db.prepare(
          "UPDATE sessions SET prompt_title = ? WHERE uid = ? AND prompt_title IS NULL")) {}

void SearchIndexWriter::add(int64_t event_id, const std::string& session_uid,
                            const std::string& kind, const std::string& role,
                            const std::string& tool, const std::string& text, bool shadow) {
  if (!is_searchable(kind, role, tool, text)) return;
  const std::string body = indexed_body(text);
  insert_.bind(1, event_id).bind_text_or_null(2, tool).bind(3, body).run();
  if (has_spaceless_script(body)) insert_cjk_.bind(1, event_id).bind(2, body).run();
  if (kind != "user_msg" || shadow) return;
  if (std::string title = title_from_prompt(text); !title.empty())
    title_.bind(1, title).bind(2, session_uid).run();
}

void compact_search_index(Database& db) {
  db.exec("INSERT INTO search_events (search_events) VALUES ('optimize')");
  db.exec("INSERT INTO search_events_cjk (search_events_cjk) VALUES ('optimize')");
}

}  // namespace helix

// The write side of full-text search (see search_index.hpp).
#include "search_index.hpp"

#include <zstd.h>

#include <array>
#include <boost/json.hpp>
#include <cctype>
#include <map>
#include <stdexcept>

#include "text.hpp"

namespace helix {
namespace {

// One event's indexed text is capped: a pasted log or a whole written file adds little to
// recall and much to Tier 1 (the index keeps its own uncompressed copy).
constexpr std::size_t kMaxIndexedBytes = 32 * 1024;
constexpr std::size_t kTitleChars = 80;

std::string_view capped(std::string_view text) {
  if (text.size() <= kMaxIndexedBytes) return text;
  std::size_t end = kMaxIndexedBytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;  // UTF-8
  return text.substr(0, end);
}

std::string unpack(std::string_view packed, int64_t raw_bytes) {
  std::string out(static_cast<std::size_t>(raw_bytes), '\0');
  std::size_t n = ZSTD_decompress(out.data(), out.size(), packed.data(), packed.size());
  if (ZSTD_isError(n) || n != out.size())
    throw std::runtime_error("a payload pack in the store is corrupt (zstd could not read it)");
  return out;
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

}  // namespace

bool is_searchable_kind(std::string_view kind) {
  static constexpr std::array<std::string_view, 8> kinds = {
      "user_msg", "assistant_msg", "tool_call",          "test_run",
      "edit",     "error",         "human_intervention", "decision"};
  for (auto k : kinds)
    if (k == kind) return true;
  return false;
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

SearchIndexWriter::SearchIndexWriter(Database& db)
    : insert_(db.prepare("INSERT INTO search_events (rowid, tool, body) VALUES (?, ?, ?)")),
      title_(db.prepare(
          "UPDATE sessions SET prompt_title = ? WHERE uid = ? AND prompt_title IS NULL")) {}

void SearchIndexWriter::add(int64_t event_id, const std::string& session_uid,
                            const std::string& kind, const std::string& tool,
                            const std::string& text, bool shadow) {
  if (!is_searchable_kind(kind) || (text.empty() && tool.empty())) return;
  insert_.bind(1, event_id).bind_text_or_null(2, tool).bind(3, capped(searchable_text(text))).run();
  if (kind != "user_msg" || shadow) return;
  if (std::string title = title_from_prompt(text); !title.empty())
    title_.bind(1, title).bind(2, session_uid).run();
}

void compact_search_index(Database& db) {
  db.exec("INSERT INTO search_events (search_events) VALUES ('optimize')");
}

void index_search_backlog(Database& db) {
  {
    auto pending = db.prepare("SELECT EXISTS (SELECT 1 FROM search_backlog)");
    pending.step();
    if (pending.integer(0) == 0) return;
  }
  Transaction tx(db);
  SearchIndexWriter writer(db);
  auto events = db.prepare(R"sql(
    SELECT e.id, e.session_uid, e.kind, COALESCE(e.tool, ''), e.shadowed, e.pack_id,
      e.text_off, e.text_len
    FROM search_backlog b JOIN events e ON e.id = b.event_id
    ORDER BY e.session_uid, e.shadowed, e.seq)sql");
  auto pack = db.prepare("SELECT raw_bytes, data FROM payload_packs WHERE id = ?");
  std::map<int64_t, std::string> packs;  // of the current session only
  std::string session;
  while (events.step()) {
    if (events.text(1) != session) {
      session = events.text(1);
      packs.clear();
    }
    const std::string kind = events.text(2);
    if (!is_searchable_kind(kind)) continue;
    std::string text;
    if (!events.is_null(5) && !events.is_null(6)) {
      const int64_t id = events.integer(5), off = events.integer(6), len = events.integer(7);
      auto it = packs.find(id);
      if (it == packs.end()) {
        pack.bind(1, id);
        std::string raw = pack.step() ? unpack(pack.blob(1), pack.integer(0)) : std::string();
        pack.reset();
        it = packs.emplace(id, std::move(raw)).first;
      }
      if (off >= 0 && off + len <= static_cast<int64_t>(it->second.size()))
        text = it->second.substr(static_cast<std::size_t>(off), static_cast<std::size_t>(len));
    }
    writer.add(events.integer(0), session, kind, events.text(3), text, events.integer(4) != 0);
  }
  db.exec("DELETE FROM search_backlog");
  tx.commit();
}

}  // namespace helix

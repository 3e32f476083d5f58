// Test support: a canonical, order-independent text dump of a store (sources, sessions, every
// event row with its decoded text and payload, usage, packs, warnings), for comparing stores.
// Wall-clock columns (discovered/ingested/updated times) are left out: they differ by design.
#pragma once

#include "store/store.hpp"

#include <fmt/format.h>
#include <functional>
#include <string>
#include <vector>

namespace helix::test {

inline std::vector<std::string> dump_store(const std::filesystem::path& db_file) {
  Store store(db_file, /*read_only=*/true);
  std::vector<std::string> out;
  auto rows = [&](const std::string& tag, const std::string& sql, int columns) {
    auto st = store.database().prepare(sql);
    while (st.step()) {
      std::string line = tag;
      for (int i = 0; i < columns; ++i) line += "|" + (st.is_null(i) ? "∅" : st.text(i));
      out.push_back(std::move(line));
    }
  };
  rows("source",
       "SELECT path, dev, ino, size, compressed, layout, head_len, head_hash, offset, tail_len, "
       "tail_hash, generation, adapter, flavor, state, hex(adapter_state) FROM sources "
       "ORDER BY path",
       16);
  rows("row",
       "SELECT e.session_uid, s.path, e.generation, e.source_offset, e.ordinal, e.seq, "
       "e.parent_seq, e.shadowed, e.kind, e.uid, e.ts_ms, e.payload_len, e.text_len FROM events e "
       "JOIN sources s ON s.id = e.source_id ORDER BY e.session_uid, s.path, e.generation, "
       "e.source_offset, e.ordinal",
       13);
  rows("usage",
       "SELECT u.key, u.session_uid, s.path, u.source_offset, u.is_sidechain, u.ts_ms, u.model, "
       "u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_creation_tokens, "
       "u.reasoning_tokens, u.cost_usd FROM usage u JOIN sources s ON s.id = u.source_id "
       "ORDER BY u.key",
       13);
  rows("pack",
       "SELECT p.session_uid, s.path, p.raw_bytes FROM payload_packs p JOIN sources s ON "
       "s.id = p.source_id ORDER BY p.session_uid, s.path, p.raw_bytes",
       3);
  rows("warning",
       "SELECT s.path, w.generation, w.source_offset, w.category, w.message FROM warnings w "
       "JOIN sources s ON s.id = w.source_id ORDER BY s.path, w.generation, w.source_offset, "
       "w.category",
       5);
  const std::hash<std::string> hash;
  for (const auto& s : store.sessions(SessionFilter{})) {
    out.push_back(fmt::format("session|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", s.uid,
                              s.parent_uid, s.cwd, s.git_branch, s.model, s.title, s.agent_version,
                              s.started_at_ms, s.ended_at_ms, s.event_count, s.turns,
                              s.usage.input_tokens, s.usage.output_tokens,
                              s.usage.cache_read_tokens, s.usage.cache_creation_tokens));
    for (const auto& e : store.events(s.uid, /*with_bodies=*/true))
      out.push_back(fmt::format("event|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{:x}|{:x}", s.uid,
                                e.seq, e.parent_seq, e.ts_ms, e.source_path, e.source_offset,
                                e.ordinal, e.kind, e.role, e.tool, e.summary, e.call_id, e.tokens,
                                hash(e.text), hash(e.payload)));
  }
  return out;
}

inline std::string integrity_check(const std::filesystem::path& db_file) {
  Store store(db_file, /*read_only=*/true);
  auto st = store.database().prepare("PRAGMA integrity_check");
  std::string result;
  while (st.step()) result += st.text(0);
  return result;
}

// The first line where two dumps differ, for a readable failure message.
inline std::string first_difference(const std::vector<std::string>& a,
                                    const std::vector<std::string>& b) {
  for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    const std::string x = i < a.size() ? a[i] : "<end>", y = i < b.size() ? b[i] : "<end>";
    if (x != y) return fmt::format("line {}:\n  expected {}\n  actual   {}", i, x, y);
  }
  return "none";
}

}  // namespace helix::test

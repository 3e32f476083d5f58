// gemini_ledger.hpp: what the adapter already emitted for one session file, so that a message
// the CLI appends again after every change (tokens, tool calls, results) only adds what is new.
//
// The CLI re-appends only its latest message, so the ledger keeps that message's progress in
// full and, for everything older, 48-bit fingerprints of the message ids and tool call ids it
// has seen (bounded, oldest dropped first; a forgotten id at worst yields a copy the host
// stores as a shadow of the first). It travels between parse calls as the source's saved state.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_set>

namespace gemini {

// A bounded set of id fingerprints that forgets the oldest first.
class IdSet {
 public:
  explicit IdSet(std::size_t capacity) : capacity_(capacity) {}
  bool contains(std::string_view id) const { return set_.count(fingerprint(id)) > 0; }
  void insert(std::string_view id);
  std::string save() const;  // 12 hex digits per id, oldest first
  void load(std::string_view hex);

 private:
  static uint64_t fingerprint(std::string_view id);
  void insert_fingerprint(uint64_t f);

  std::size_t capacity_;
  std::deque<uint64_t> order_;
  std::unordered_set<uint64_t> set_;
};

// How far the latest message got: it is re-appended whole, so only the parts beyond this count.
struct MessageProgress {
  std::string id;
  uint32_t thoughts = 0;  // thinking events emitted
  bool main = false;      // its prompt / answer / notice event emitted
  bool usage = false;     // its token record emitted
};

struct Ledger {
  std::string session_id, model;
  bool metadata_seen = false;  // a later metadata line marks a resumed process
  MessageProgress latest;
  IdSet messages{3000};  // message ids seen in message lines or emitted from checkpoints
  IdSet calls{512};      // tool calls whose tool_call event was emitted
  IdSet results{512};    // tool calls whose outcome was emitted

  static Ledger load(std::string_view saved);  // empty or unreadable: a fresh ledger
  std::string save() const;                    // under 64 KiB by construction
};

}  // namespace gemini

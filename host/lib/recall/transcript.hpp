// Readable markdown transcripts of stored sessions, in the style of G2's conversation archives:
// a title, the session facts, User and Assistant turns, tool calls folded with their results.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "store/store.hpp"

namespace helix {

// Tool inputs and outputs, thinking and error texts longer than this are cut, with a marker
// saying how much was left out. Prompts and answers are kept whole.
inline constexpr std::size_t kTranscriptMaxOutputBytes = 2000;

// `events` with bodies (Store::events(uid, true)).
std::string markdown_transcript(const SessionRow& session, const std::vector<EventRow>& events);

// An evicted session: its facts and the digests that remain (digester name, version, JSON).
struct StoredDigest {
  std::string digester, version, json;
};
std::string markdown_digest(const SessionRow& session, const std::vector<StoredDigest>& digests);
// The session's digests as the transcripts show them.
std::vector<StoredDigest> stored_digests(Store& store, const std::string& uid);

// `text` cut at `max_bytes` (on a UTF-8 boundary) with "[… N more bytes truncated]".
std::string truncated(std::string_view text, std::size_t max_bytes);

}  // namespace helix

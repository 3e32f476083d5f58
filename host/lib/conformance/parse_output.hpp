// What one or more parse calls of an adapter produced, in a form that can be compared: every
// event, usage record and warning as one line of text (with its source offset), and sessions
// merged by the host's rule.
#pragma once

#include "model/record_batch.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace helix {

struct ParseOutput {
  using Lines = std::vector<std::pair<uint64_t, std::string>>;  // (source offset, record)
  Lines events, usage, warnings;
  std::map<std::string, SessionRecord> sessions;  // merged per native id
  // Each event's payload, in emission order, with its offset (for the record-start check).
  std::vector<std::pair<uint64_t, std::string>> payloads;
  // Each event's identities: "offset#ordinal", and "session/uid#ordinal" when it has a uid.
  std::vector<std::string> identities, uid_identities;
  bool failed = false;  // a call returned HELIX_ERROR
  std::string error;    // its message

  // Adds the records of one call's batch.
  void add(const RecordBatch& batch);
  // Adds what another output holds (the calls of a later sweep).
  void absorb(const ParseOutput& other);
  // Sorts the record lists; call once all calls are added, before comparing.
  void seal();
  // The first difference from `other`, described for a report ("" when there is none).
  // Warnings are compared only when `with_warnings`.
  std::string difference(const ParseOutput& other, bool with_warnings) const;
  // The first event or usage record given here and not in `whole` ("" when there is none).
  std::string not_in(const ParseOutput& whole) const;
  // Two events that share (offset, ordinal): the host would store only the first. "" when
  // there are none.
  std::string duplicate_identity() const;
  // How many events repeat the (session, uid, ordinal) of an earlier one: copies of a record,
  // of which the host keeps the first.
  std::size_t repeated_uids() const;
};

}  // namespace helix

#include "store/prior_events.hpp"

#include "store/database.hpp"
#include "store/pack_cache.hpp"

#include <xxhash.h>
#include <memory>
#include <stdexcept>

namespace helix {
namespace {

// One XXH3 stream over length-prefixed fields, so that no two field lists hash alike by
// running into each other.
class Fingerprint {
 public:
  Fingerprint() : state_(XXH3_createState(), &XXH3_freeState) {
    if (!state_) throw std::bad_alloc();
    XXH3_64bits_reset(state_.get());
  }
  Fingerprint& add(std::string_view field) {
    const uint64_t size = field.size();
    XXH3_64bits_update(state_.get(), &size, sizeof size);
    XXH3_64bits_update(state_.get(), field.data(), field.size());
    return *this;
  }
  Fingerprint& add(int64_t value) {
    XXH3_64bits_update(state_.get(), &value, sizeof value);
    return *this;
  }
  uint64_t digest() const { return XXH3_64bits_digest(state_.get()); }

 private:
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> state_;
};

}  // namespace

uint64_t event_fingerprint(const EventRecord& e, std::string_view tool, std::string_view text,
                           std::string_view payload) {
  return Fingerprint()
      .add(e.kind)
      .add(e.role)
      .add(tool)
      .add(e.summary)
      .add(e.ts_ms)
      .add(e.model)
      .add(e.parent_uid)
      .add(text)
      .add(payload)
      .digest();
}

PriorEvents::Key PriorEvents::key_of(const std::string& session_uid, const EventRecord& e) {
  return {session_uid, e.uid.empty() ? "@" + std::to_string(e.source_offset) : e.uid,
          static_cast<int64_t>(e.ordinal)};
}

PriorEvents PriorEvents::read(Database& db, int64_t source_id) {
  auto events = db.cached(R"sql(
    SELECT session_uid, COALESCE(uid, ''), source_offset, ordinal, seq, kind, COALESCE(role, ''),
      COALESCE(tool, ''), COALESCE(summary, ''), COALESCE(ts_ms, 0), COALESCE(model, ''),
      COALESCE(parent_uid, ''), pack_id, COALESCE(payload_off, -1), COALESCE(payload_len, 0),
      COALESCE(text_off, -1), COALESCE(text_len, 0)
    FROM events WHERE source_id = ? AND shadowed = 0)sql");
  PackCache packs(db);
  PriorEvents out;
  events->bind(1, source_id);
  while (events->step()) {
    EventRecord e;
    e.uid = events->text(1);
    e.source_offset = static_cast<uint64_t>(events->integer(2));
    e.ordinal = static_cast<uint32_t>(events->integer(3));
    e.kind = events->text(5);
    e.role = events->text(6);
    e.summary = events->text(8);
    e.ts_ms = events->integer(9);
    e.model = events->text(10);
    e.parent_uid = events->text(11);
    const int64_t pack_id = events->is_null(12) ? -1 : events->integer(12);
    auto slice = [&](int64_t off, int64_t len) {
      return pack_id < 0 ? std::string_view() : packs.slice(pack_id, off, len).value_or("");
    };
    const uint64_t fingerprint =
        event_fingerprint(e, events->text(7), slice(events->integer(15), events->integer(16)),
                          slice(events->integer(13), events->integer(14)));
    out.events_[key_of(events->text(0), e)] = Prior{events->integer(4), fingerprint, false};
  }
  events->reset();
  return out;
}

PriorEvents::Prior* PriorEvents::claim(const Key& key) {
  auto it = events_.find(key);
  if (it == events_.end() || it->second.seen) return nullptr;
  it->second.seen = true;
  return &it->second;
}

std::map<std::string, int64_t> PriorEvents::unclaimed() const {
  std::map<std::string, int64_t> out;
  for (const auto& [key, prior] : events_)
    if (!prior.seen) ++out[std::get<0>(key)];
  return out;
}

}  // namespace helix

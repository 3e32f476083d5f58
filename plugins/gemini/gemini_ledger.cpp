// gemini_ledger.cpp: the ledger's fingerprints and its JSON form in the saved state.
#include "gemini_ledger.hpp"

#include <boost/json.hpp>
#include <helix/json.hpp>

namespace gemini {
namespace {

namespace bj = boost::json;
constexpr int kHexDigits = 12;  // 48 bits: no collision to fear among a few thousand ids
constexpr uint64_t kMask = (uint64_t{1} << (4 * kHexDigits)) - 1;

}  // namespace

uint64_t IdSet::fingerprint(std::string_view id) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a 64
  for (unsigned char c : id) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h & kMask;
}

void IdSet::insert(std::string_view id) { insert_fingerprint(fingerprint(id)); }

void IdSet::insert_fingerprint(uint64_t f) {
  if (!set_.insert(f).second) return;
  order_.push_back(f);
  if (order_.size() > capacity_) {
    set_.erase(order_.front());
    order_.pop_front();
  }
}

std::string IdSet::save() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(order_.size() * kHexDigits);
  for (uint64_t f : order_)
    for (int shift = 4 * (kHexDigits - 1); shift >= 0; shift -= 4)
      hex += kDigits[(f >> shift) & 15];
  return hex;
}

void IdSet::load(std::string_view hex) {
  for (std::size_t at = 0; at + kHexDigits <= hex.size(); at += kHexDigits) {
    uint64_t f = 0;
    for (char c : hex.substr(at, kHexDigits)) {
      const int digit = c >= 'a' ? c - 'a' + 10 : c - '0';
      if (digit < 0 || digit > 15) return;  // not ours: keep what parsed
      f = f << 4 | static_cast<uint64_t>(digit);
    }
    insert_fingerprint(f);
  }
}

Ledger Ledger::load(std::string_view saved) {
  Ledger ledger;
  boost::system::error_code ec;
  bj::value value = bj::parse(saved, ec);
  const bj::object* o = ec ? nullptr : value.if_object();
  if (!o) return ledger;
  using helix::json::str;
  ledger.session_id = str(*o, "sid");
  ledger.model = str(*o, "model");
  ledger.metadata_seen = helix::json::truthy(*o, "meta");
  if (const auto* latest = helix::json::obj(*o, "latest")) {
    ledger.latest.id = str(*latest, "id");
    ledger.latest.thoughts = static_cast<uint32_t>(helix::json::num(*latest, "thoughts"));
    ledger.latest.main = helix::json::truthy(*latest, "main");
    ledger.latest.usage = helix::json::truthy(*latest, "usage");
  }
  ledger.messages.load(str(*o, "messages"));
  ledger.calls.load(str(*o, "calls"));
  ledger.results.load(str(*o, "results"));
  return ledger;
}

std::string Ledger::save() const {
  return bj::serialize(bj::object{{"sid", session_id},
                                  {"model", model},
                                  {"meta", metadata_seen},
                                  {"latest",
                                   {{"id", latest.id},
                                    {"thoughts", latest.thoughts},
                                    {"main", latest.main},
                                    {"usage", latest.usage}}},
                                  {"messages", messages.save()},
                                  {"calls", calls.save()},
                                  {"results", results.save()}});
}

}  // namespace gemini

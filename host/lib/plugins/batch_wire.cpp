#include "plugins/batch_wire.hpp"

#include <cstring>

namespace helix {

void WireReader::take(void* to, std::size_t n) {
  if (n > in_.size()) throw std::runtime_error("a worker's answer ends early");
  std::memcpy(to, in_.data(), n);
  in_.remove_prefix(n);
}

void write_batch(WireWriter& out, const RecordBatch& b) {
  out.u64(b.sessions.size());
  for (const auto& s : b.sessions) {
    for (const auto* f : {&s.native_id, &s.parent_native_id, &s.cwd, &s.git_branch, &s.model,
                          &s.title, &s.agent_version, &s.repo, &s.domain, &s.forked_from_native_id})
      out.str(*f);
    out.i64(s.started_at_ms);
    out.i64(s.ended_at_ms);
  }
  out.u64(b.events.size());
  for (const auto& e : b.events) {
    out.str(e.session_id);
    out.u64(e.source_offset);
    out.u64(e.ordinal);
    out.u64(e.flags);
    out.i64(e.ts_ms);
    for (const auto* f : {&e.kind, &e.role, &e.tool, &e.uid, &e.parent_uid, &e.call_id, &e.summary,
                          &e.text, &e.model})
      out.str(*f);
    out.i64(e.payload_index);
  }
  out.u64(b.usage.size());
  for (const auto& u : b.usage) {
    out.str(u.session_id);
    out.str(u.key);
    out.str(u.model);
    out.u64(u.source_offset);
    out.u64(u.flags);
    for (int64_t v : {u.ts_ms, u.input_tokens, u.output_tokens, u.cache_read_tokens,
                      u.cache_creation_tokens, u.reasoning_tokens, u.cache_creation_1h_tokens})
      out.i64(v);
    out.f64(u.cost_usd);
  }
  out.u64(b.rate_limits.size());
  for (const auto& r : b.rate_limits) {
    for (const auto* f : {&r.session_id, &r.limit_id, &r.window}) out.str(*f);
    out.u64(r.source_offset);
    out.f64(r.used_percent);
    for (int64_t v : {r.ts_ms, r.window_minutes, r.resets_at_ms}) out.i64(v);
  }
  out.u64(b.warnings.size());
  for (const auto& w : b.warnings) {
    out.u64(w.source_offset);
    out.str(w.category);
    out.str(w.message);
  }
  out.u64(b.payloads.size());
  for (const auto& p : b.payloads) out.str(p);
  out.u64(b.saved_state.has_value());
  out.str(b.saved_state.value_or(""));
  out.u64(b.redactions.size());
  for (const auto& [session, n] : b.redactions) {
    out.str(session);
    out.i64(n);
  }
}

RecordBatch read_batch(WireReader& in) {
  RecordBatch b;
  b.sessions.resize(in.count());
  for (auto& s : b.sessions) {
    for (auto* f : {&s.native_id, &s.parent_native_id, &s.cwd, &s.git_branch, &s.model, &s.title,
                    &s.agent_version, &s.repo, &s.domain, &s.forked_from_native_id})
      *f = in.str();
    s.started_at_ms = in.i64();
    s.ended_at_ms = in.i64();
  }
  b.events.resize(in.count());
  for (auto& e : b.events) {
    e.session_id = in.str();
    e.source_offset = in.u64();
    e.ordinal = static_cast<uint32_t>(in.u64());
    e.flags = static_cast<uint32_t>(in.u64());
    e.ts_ms = in.i64();
    for (auto* f : {&e.kind, &e.role, &e.tool, &e.uid, &e.parent_uid, &e.call_id, &e.summary,
                    &e.text, &e.model})
      *f = in.str();
    e.payload_index = in.i64();
  }
  b.usage.resize(in.count());
  for (auto& u : b.usage) {
    u.session_id = in.str();
    u.key = in.str();
    u.model = in.str();
    u.source_offset = in.u64();
    u.flags = static_cast<uint32_t>(in.u64());
    for (int64_t* v : {&u.ts_ms, &u.input_tokens, &u.output_tokens, &u.cache_read_tokens,
                       &u.cache_creation_tokens, &u.reasoning_tokens, &u.cache_creation_1h_tokens})
      *v = in.i64();
    u.cost_usd = in.f64();
  }
  b.rate_limits.resize(in.count());
  for (auto& r : b.rate_limits) {
    for (auto* f : {&r.session_id, &r.limit_id, &r.window}) *f = in.str();
    r.source_offset = in.u64();
    r.used_percent = in.f64();
    for (int64_t* v : {&r.ts_ms, &r.window_minutes, &r.resets_at_ms}) *v = in.i64();
  }
  b.warnings.resize(in.count());
  for (auto& w : b.warnings) {
    w.source_offset = in.u64();
    w.category = in.str();
    w.message = in.str();
  }
  b.payloads.resize(in.count());
  for (auto& p : b.payloads) p = in.str();
  const bool saved = in.u64() != 0;
  std::string state = in.str();
  if (saved) b.saved_state = std::move(state);
  for (std::size_t n = in.count(); n > 0; --n) {
    std::string session = in.str();
    b.redactions[session] = in.i64();
  }
  return b;
}

}  // namespace helix

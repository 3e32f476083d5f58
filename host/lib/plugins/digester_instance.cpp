#include "plugins/digester_instance.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>
#include <cstddef>
#include <stdexcept>

namespace helix {
namespace {

// What a digester call reports back. Passed as the ABI's opaque helix_call (adapter_instance.cpp
// defines helix_call itself; a distinct type here keeps the two definitions apart).
struct DigestCall {
  std::string error;
  std::string result, state;
  bool has_result = false;
  helix_call* c() { return reinterpret_cast<helix_call*>(this); }
  static DigestCall* of(helix_call* call) { return reinterpret_cast<DigestCall*>(call); }
};

helix_str c_str(std::string_view s) { return helix_str{s.data(), s.size()}; }

void set_error(helix_call* call, helix_str message) {
  DigestCall::of(call)->error.assign(message.ptr ? message.ptr : "", message.ptr ? message.len : 0);
}

void set_result(helix_call* call, helix_str json) {
  DigestCall::of(call)->result.assign(json.ptr ? json.ptr : "", json.ptr ? json.len : 0);
  DigestCall::of(call)->has_result = true;
}

void set_state(helix_call* call, helix_str bytes) {
  DigestCall::of(call)->state.assign(bytes.ptr ? bytes.ptr : "", bytes.ptr ? bytes.len : 0);
}

const void* host_extension(const helix_host_api*, const char*) { return nullptr; }

const helix_host_api kHostApi = {sizeof(helix_host_api), HELIX_ABI_MAJOR, HELIX_ABI_MINOR,
                                 &set_error, &host_extension};
const helix_digest_api kDigestApi = {sizeof(helix_digest_api), &set_result, &set_state};

}  // namespace

DigesterInstance::DigesterInstance(const PluginInfo& plugin, std::string_view config_json)
    : plugin_(plugin) {
  DigestCall call;
  if (plugin.digester->create(&kHostApi, call.c(), c_str(config_json), &instance_) != HELIX_OK ||
      !instance_)
    throw std::runtime_error(fmt::format("digester plugin '{}' ({}) failed to start: {}",
                                         plugin.name, plugin.path.string(),
                                         call.error.empty() ? "no reason given" : call.error));
}

DigesterInstance::~DigesterInstance() {
  if (instance_) plugin_.digester->destroy(instance_);
}

// The registry's copy of the table holds NULL for members beyond the plugin's struct_size.
bool DigesterInstance::can_resume() const { return plugin_.digester->resume_session != nullptr; }

namespace {

// The session as the ABI carries it; views into `s`.
helix_digest_session c_session(const SessionRow& s) {
  return {sizeof(helix_digest_session),
          c_str(s.uid),
          c_str(s.flavor),
          c_str(s.native_id),
          c_str(s.parent_uid),
          c_str(s.repo),
          c_str(s.domain),
          c_str(s.cwd),
          c_str(s.git_branch),
          c_str(s.model),
          c_str(s.title),
          c_str(s.agent_version),
          s.started_at_ms,
          s.ended_at_ms};
}

}  // namespace

void DigesterInstance::begin(const SessionRow& s) const {
  const helix_digest_session session = c_session(s);
  plugin_.digester->begin_session(instance_, &session);
}

void DigesterInstance::resume(const SessionRow& s, std::string_view state) const {
  if (!can_resume())
    throw std::runtime_error(fmt::format("digester '{}' cannot resume a session", plugin_.name));
  const helix_digest_session session = c_session(s);
  DigestCall call;
  if (plugin_.digester->resume_session(instance_, call.c(), &session, c_str(state)) != HELIX_OK)
    throw std::runtime_error(fmt::format(
        "digester '{}' could not resume {} from its saved state: {}; its previous digest is "
        "kept",
        plugin_.name, s.uid, call.error.empty() ? "no reason given" : call.error));
}

void DigesterInstance::event(const SessionRow& s, const EventView& e) const {
  helix_event c{};
  c.struct_size = sizeof c;
  c.session_id = c_str(s.native_id);
  c.source_offset = static_cast<uint64_t>(e.source_offset);
  c.ordinal = static_cast<uint32_t>(e.ordinal);
  c.flags = e.is_sidechain ? HELIX_EVENT_SIDECHAIN : 0u;
  c.ts_ms = e.ts_ms;
  c.kind = c_str(e.kind);
  c.role = c_str(e.role);
  c.tool = c_str(e.tool);
  c.uid = c_str(e.uid);
  c.parent_uid = c_str(e.parent_uid);
  c.call_id = c_str(e.call_id);
  c.summary = c_str(e.summary);
  c.text = c_str(e.text);
  c.model = c_str(e.model);
  plugin_.digester->event(instance_, &c);
}

void DigesterInstance::usage(const SessionRow& s, const StoredUsage& u) const {
  helix_usage c{};
  c.struct_size = sizeof c;
  c.session_id = c_str(s.native_id);
  c.key = c_str(u.key);
  c.source_offset = static_cast<uint64_t>(u.source_offset);
  c.flags = u.is_sidechain ? HELIX_EVENT_SIDECHAIN : 0u;
  c.ts_ms = u.ts_ms;
  c.model = c_str(u.model);
  c.input_tokens = u.input_tokens;
  c.output_tokens = u.output_tokens;
  c.cache_read_tokens = u.cache_read_tokens;
  c.cache_creation_tokens = u.cache_creation_tokens;
  c.reasoning_tokens = u.reasoning_tokens;
  c.cost_usd = u.cost_usd;
  c.cache_creation_1h_tokens = u.cache_creation_1h_tokens;
  plugin_.digester->usage(instance_, &c);
}

DigestOutput DigesterInstance::end(const SessionRow& s) const {
  DigestCall call;
  if (plugin_.digester->end_session(instance_, call.c(), &kDigestApi) != HELIX_OK)
    throw std::runtime_error(fmt::format("digester '{}' could not digest {}: {}", plugin_.name,
                                         s.uid,
                                         call.error.empty() ? "no reason given" : call.error));
  boost::system::error_code ec;
  auto doc = boost::json::parse(call.result, ec);
  if (!call.has_result || ec || !doc.is_object())
    throw std::runtime_error(
        fmt::format("digester '{}' returned no JSON object for {}; its digest is not stored",
                    plugin_.name, s.uid));
  return {std::move(call.result), std::move(call.state)};
}

DigestOutput DigesterInstance::run(const SessionRow& s, const std::vector<EventRow>& events,
                                   const std::vector<StoredUsage>& usage,
                                   const std::optional<std::string>& resume_state) const {
  if (resume_state)
    resume(s, *resume_state);
  else
    begin(s);
  for (const auto& e : events) event(s, view_of(e));
  for (const auto& u : usage) this->usage(s, u);
  return end(s);
}

EventView view_of(const EventRow& r) {
  EventView v;
  v.seq = r.seq;
  v.ts_ms = r.ts_ms;
  v.source_offset = r.source_offset;
  v.ordinal = r.ordinal;
  v.kind = r.kind;
  v.role = r.role;
  v.tool = r.tool;
  v.summary = r.summary;
  v.uid = r.uid;
  v.parent_uid = r.parent_uid;
  v.call_id = r.call_id;
  v.model = r.model;
  v.text = r.text;
  v.is_sidechain = r.is_sidechain;
  return v;
}

}  // namespace helix

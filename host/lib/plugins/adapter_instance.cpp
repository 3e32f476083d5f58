#include "plugins/adapter_instance.hpp"

#include "base/text.hpp"
#include "plugins/abi_struct.hpp"
#include "privacy/redactor.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <stdexcept>

// The host's definition of the ABI's opaque per-call context.
struct helix_call {
  helix::RecordBatch* batch = nullptr;
  std::string error;
  uint64_t last_payload_offset = UINT64_MAX;  // lets events of one record share one payload
  std::string last_payload;                   // that payload as the adapter gave it
  helix::RecordScan last_scan;                // what redacting that payload learnt
  const helix::Redactor* redactor = nullptr;  // every text is redacted before it is kept
  uint64_t last_utf8_warning = UINT64_MAX;    // the record last reported for invalid UTF-8
};

namespace helix {
namespace {

constexpr std::size_t kMaxStateBytes = std::size_t{64} * 1024;
constexpr std::size_t kSummaryChars = 200;

// `s` as valid UTF-8, copied once; `repaired` (when given) is set when it needed repair.
std::string text(helix_str s, bool* repaired = nullptr) {
  if (!s.ptr) return {};
  const std::string_view in(s.ptr, s.len);
  if (is_valid_utf8(in)) return std::string(in);
  if (repaired) *repaired = true;
  return valid_utf8(in);
}
std::string_view view(helix_str s) { return s.ptr ? std::string_view(s.ptr, s.len) : ""; }

void warn(helix_call* call, uint64_t offset, std::string category, std::string message) {
  if (call->redactor) {  // messages quote what they complain about
    call->redactor->redact_text(category);
    call->redactor->redact_text(message);
  }
  call->batch->warnings.push_back({offset, std::move(category), std::move(message)});
}

void set_error(helix_call* call, helix_str message) {
  call->error = call->redactor ? call->redactor->redacted(text(message)) : text(message);
}

// `s` with its secrets replaced, counted for `session` (when the text belongs to one). Texts
// are redacted whole, before any truncation, so no cut can leave half a secret unrecognised.
// A text copied from the record `from` scanned is not searched again.
std::string redacted(helix_call* call, std::string s, const std::string& session = {},
                     const RecordScan* from = nullptr) {
  if (!call->redactor || s.empty()) return s;
  const int64_t n = call->redactor->redact_text(s, from);
  if (n > 0 && !session.empty()) call->batch->redactions[session] += n;
  return s;
}

std::string redacted_record(helix_call* call, std::string s, const std::string& session = {},
                            RecordScan* scan = nullptr) {
  if (!call->redactor || s.empty()) return s;
  const int64_t n = call->redactor->redact_record(s, scan);
  if (n > 0 && !session.empty()) call->batch->redactions[session] += n;
  return s;
}

// The index of the event's redacted payload in the batch (-1 without one), shared by the
// events of one record; call->last_scan then describes that record.
int64_t payload_index(helix_call* call, const helix_event* e, const std::string& session) {
  if (e->payload.len == 0) return -1;
  auto& payloads = call->batch->payloads;
  if (call->last_payload_offset != e->source_offset || payloads.empty() ||
      call->last_payload != view(e->payload)) {
    call->last_payload = view(e->payload);
    payloads.push_back(redacted_record(call, call->last_payload, session, &call->last_scan));
    call->last_payload_offset = e->source_offset;
  }
  return static_cast<int64_t>(payloads.size()) - 1;
}

// A record smaller than ABI 1.0's is dropped with a warning; a smaller one than this host's is
// read as far as it goes (read_abi_struct).
void too_small(helix_call* call, uint64_t offset, const char* what, std::size_t minimum) {
  warn(call, offset, "invalid_record",
       fmt::format("the adapter passed a {} smaller than ABI 1.0's {} bytes; dropped", what,
                   minimum));
}

void emit_session(helix_call* call, const helix_session* declared) {
  const auto s = read_abi_struct(declared, HELIX_SESSION_SIZE_1_0);
  if (!s) return too_small(call, 0, "helix_session", HELIX_SESSION_SIZE_1_0);
  if (s->native_id.len == 0)
    return warn(call, 0, "missing_session_id", "session record without id");
  SessionRecord r;
  r.native_id = redacted(call, text(s->native_id));  // ids too: every stored field
  r.parent_native_id = redacted(call, text(s->parent_native_id), r.native_id);
  r.cwd = redacted(call, text(s->cwd), r.native_id);
  r.git_branch = redacted(call, text(s->git_branch), r.native_id);
  r.model = redacted(call, text(s->model), r.native_id);
  r.title = one_line(redacted(call, text(s->title), r.native_id), 500);
  r.agent_version = redacted(call, text(s->agent_version), r.native_id);
  r.started_at_ms = s->started_at_ms;
  r.ended_at_ms = s->ended_at_ms;
  r.forked_from_native_id = text(s->forked_from_native_id);  // ABI 1.3: zero past struct_size
  call->batch->sessions.push_back(std::move(r));
}

// True when the record's raw bytes (first seen for this record) hold invalid UTF-8, even in
// fields no event uses: the record is damaged and is counted as such.
bool invalid_payload(const helix_call* call, const helix_event* e) {
  return e->payload.len > 0 && call->last_payload_offset != e->source_offset &&
         !is_valid_utf8(view(e->payload));
}

void emit_event(helix_call* call, const helix_event* declared) {
  const auto copy = read_abi_struct(declared, HELIX_EVENT_SIZE_1_0);
  if (!copy) {
    uint64_t offset = 0;  // where the record came from, when the plugin's struct reaches it
    if (declared && declared->struct_size >= HELIX_SIZE_THROUGH(helix_event, source_offset))
      std::memcpy(&offset, &declared->source_offset, sizeof offset);
    return too_small(call, offset, "helix_event", HELIX_EVENT_SIZE_1_0);
  }
  const helix_event* e = &*copy;
  if (e->session_id.len == 0)
    return warn(call, e->source_offset, "missing_session_id", "event without a session id");
  EventRecord r;
  bool repaired = false;  // a text field of the event needed repair on its way in
  r.session_id = text(e->session_id, &repaired);
  r.source_offset = e->source_offset;
  r.ordinal = e->ordinal;
  r.flags = e->flags;
  r.ts_ms = e->ts_ms;
  r.kind = text(e->kind);
  if (!is_known_event_kind(r.kind)) {
    warn(call, e->source_offset, "unknown_event_kind",
         fmt::format("adapter emitted kind '{}', stored as 'other'", r.kind));
    r.kind = "other";
  }
  const bool damaged_payload = invalid_payload(call, e);
  r.payload_index = payload_index(call, e, r.session_id);
  const RecordScan* scan = r.payload_index >= 0 ? &call->last_scan : nullptr;
  // Ids and names are mostly the record's own strings: a clean record's are not searched again.
  std::string session = redacted(call, r.session_id, {}, scan);
  if (session != r.session_id) {  // a secret in the id: its counts go with the redacted id
    auto& counts = call->batch->redactions;
    if (auto it = counts.find(r.session_id); it != counts.end()) {
      counts[session] += it->second;
      counts.erase(it);
    }
    r.session_id = std::move(session);
  }
  r.role = redacted(call, text(e->role), r.session_id, scan);
  r.tool = redacted(call, text(e->tool, &repaired), r.session_id, scan);
  r.uid = redacted(call, text(e->uid, &repaired), r.session_id, scan);
  r.parent_uid = redacted(call, text(e->parent_uid), r.session_id, scan);
  r.call_id = redacted(call, text(e->call_id), r.session_id, scan);
  r.summary =
      one_line(redacted(call, std::string(view(e->summary)), r.session_id, scan), kSummaryChars);
  r.text = text(e->text, &repaired);
  r.model = redacted(call, text(e->model, &repaired), r.session_id, scan);
  if ((repaired || damaged_payload) && call->last_utf8_warning != e->source_offset) {
    call->last_utf8_warning = e->source_offset;  // one warning per record, not per event
    warn(call, e->source_offset, "invalid_utf8",
         "a record's text holds invalid UTF-8 or NUL bytes; stored with U+FFFD in their place");
  }
  r.text = redacted(call, std::move(r.text), r.session_id, scan);
  call->batch->events.push_back(std::move(r));
}

void emit_usage(helix_call* call, const helix_usage* declared) {
  const auto u = read_abi_struct(declared, HELIX_USAGE_SIZE_1_0);
  if (!u) return too_small(call, 0, "helix_usage", HELIX_USAGE_SIZE_1_0);
  if (u->session_id.len == 0)
    return warn(call, u->source_offset, "missing_session_id", "usage without a session id");
  UsageRecord r;
  r.session_id = redacted(call, text(u->session_id));
  r.key = redacted(call, text(u->key), r.session_id);
  r.model = redacted(call, text(u->model), r.session_id);
  r.source_offset = u->source_offset;
  r.flags = u->flags;
  r.ts_ms = u->ts_ms;
  auto clamp = [](int64_t v) { return v < 0 ? 0 : v; };
  r.input_tokens = clamp(u->input_tokens);
  r.output_tokens = clamp(u->output_tokens);
  r.cache_read_tokens = clamp(u->cache_read_tokens);
  r.cache_creation_tokens = clamp(u->cache_creation_tokens);
  r.reasoning_tokens = clamp(u->reasoning_tokens);
  r.cost_usd = u->cost_usd;
  if (u->struct_size >= offsetof(helix_usage, cache_creation_1h_tokens) + sizeof(int64_t))
    r.cache_creation_1h_tokens =
        std::min(clamp(u->cache_creation_1h_tokens), r.cache_creation_tokens);
  call->batch->usage.push_back(std::move(r));
}

void emit_warn(helix_call* call, uint64_t offset, helix_str category, helix_str message) {
  std::string c = text(category);
  warn(call, offset, c.empty() ? "adapter_warning" : c, text(message));
}

void emit_save_state(helix_call* call, helix_str state) {
  if (state.len > kMaxStateBytes) {
    call->error = fmt::format("adapter state of {} bytes exceeds the {} byte limit", state.len,
                              kMaxStateBytes);
    return;
  }
  // Opaque to the host, but adapters carry unfinished records in it (Grok's open message).
  call->batch->saved_state = redacted_record(call, std::string(view(state)));
}

// helix.rate_limits/1: a window of the provider's rate limit, as the adapter read it.
void emit_rate_limit(helix_call* call, const helix_rate_limit* declared) {
  const auto l = read_abi_struct(declared, HELIX_RATE_LIMIT_SIZE_1_4);
  if (!l) return too_small(call, 0, "helix_rate_limit", HELIX_RATE_LIMIT_SIZE_1_4);
  if (l->session_id.len == 0)
    return warn(call, l->source_offset, "missing_session_id", "rate limit without a session id");
  if (!std::isfinite(l->used_percent) || l->used_percent < 0)
    return warn(call, l->source_offset, "invalid_record",
                fmt::format("rate limit with a used share of {}%; dropped", l->used_percent));
  RateLimitRecord r;
  r.session_id = redacted(call, text(l->session_id));
  r.limit_id = redacted(call, text(l->limit_id), r.session_id);
  r.window = redacted(call, text(l->window), r.session_id);
  r.source_offset = l->source_offset;
  r.ts_ms = l->ts_ms;
  r.used_percent = l->used_percent;
  r.window_minutes = std::max<int64_t>(0, l->window_minutes);
  r.resets_at_ms = std::max<int64_t>(0, l->resets_at_ms);
  call->batch->rate_limits.push_back(std::move(r));
}

const helix_rate_limits_ext kRateLimitsExt = {sizeof(helix_rate_limits_ext), &emit_rate_limit};

// The services beyond the frozen structs (ABI 1.4 on).
const void* host_extension(const helix_host_api*, const char* id) {
  if (id && std::strcmp(id, HELIX_EXT_RATE_LIMITS) == 0) return &kRateLimitsExt;
  return nullptr;
}

const helix_host_api kHostApi = {sizeof(helix_host_api), HELIX_ABI_MAJOR, HELIX_ABI_MINOR,
                                 &set_error, &host_extension};
const helix_emit_api kEmitApi = {
    sizeof(helix_emit_api), &emit_session, &emit_event, &emit_usage, &emit_warn, &emit_save_state};

helix_str c_str(std::string_view s) { return helix_str{s.data(), s.size()}; }

}  // namespace

bool is_known_event_kind(std::string_view kind) {
#define HELIX_KIND_ENTRY(k) std::string_view(k),
  static constexpr std::string_view kKinds[] = {HELIX_EVENT_KINDS(HELIX_KIND_ENTRY)};
#undef HELIX_KIND_ENTRY
  for (auto k : kKinds)
    if (k == kind) return true;
  return false;
}

AdapterInstance::AdapterInstance(const PluginInfo& plugin, std::string_view config_json,
                                 const Redactor* redactor)
    : plugin_(plugin), redactor_(redactor) {
  helix_call call;
  if (plugin.adapter->create(&kHostApi, &call, c_str(config_json), &instance_) != HELIX_OK ||
      !instance_)
    throw std::runtime_error(fmt::format("adapter plugin '{}' ({}) failed to start: {}",
                                         plugin.name, plugin.path.string(),
                                         call.error.empty() ? "no reason given" : call.error));
}

AdapterInstance::~AdapterInstance() {
  if (instance_) plugin_.adapter->destroy(instance_);
}

int AdapterInstance::probe(std::string_view path, std::string_view head, uint64_t size) const {
  helix_probe_input in{sizeof(helix_probe_input), c_str(path), c_str(head), size};
  int32_t score = plugin_.adapter->probe(instance_, &in);
  if (score == HELIX_PROBE_FAILED) return kProbeFailed;
  return score < 0 ? 0 : (score > 100 ? 100 : score);
}

void AdapterInstance::parse(std::string_view path, uint32_t layout, uint64_t base_offset,
                            std::string_view data, std::string_view state,
                            RecordBatch& batch) const {
  helix_call call;
  call.batch = &batch;
  call.redactor = redactor_;
  helix_parse_input in{
      sizeof(helix_parse_input), c_str(path), layout, base_offset, c_str(data), c_str(state)};
  helix_status status = plugin_.adapter->parse(instance_, &call, &in, &kEmitApi);
  if (status != HELIX_OK || !call.error.empty())
    throw std::runtime_error(fmt::format("adapter '{}' could not parse {}: {}", plugin_.name, path,
                                         call.error.empty() ? "no reason given" : call.error));
}

}  // namespace helix

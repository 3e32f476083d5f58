// helix/adapter.hpp: header-only C++ wrapper for writing an adapter plugin in one class.
//
// Derive from helix::Adapter, override probe() and parse_line() (or parse_document()), and
// declare the plugin with HELIX_ADAPTER (named fields, C++20) or HELIX_ADAPTER_PLUGIN
// (positional, C++17). The macro generates the C entry point and the function table; every
// trampoline is noexcept and turns exceptions into HELIX_ERROR (or, per line, into a warning),
// so no C++ exception or type crosses the ABI. This header compiles into the plugin, not the
// host.
#pragma once

#include <helix/helix_plugin.h>

#include <cstring>
#include <deque>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace helix {

inline helix_str to_c(std::string_view s) noexcept { return helix_str{s.data(), s.size()}; }
inline std::string_view from_c(helix_str s) noexcept {
  return s.ptr ? std::string_view(s.ptr, s.len) : std::string_view();
}

// A string view that refuses temporaries: `e.summary = make_summary(line);` does not compile,
// because the returned std::string would die before the host copies the event. Keep such a
// string in a named local that outlives the emit call, or in ctx.keep(), which holds it until
// parse() returns.
class Text : public std::string_view {
 public:
  constexpr Text() noexcept = default;
  constexpr Text(const char* s) noexcept : std::string_view(s ? std::string_view(s) : "") {}
  constexpr Text(std::string_view s) noexcept : std::string_view(s) {}
  Text(const std::string& s) noexcept : std::string_view(s) {}
  Text(std::string&&) = delete;  // a temporary would dangle: name it, or use ctx.keep()
  Text(const std::string&&) = delete;
};

// The event kinds of the normalized schema (HELIX_EVENT_KINDS of helix_plugin.h).
namespace kind {
inline constexpr const char* user_msg = HELIX_EVENT_KIND_USER_MSG;
inline constexpr const char* assistant_msg = HELIX_EVENT_KIND_ASSISTANT_MSG;
inline constexpr const char* thinking = HELIX_EVENT_KIND_THINKING;
inline constexpr const char* tool_call = HELIX_EVENT_KIND_TOOL_CALL;
inline constexpr const char* tool_result = HELIX_EVENT_KIND_TOOL_RESULT;
inline constexpr const char* error = HELIX_EVENT_KIND_ERROR;
inline constexpr const char* test_run = HELIX_EVENT_KIND_TEST_RUN;
inline constexpr const char* edit = HELIX_EVENT_KIND_EDIT;
inline constexpr const char* retry = HELIX_EVENT_KIND_RETRY;
inline constexpr const char* human_intervention = HELIX_EVENT_KIND_HUMAN_INTERVENTION;
inline constexpr const char* decision = HELIX_EVENT_KIND_DECISION;
inline constexpr const char* lifecycle = HELIX_EVENT_KIND_LIFECYCLE;
inline constexpr const char* completion = HELIX_EVENT_KIND_COMPLETION;
inline constexpr const char* other = HELIX_EVENT_KIND_OTHER;
}  // namespace kind

// C++ views of the ABI records. Members are views: the caller keeps the bytes alive until the
// emit call returns (the host copies them).
struct Session {
  Text native_id{}, parent_native_id{}, cwd{}, git_branch{}, model{}, title{}, agent_version{};
  int64_t started_at_ms = 0, ended_at_ms = 0;
  Text forked_from_native_id{};  // ABI 1.3
};

struct Event {
  Text session_id{};
  uint64_t source_offset = 0;
  uint32_t ordinal = 0;
  uint32_t flags = 0;
  int64_t ts_ms = 0;
  Text kind{}, role{}, tool{}, uid{}, parent_uid{}, call_id{}, summary{}, text{}, payload{},
      model{};
};

struct Usage {
  Text session_id{}, key{};
  uint64_t source_offset = 0;
  uint32_t flags = 0;
  int64_t ts_ms = 0;
  Text model{};
  int64_t input_tokens = 0, output_tokens = 0, cache_read_tokens = 0, cache_creation_tokens = 0,
          reasoning_tokens = 0;
  double cost_usd = -1;
  int64_t cache_creation_1h_tokens = 0;  // the 1-hour part of cache_creation_tokens (ABI 1.3)
};

// One window of a provider's rate limit as a record reported it (helix.rate_limits/1, ABI 1.4).
struct RateLimit {
  Text session_id{};
  uint64_t source_offset = 0;
  int64_t ts_ms = 0;
  Text limit_id{}, window{};
  double used_percent = 0;
  int64_t window_minutes = 0, resets_at_ms = 0;  // 0 = unknown
};

struct Probe {
  std::string_view path{}, head{};
  uint64_t size = 0;
  bool path_ends_with(std::string_view suffix) const {
    return path.size() >= suffix.size() && path.substr(path.size() - suffix.size()) == suffix;
  }
  std::string_view file_name() const {
    auto slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
  }
};

// Thrown from parse_line() when the adapter cannot go on with the source at all: unlike any
// other exception (a warning for that line), it fails the whole call with its message.
class ParseFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Everything parse code talks to: the input and the host's emit callbacks.
class ParseContext {
 public:
  // `rate_limits` is the host's helix.rate_limits/1, or null when the host has none.
  ParseContext(helix_call* call, const helix_parse_input* in, const helix_emit_api* emit,
               const helix_rate_limits_ext* rate_limits = nullptr)
      : call_(call), in_(in), emit_(emit), rate_limits_(rate_limits) {}

  std::string_view path() const { return from_c(in_->path); }
  uint32_t layout() const { return in_->layout; }
  uint64_t base_offset() const { return in_->base_offset; }
  std::string_view data() const { return from_c(in_->data); }
  // State saved by this adapter with the previous committed chunk of this source.
  std::string_view state() const { return from_c(in_->state); }

  // Holds `s` until parse() returns and gives a view of it: for text built on the fly.
  Text keep(std::string s) const { return std::string_view(kept_.emplace_back(std::move(s))); }

  void session(const Session& s) const {
    helix_session c{};
    c.struct_size = sizeof c;
    c.native_id = to_c(s.native_id);
    c.parent_native_id = to_c(s.parent_native_id);
    c.cwd = to_c(s.cwd);
    c.git_branch = to_c(s.git_branch);
    c.model = to_c(s.model);
    c.title = to_c(s.title);
    c.agent_version = to_c(s.agent_version);
    c.started_at_ms = s.started_at_ms;
    c.ended_at_ms = s.ended_at_ms;
    c.forked_from_native_id = to_c(s.forked_from_native_id);
    emit_->session(call_, &c);
  }

  void event(const Event& e) const {
    helix_event c{};
    c.struct_size = sizeof c;
    c.session_id = to_c(e.session_id);
    c.source_offset = e.source_offset;
    c.ordinal = e.ordinal;
    c.flags = e.flags;
    c.ts_ms = e.ts_ms;
    c.kind = to_c(e.kind);
    c.role = to_c(e.role);
    c.tool = to_c(e.tool);
    c.uid = to_c(e.uid);
    c.parent_uid = to_c(e.parent_uid);
    c.call_id = to_c(e.call_id);
    c.summary = to_c(e.summary);
    c.text = to_c(e.text);
    c.payload = to_c(e.payload);
    c.model = to_c(e.model);
    emit_->event(call_, &c);
  }

  void usage(const Usage& u) const {
    helix_usage c{};
    c.struct_size = sizeof c;
    c.session_id = to_c(u.session_id);
    c.key = to_c(u.key);
    c.source_offset = u.source_offset;
    c.flags = u.flags;
    c.ts_ms = u.ts_ms;
    c.model = to_c(u.model);
    c.input_tokens = u.input_tokens;
    c.output_tokens = u.output_tokens;
    c.cache_read_tokens = u.cache_read_tokens;
    c.cache_creation_tokens = u.cache_creation_tokens;
    c.reasoning_tokens = u.reasoning_tokens;
    c.cost_usd = u.cost_usd;
    c.cache_creation_1h_tokens = u.cache_creation_1h_tokens;
    emit_->usage(call_, &c);
  }

  // Reported only to a host that offers helix.rate_limits/1; an older host never sees it.
  void rate_limit(const RateLimit& r) const {
    if (!rate_limits_) return;
    helix_rate_limit c{};
    c.struct_size = sizeof c;
    c.session_id = to_c(r.session_id);
    c.source_offset = r.source_offset;
    c.ts_ms = r.ts_ms;
    c.limit_id = to_c(r.limit_id);
    c.window = to_c(r.window);
    c.used_percent = r.used_percent;
    c.window_minutes = r.window_minutes;
    c.resets_at_ms = r.resets_at_ms;
    rate_limits_->rate_limit(call_, &c);
  }

  void warn(uint64_t offset, std::string_view category, std::string_view message) const {
    emit_->warn(call_, offset, to_c(category), to_c(message));
  }

  void save_state(std::string_view state) const { emit_->save_state(call_, to_c(state)); }

 private:
  helix_call* call_;
  const helix_parse_input* in_;
  const helix_emit_api* emit_;
  const helix_rate_limits_ext* rate_limits_;
  mutable std::deque<std::string> kept_;  // a deque never moves what it holds
};

// One native record turned into events: every event it emits shares the record's session,
// offset, time, flags, uid, parent_uid, payload and model, and gets the next ordinal (0, 1, ...)
// unless it is given one.
class RecordEmitter {
 public:
  // `record` holds what the record's events share; its kind, ordinal and texts are not used.
  RecordEmitter(const ParseContext& ctx, const Event& record) : ctx_(ctx), record_(record) {}

  // An event of this record with the record's fields filled in.
  Event event(Text kind, Text role = {}) const {
    Event e = record_;
    e.kind = kind;
    e.role = role;
    e.summary = e.text = {};
    return e;
  }
  // Emits `e` with the next ordinal; what `e` leaves empty comes from the record. The offset
  // is always the record's.
  void emit(Event e) { emit(e, next_ordinal_++); }
  // The same with a given ordinal (a content block's index, or one derived from a uid).
  void emit(Event e, uint32_t ordinal) {
    e.source_offset = record_.source_offset;
    e.ordinal = ordinal;
    if (e.session_id.empty()) e.session_id = record_.session_id;
    if (e.ts_ms == 0) e.ts_ms = record_.ts_ms;
    if (e.flags == 0) e.flags = record_.flags;
    if (e.uid.empty()) e.uid = record_.uid;
    if (e.parent_uid.empty()) e.parent_uid = record_.parent_uid;
    if (e.payload.empty()) e.payload = record_.payload;
    if (e.model.empty()) e.model = record_.model;
    ctx_.event(e);
    ++emitted_;
  }
  // How many events this record gave so far.
  uint32_t emitted() const { return emitted_; }
  const Event& record() const { return record_; }

 private:
  const ParseContext& ctx_;
  Event record_;
  uint32_t next_ordinal_ = 0;
  uint32_t emitted_ = 0;
};

namespace detail {

// Runs one record's parse: an exception becomes an `adapter_exception` warning at `offset`;
// ParseFailure and std::bad_alloc fail the whole call.
template <class Parse>
void isolate_record(const ParseContext& ctx, uint64_t offset, Parse&& parse) {
  try {
    parse();
  } catch (const ParseFailure&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw;  // not a bad record: the plugin ran out of memory, which fails the call
  } catch (const std::exception& e) {
    ctx.warn(offset, "adapter_exception", e.what());
  } catch (...) {
    ctx.warn(offset, "adapter_exception", "the adapter threw a non-standard exception");
  }
}

}  // namespace detail

// Calls `on_record(record, offset)` for each record span of a DOCUMENT (for instance
// helix::document::array_elements: anything with `.begin` and `.text(doc)`), with the same
// isolation as for_each_line: one record that throws is a warning and the next goes on.
template <class Spans, class OnRecord>
void for_each_record(const ParseContext& ctx, std::string_view doc, const Spans& spans,
                     OnRecord&& on_record) {
  for (const auto& span : spans) {
    const uint64_t offset = ctx.base_offset() + span.begin;
    detail::isolate_record(ctx, offset, [&] { on_record(span.text(doc), offset); });
  }
}

// Calls `on_line(line, offset)` for each non-empty line of a LINES chunk (without '\n' or a
// trailing '\r'). An exception from one line becomes an `adapter_exception` warning at its
// offset and the next line goes on; only ParseFailure (and std::bad_alloc) fails the whole call.
// Events the line emitted before it threw are kept.
template <class OnLine>
void for_each_line(const ParseContext& ctx, OnLine&& on_line) {
  const std::string_view data = ctx.data();
  std::size_t pos = 0;
  while (pos < data.size()) {
    std::size_t end = data.find('\n', pos);
    if (end == std::string_view::npos) end = data.size();
    std::string_view line = data.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const uint64_t offset = ctx.base_offset() + pos;
    pos = end + 1;
    if (line.empty()) continue;
    detail::isolate_record(ctx, offset, [&] { on_line(line, offset); });
  }
}

// Base class of an adapter. One instance serves one thread at a time.
class Adapter {
 public:
  virtual ~Adapter() = default;

  // The adapter's section of the host configuration, as a JSON object.
  virtual void configure(std::string_view /*config_json*/) {}

  // 0 = not mine, 50 = possible, 80 = likely, 100 = certain. Pure function of its input. An
  // exception is reported by the host as this plugin's failed probe.
  virtual int probe(const Probe& probe) = 0;

  // Default: LINES sources are split into lines (for_each_line: per-line exception isolation)
  // and handed to parse_line(); DOCUMENT sources go to parse_document(), where an exception
  // fails the call, so a torn document keeps what the host stored from the last good one.
  virtual void parse(ParseContext& ctx) {
    if (ctx.layout() == HELIX_LAYOUT_DOCUMENT) return parse_document(ctx, ctx.data());
    for_each_line(ctx,
                  [&](std::string_view line, uint64_t offset) { parse_line(ctx, line, offset); });
  }

  virtual void parse_line(ParseContext& /*ctx*/, std::string_view /*line*/, uint64_t /*offset*/) {}
  virtual void parse_document(ParseContext& ctx, std::string_view doc) {
    parse_line(ctx, doc, ctx.base_offset());
  }
};

// Builds the helix.resume/1 extension: the agent's command, each "{session_id}" replaced.
constexpr helix_resume_ext resume_command(const char* agent, const char* const* argv,
                                          uint32_t flags = HELIX_RESUME_IN_CWD) {
  return helix_resume_ext{sizeof(helix_resume_ext), flags, agent, argv, nullptr};
}
// ... or says why this adapter's sessions cannot be resumed.
constexpr helix_resume_ext resume_refused(const char* agent, const char* refusal) {
  return helix_resume_ext{sizeof(helix_resume_ext), 0, agent, nullptr, refusal};
}

// The hook event's keys (helix.hook/1); the lists end in nullptr.
struct HookEvents {
  const char* const* session_id_keys = nullptr;
  const char* const* transcript_keys = nullptr;
  const char* const* event_name_keys = nullptr;
  const char* flavor_env = nullptr;
  const char* const* companion_files = nullptr;
  uint32_t id_chars_in_file_names = 0;
};
constexpr helix_hook_ext hook_events(const HookEvents& h) {
  return helix_hook_ext{sizeof(helix_hook_ext),  h.session_id_keys, h.transcript_keys,
                        h.event_name_keys,       h.flavor_env,      h.companion_files,
                        h.id_chars_in_file_names};
}

// What HELIX_ADAPTER declares. roots: const char* const[] ending in nullptr ("~/" = home);
// patterns: helix_source_pattern[] ending in {nullptr, 0}. The extensions are optional.
struct AdapterInfo {
  const char* name = nullptr;
  const char* version = nullptr;
  const char* description = nullptr;
  const char* flavor = nullptr;
  const char* root_env = nullptr;
  const char* const* roots = nullptr;
  const helix_source_pattern* patterns = nullptr;
  const helix_resume_ext* resume = nullptr;  // helix.resume/1 (resume_command/resume_refused)
  const helix_hook_ext* hook = nullptr;      // helix.hook/1 (hook_events)
  const char* reparse_below = nullptr;       // helix.reparse/1: re-parse what older versions did
};

namespace detail {

struct AdapterHandle {
  Adapter* adapter;
  const helix_host_api* host;
  const helix_rate_limits_ext* rate_limits;  // null: the host has no helix.rate_limits/1
};

// The host's helix.rate_limits/1, read within the struct sizes the host declared, or null.
inline const helix_rate_limits_ext* host_rate_limits(const helix_host_api* host) noexcept {
  if (!host || host->struct_size < HELIX_SIZE_THROUGH(helix_host_api, get_extension) ||
      !host->get_extension)
    return nullptr;
  const auto* ext =
      static_cast<const helix_rate_limits_ext*>(host->get_extension(host, HELIX_EXT_RATE_LIMITS));
  if (!ext || ext->struct_size < HELIX_RATE_LIMITS_EXT_SIZE_1_4 || !ext->rate_limit) return nullptr;
  return ext;
}

inline void report(const helix_host_api* host, helix_call* call, const char* what) noexcept {
  if (host && host->set_error) host->set_error(call, helix_str{what, std::strlen(what)});
}

inline bool same_id(const char* a, const char* b) noexcept {
  return a && b && std::strcmp(a, b) == 0;
}

// The extension `id` of an adapter declared with `info`; `reparse` is info.reparse_below as
// the C struct.
inline const void* adapter_extension(const AdapterInfo& info, const helix_reparse_ext& reparse,
                                     const char* id) noexcept {
  if (same_id(id, HELIX_EXT_RESUME)) return info.resume;
  if (same_id(id, HELIX_EXT_HOOK)) return info.hook;
  if (same_id(id, HELIX_EXT_REPARSE) && info.reparse_below) return &reparse;
  return nullptr;
}

constexpr helix_reparse_ext reparse_ext(const AdapterInfo& info) {
  return helix_reparse_ext{sizeof(helix_reparse_ext), info.reparse_below};
}

template <class T>
struct AdapterGlue {
  static helix_status create(const helix_host_api* host, helix_call* call, helix_str config,
                             helix_adapter** out) noexcept {
    try {
      auto* adapter = new T();
      try {
        adapter->configure(from_c(config));
      } catch (...) {
        delete adapter;
        throw;
      }
      *out = reinterpret_cast<helix_adapter*>(
          new AdapterHandle{adapter, host, host_rate_limits(host)});
      return HELIX_OK;
    } catch (const std::exception& e) {
      report(host, call, e.what());
    } catch (...) {
      report(host, call, "adapter constructor threw a non-standard exception");
    }
    return HELIX_ERROR;
  }

  static void destroy(helix_adapter* a) noexcept {
    auto* handle = reinterpret_cast<AdapterHandle*>(a);
    delete handle->adapter;
    delete handle;
  }

  static int32_t probe(helix_adapter* a, const helix_probe_input* in) noexcept {
    try {
      Probe p{from_c(in->path), from_c(in->head), in->size};
      int score = reinterpret_cast<AdapterHandle*>(a)->adapter->probe(p);
      return score < 0 ? 0 : (score > 100 ? 100 : score);
    } catch (...) {
      return HELIX_PROBE_FAILED;
    }
  }

  static helix_status parse(helix_adapter* a, helix_call* call, const helix_parse_input* in,
                            const helix_emit_api* emit) noexcept {
    auto* handle = reinterpret_cast<AdapterHandle*>(a);
    try {
      ParseContext ctx(call, in, emit, handle->rate_limits);
      handle->adapter->parse(ctx);
      return HELIX_OK;
    } catch (const std::exception& e) {
      report(handle->host, call, e.what());
    } catch (...) {
      report(handle->host, call, "adapter threw a non-standard exception");
    }
    return HELIX_ERROR;
  }

  static constexpr helix_adapter_vtable table(const AdapterInfo& info,
                                              const void* (*get_extension)(const char*)) {
    return helix_adapter_vtable{sizeof(helix_adapter_vtable),
                                info.flavor,
                                info.root_env,
                                info.roots,
                                info.patterns,
                                &create,
                                &destroy,
                                &probe,
                                &parse,
                                get_extension};
  }
};

// An adapter needs nothing beyond ABI 1.0 from its host: the table's later members are
// optional, and the glue reads the host's inputs only within their struct_size.
constexpr uint32_t kAdapterNeedsMinor = 0;

constexpr helix_plugin_descriptor adapter_descriptor(const AdapterInfo& info,
                                                     const helix_adapter_vtable* table) {
  return helix_plugin_descriptor{HELIX_ABI_MAJOR,
                                 kAdapterNeedsMinor,
                                 sizeof(helix_plugin_descriptor),
                                 HELIX_KIND_ADAPTER,
                                 info.name,
                                 info.version,
                                 info.description,
                                 table};
}

}  // namespace detail
}  // namespace helix

// Declares the plugin with named fields (C++20 designated initializers), e.g.
//   HELIX_ADAPTER(MyAdapter, .name = "myagent", .version = "0.1.0", .description = "...",
//                 .flavor = "myagent", .root_env = "MYAGENT_HOME", .roots = kRoots,
//                 .patterns = kPatterns, .resume = &kResume)
// Its descriptor states the ABI minor the plugin needs (0: any 1.x host loads it).
#define HELIX_ADAPTER(Class, ...)                                                                 \
  static constexpr ::helix::AdapterInfo helix_adapter_info{__VA_ARGS__};                          \
  static constexpr helix_reparse_ext helix_adapter_reparse_ext =                                  \
      ::helix::detail::reparse_ext(helix_adapter_info);                                           \
  static const void* helix_adapter_get_extension(const char* id) noexcept {                       \
    return ::helix::detail::adapter_extension(helix_adapter_info, helix_adapter_reparse_ext, id); \
  }                                                                                               \
  static constexpr helix_adapter_vtable helix_adapter_vtable_instance =                           \
      ::helix::detail::AdapterGlue<Class>::table(helix_adapter_info,                              \
                                                 &helix_adapter_get_extension);                   \
  static constexpr helix_plugin_descriptor helix_plugin_descriptor_instance =                     \
      ::helix::detail::adapter_descriptor(helix_adapter_info, &helix_adapter_vtable_instance);    \
  extern "C" HELIX_EXPORT const helix_plugin_descriptor* helix_plugin_query(uint32_t, uint32_t) { \
    return &helix_plugin_descriptor_instance;                                                     \
  }

// The positional form of HELIX_ADAPTER (C++17), kept for plugins written before it:
//   roots:    static const char* const[] ending in nullptr ("~/" = home)
//   patterns: static const helix_source_pattern[] ending in {nullptr, 0}
#define HELIX_ADAPTER_PLUGIN(Class, name, version, description, flavor, root_env, roots, patterns) \
  HELIX_ADAPTER(                                                                                   \
      Class, ::helix::AdapterInfo{name, version, description, flavor, root_env, roots, patterns})

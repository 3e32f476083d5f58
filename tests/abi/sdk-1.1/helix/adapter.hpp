// helix/adapter.hpp: header-only C++ wrapper for writing an adapter plugin in one class.
//
// Derive from helix::Adapter, override probe() and parse_line() (or parse_document()), and
// declare the plugin with HELIX_ADAPTER_PLUGIN. The macro generates the C entry point and the
// function table; every trampoline is noexcept and turns exceptions into HELIX_ERROR, so no
// C++ exception or type crosses the ABI. This header compiles into the plugin, not the host.
#pragma once

#include <helix/helix_plugin.h>

#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <string_view>

namespace helix {

inline helix_str to_c(std::string_view s) noexcept { return helix_str{s.data(), s.size()}; }
inline std::string_view from_c(helix_str s) noexcept {
  return s.ptr ? std::string_view(s.ptr, s.len) : std::string_view();
}

// C++ views of the ABI records. Members are views: the caller keeps the bytes alive until the
// emit call returns (the host copies them).
struct Session {
  std::string_view native_id{}, parent_native_id{}, cwd{}, git_branch{}, model{}, title{},
      agent_version{};
  int64_t started_at_ms = 0, ended_at_ms = 0;
};

struct Event {
  std::string_view session_id;
  uint64_t source_offset = 0;
  uint32_t ordinal = 0;
  uint32_t flags = 0;
  int64_t ts_ms = 0;
  std::string_view kind{}, role{}, tool{}, uid{}, parent_uid{}, call_id{}, summary{}, text{},
      payload{}, model{};
};

struct Usage {
  std::string_view session_id{}, key{};
  uint64_t source_offset = 0;
  uint32_t flags = 0;
  int64_t ts_ms = 0;
  std::string_view model{};
  int64_t input_tokens = 0, output_tokens = 0, cache_read_tokens = 0, cache_creation_tokens = 0,
          reasoning_tokens = 0;
  double cost_usd = -1;
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

// Everything parse code talks to: the input and the host's emit callbacks.
class ParseContext {
 public:
  ParseContext(helix_call* call, const helix_parse_input* in, const helix_emit_api* emit)
      : call_(call), in_(in), emit_(emit) {}

  std::string_view path() const { return from_c(in_->path); }
  uint32_t layout() const { return in_->layout; }
  uint64_t base_offset() const { return in_->base_offset; }
  std::string_view data() const { return from_c(in_->data); }
  // State saved by this adapter with the previous committed chunk of this source.
  std::string_view state() const { return from_c(in_->state); }

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
    emit_->usage(call_, &c);
  }

  void warn(uint64_t offset, std::string_view category, std::string_view message) const {
    emit_->warn(call_, offset, to_c(category), to_c(message));
  }

  void save_state(std::string_view state) const { emit_->save_state(call_, to_c(state)); }

 private:
  helix_call* call_;
  const helix_parse_input* in_;
  const helix_emit_api* emit_;
};

// Base class of an adapter. One instance serves one thread at a time.
class Adapter {
 public:
  virtual ~Adapter() = default;

  // The adapter's section of the host configuration, as a JSON object.
  virtual void configure(std::string_view /*config_json*/) {}

  // 0 = not mine, 50 = possible, 80 = likely, 100 = certain. Pure function of its input.
  virtual int probe(const Probe& probe) = 0;

  // Default: LINES sources are split into lines (without '\n' or a trailing '\r'; blank lines
  // skipped) and handed to parse_line(); DOCUMENT sources go to parse_document().
  virtual void parse(ParseContext& ctx) {
    if (ctx.layout() == HELIX_LAYOUT_DOCUMENT) return parse_document(ctx, ctx.data());
    std::string_view data = ctx.data();
    std::size_t pos = 0;
    while (pos < data.size()) {
      std::size_t end = data.find('\n', pos);
      if (end == std::string_view::npos) end = data.size();
      std::string_view line = data.substr(pos, end - pos);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (!line.empty()) parse_line(ctx, line, ctx.base_offset() + pos);
      pos = end + 1;
    }
  }

  virtual void parse_line(ParseContext& /*ctx*/, std::string_view /*line*/, uint64_t /*offset*/) {}
  virtual void parse_document(ParseContext& ctx, std::string_view doc) {
    parse_line(ctx, doc, ctx.base_offset());
  }
};

namespace detail {

struct AdapterHandle {
  Adapter* adapter;
  const helix_host_api* host;
};

inline void report(const helix_host_api* host, helix_call* call, const char* what) noexcept {
  if (host && host->set_error) host->set_error(call, helix_str{what, std::strlen(what)});
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
      *out = reinterpret_cast<helix_adapter*>(new AdapterHandle{adapter, host});
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
      return 0;
    }
  }

  static helix_status parse(helix_adapter* a, helix_call* call, const helix_parse_input* in,
                            const helix_emit_api* emit) noexcept {
    auto* handle = reinterpret_cast<AdapterHandle*>(a);
    try {
      ParseContext ctx(call, in, emit);
      handle->adapter->parse(ctx);
      return HELIX_OK;
    } catch (const std::exception& e) {
      report(handle->host, call, e.what());
    } catch (...) {
      report(handle->host, call, "adapter threw a non-standard exception");
    }
    return HELIX_ERROR;
  }
};

}  // namespace detail
}  // namespace helix

// Declares the plugin: the class, its identity, where its sources live.
//   roots:    static const char* const[] ending in nullptr ("~/" = home)
//   patterns: static const helix_source_pattern[] ending in {nullptr, 0}
#define HELIX_ADAPTER_PLUGIN(Class, name, version, description, flavor, root_env, roots, patterns) \
  static const helix_adapter_vtable helix_adapter_vtable_instance = {                            \
      sizeof(helix_adapter_vtable),                                                              \
      flavor,                                                                                    \
      root_env,                                                                                  \
      roots,                                                                                     \
      patterns,                                                                                  \
      &::helix::detail::AdapterGlue<Class>::create,                                              \
      &::helix::detail::AdapterGlue<Class>::destroy,                                             \
      &::helix::detail::AdapterGlue<Class>::probe,                                               \
      &::helix::detail::AdapterGlue<Class>::parse};                                              \
  static const helix_plugin_descriptor helix_plugin_descriptor_instance = {                      \
      HELIX_ABI_MAJOR, HELIX_ABI_MINOR, sizeof(helix_plugin_descriptor), HELIX_KIND_ADAPTER,     \
      name,            version,         description,                     &helix_adapter_vtable_instance}; \
  extern "C" HELIX_EXPORT const helix_plugin_descriptor* helix_plugin_query(uint32_t, uint32_t) {  \
    return &helix_plugin_descriptor_instance;                                                    \
  }

// helix/digester.hpp: header-only C++ wrapper for writing a digester plugin in one class (ABI 1.3).
//
// Derive from helix::Digester, override begin(), event(), optionally usage(), and end() (which
// returns the digest as a JSON object), and declare the plugin with HELIX_DIGESTER (or the
// positional HELIX_DIGESTER_PLUGIN). The macro generates the C entry point and the function table;
// every trampoline is noexcept, and an exception thrown while a session streams in becomes that
// session's HELIX_ERROR at end_session, so no C++ exception or type crosses the ABI. The record
// views (helix::Event, helix::Usage) are those of helix/adapter.hpp. A digester that overrides
// save_state() and resume() is given only the new events of a grown session, and can fold the
// growth of one whose raw events were evicted.
#pragma once

#include <helix/adapter.hpp>

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace helix {

// A view of the stored session a digest is computed for; valid during begin().
struct DigestSession {
  std::string_view session_uid, flavor, native_id, parent_uid, repo, domain, cwd, git_branch, model,
      title, agent_version;
  int64_t started_at_ms = 0, ended_at_ms = 0;
};

// Base class of a digester. One instance digests one session at a time, start to end. Keep
// everything a digest needs in members: the views passed in die when the call returns.
class Digester {
 public:
  virtual ~Digester() = default;

  // The digester's [digesters.<name>] section of the host configuration, as a JSON object.
  virtual void configure(std::string_view /*config_json*/) {}

  // A new session starts: reset the per-session state.
  virtual void begin(const DigestSession& session) = 0;
  // Every stored event in seq order, with its full text.
  virtual void event(const Event& event) = 0;
  // Every kept usage record (one per model call), ordered by time.
  virtual void usage(const Usage& /*usage*/) {}
  // The digest of the session: one JSON object. Must depend on the input alone.
  virtual std::string end() = 0;

  // What resume() needs to go on from the events seen so far (called after end(); stored by
  // the host with the digest). Empty = this digester cannot resume. Usage-derived totals do not
  // belong in it: on resume every usage record of the session is streamed again.
  virtual std::string save_state() const { return {}; }
  // Starts a session like begin(), restoring what save_state() returned after earlier events;
  // only the events stored since then follow. Throw for a state it cannot read.
  virtual void resume(const DigestSession& /*session*/, std::string_view /*state*/) {
    throw std::runtime_error("this digester cannot resume");
  }
};

namespace detail {

struct DigesterHandle {
  Digester* digester;
  const helix_host_api* host;
  std::optional<std::string> error;  // the first failure while the session streamed in
};

template <class T>
struct DigesterGlue {
  static DigesterHandle* handle(helix_digester* d) { return reinterpret_cast<DigesterHandle*>(d); }

  // Runs one streaming callback; the first exception is kept for end_session to report.
  template <class F>
  static void guarded(helix_digester* d, F&& f) noexcept {
    auto* h = handle(d);
    if (h->error) return;
    try {
      f(*h->digester);
    } catch (const std::exception& e) {
      h->error = e.what();
    } catch (...) {
      h->error = "digester threw a non-standard exception";
    }
  }

  static helix_status create(const helix_host_api* host, helix_call* call, helix_str config,
                             helix_digester** out) noexcept {
    try {
      auto* digester = new T();
      try {
        digester->configure(from_c(config));
      } catch (...) {
        delete digester;
        throw;
      }
      *out = reinterpret_cast<helix_digester*>(new DigesterHandle{digester, host, {}});
      return HELIX_OK;
    } catch (const std::exception& e) {
      report(host, call, e.what());
    } catch (...) {
      report(host, call, "digester constructor threw a non-standard exception");
    }
    return HELIX_ERROR;
  }

  static void destroy(helix_digester* d) noexcept {
    delete handle(d)->digester;
    delete handle(d);
  }

  static DigestSession view(const helix_digest_session* s) {
    DigestSession v;
    v.session_uid = from_c(s->session_uid);
    v.flavor = from_c(s->flavor);
    v.native_id = from_c(s->native_id);
    v.parent_uid = from_c(s->parent_uid);
    v.repo = from_c(s->repo);
    v.domain = from_c(s->domain);
    v.cwd = from_c(s->cwd);
    v.git_branch = from_c(s->git_branch);
    v.model = from_c(s->model);
    v.title = from_c(s->title);
    v.agent_version = from_c(s->agent_version);
    v.started_at_ms = s->started_at_ms;
    v.ended_at_ms = s->ended_at_ms;
    return v;
  }

  static void begin_session(helix_digester* d, const helix_digest_session* s) noexcept {
    handle(d)->error.reset();
    guarded(d, [&](Digester& digester) { digester.begin(view(s)); });
  }

  // A state the digester cannot read fails at once: the host digests a kept session from the
  // start and keeps an evicted session's previous digest.
  static helix_status resume_session(helix_digester* d, helix_call* call,
                                     const helix_digest_session* s, helix_str state) noexcept {
    auto* h = handle(d);
    h->error.reset();
    guarded(d, [&](Digester& digester) { digester.resume(view(s), from_c(state)); });
    if (!h->error) return HELIX_OK;
    report(h->host, call, h->error->c_str());
    return HELIX_ERROR;
  }

  // The vtable's resume_session: NULL unless T overrides resume(), so that the host knows
  // from the plugin alone whether growth after eviction can be folded (and says so when not).
  using DefaultResume = void (Digester::*)(const DigestSession&, std::string_view);
  static constexpr bool overrides_resume = !std::is_same_v<decltype(&T::resume), DefaultResume>;
  static constexpr auto resume_entry = overrides_resume ? &resume_session : nullptr;

  static void event(helix_digester* d, const helix_event* e) noexcept {
    guarded(d, [&](Digester& digester) {
      Event v;
      v.session_id = from_c(e->session_id);
      v.source_offset = e->source_offset;
      v.ordinal = e->ordinal;
      v.flags = e->flags;
      v.ts_ms = e->ts_ms;
      v.kind = from_c(e->kind);
      v.role = from_c(e->role);
      v.tool = from_c(e->tool);
      v.uid = from_c(e->uid);
      v.parent_uid = from_c(e->parent_uid);
      v.call_id = from_c(e->call_id);
      v.summary = from_c(e->summary);
      v.text = from_c(e->text);
      v.payload = from_c(e->payload);
      v.model = from_c(e->model);
      digester.event(v);
    });
  }

  static void usage(helix_digester* d, const helix_usage* u) noexcept {
    guarded(d, [&](Digester& digester) {
      Usage v;
      v.session_id = from_c(u->session_id);
      v.key = from_c(u->key);
      v.source_offset = u->source_offset;
      v.flags = u->flags;
      v.ts_ms = u->ts_ms;
      v.model = from_c(u->model);
      v.input_tokens = u->input_tokens;
      v.output_tokens = u->output_tokens;
      v.cache_read_tokens = u->cache_read_tokens;
      v.cache_creation_tokens = u->cache_creation_tokens;
      v.reasoning_tokens = u->reasoning_tokens;
      v.cost_usd = u->cost_usd;
      if (u->struct_size >= offsetof(helix_usage, cache_creation_1h_tokens) + sizeof(int64_t))
        v.cache_creation_1h_tokens = u->cache_creation_1h_tokens;  // a 1.3 host or newer
      digester.usage(v);
    });
  }

  static helix_status end_session(helix_digester* d, helix_call* call,
                                  const helix_digest_api* api) noexcept {
    auto* h = handle(d);
    try {
      if (!h->error) {
        std::string json = h->digester->end();
        api->result(call, to_c(json));
        // A host older than ABI 1.2 has no state callback: check before reading it.
        if (api->struct_size >= offsetof(helix_digest_api, state) + sizeof(api->state) &&
            api->state) {
          std::string state = h->digester->save_state();
          if (!state.empty()) api->state(call, to_c(state));
        }
        return HELIX_OK;
      }
    } catch (const std::exception& e) {
      h->error = e.what();
    } catch (...) {
      h->error = "digester threw a non-standard exception";
    }
    report(h->host, call, h->error->c_str());
    return HELIX_ERROR;
  }
};

}  // namespace detail
}  // namespace helix

// What HELIX_DIGESTER declares. The version is semantic: raising its major version makes the host
// re-digest every session.
namespace helix {
struct DigesterInfo {
  const char* name = nullptr;
  const char* version = nullptr;
  const char* description = nullptr;
};
namespace detail {
template <class T>
constexpr helix_digester_vtable digester_table() {
  using Glue = DigesterGlue<T>;
  return helix_digester_vtable{sizeof(helix_digester_vtable),
                               &Glue::create,
                               &Glue::destroy,
                               &Glue::begin_session,
                               &Glue::event,
                               &Glue::usage,
                               &Glue::end_session,
                               Glue::resume_entry,
                               nullptr /* no digester extensions yet */};
}
// The minor a digester needs: digesters came with ABI 1.1, resume_session with 1.2.
template <class T>
constexpr uint32_t digester_needs_minor() {
  // (a bool, not the pointer: a function's address is no constant under -fsanitize=undefined)
  return DigesterGlue<T>::overrides_resume ? 2 : 1;
}
template <class T>
constexpr helix_plugin_descriptor digester_descriptor(const DigesterInfo& info,
                                                      const helix_digester_vtable* table) {
  return helix_plugin_descriptor{HELIX_ABI_MAJOR,
                                 digester_needs_minor<T>(),
                                 sizeof(helix_plugin_descriptor),
                                 HELIX_KIND_DIGESTER,
                                 info.name,
                                 info.version,
                                 info.description,
                                 table};
}
}  // namespace detail
}  // namespace helix

// Declares the digester plugin with named fields (C++20), e.g.
//   HELIX_DIGESTER(Counter, .name = "counter", .version = "1.0.0", .description = "...")
#define HELIX_DIGESTER(Class, ...)                                                                \
  static constexpr ::helix::DigesterInfo helix_digester_info{__VA_ARGS__};                        \
  static constexpr helix_digester_vtable helix_digester_vtable_instance =                         \
      ::helix::detail::digester_table<Class>();                                                   \
  static constexpr helix_plugin_descriptor helix_plugin_descriptor_instance =                     \
      ::helix::detail::digester_descriptor<Class>(helix_digester_info,                            \
                                                  &helix_digester_vtable_instance);               \
  extern "C" HELIX_EXPORT const helix_plugin_descriptor* helix_plugin_query(uint32_t, uint32_t) { \
    return &helix_plugin_descriptor_instance;                                                     \
  }

// The positional form of HELIX_DIGESTER (C++17), kept for plugins written before it.
#define HELIX_DIGESTER_PLUGIN(Class, name, version, description) \
  HELIX_DIGESTER(Class, ::helix::DigesterInfo{name, version, description})

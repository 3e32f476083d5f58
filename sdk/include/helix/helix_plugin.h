/* helix/helix_plugin.h: the Helix plugin ABI, the only contract between helix-host and a plugin.
 *
 * Pure C (C99), no dependencies. A plugin is a shared library that exports one symbol,
 * helix_plugin_query(), returning a static descriptor. Everything else travels through the
 * function tables declared here.
 *
 * Versioning. HELIX_ABI_MAJOR changes only when an existing member changes meaning or
 * position; HELIX_ABI_MINOR grew when members were appended (up to 1.3) or the host offered a new
 * extension (1.4: helix.rate_limits/1). A descriptor states the
 * minor the plugin NEEDS (not the header it was compiled with); the host accepts a plugin iff
 * plugin major == host major and that minor <= host minor. Every struct that crosses the
 * boundary carries `struct_size`; a reader uses only members that lie inside it and treats the
 * rest as zero, and refuses a struct smaller than its first version (HELIX_*_SIZE_1_0 below).
 * Since ABI 1.3 the structs are frozen: new capabilities are extensions, looked up by id through
 * get_extension() on the host API and on each plugin table (see "Extensions").
 *
 * Ownership (the rules, then OWNERSHIP notes on each pointer):
 *  1. Nothing allocated on one side is freed on the other. No C++ type or exception crosses.
 *  2. Host -> plugin inputs (helix_str, structs) are BORROWED for the duration of the call.
 *  3. Plugin -> host records passed to emit callbacks are BORROWED for the duration of the
 *     callback; the host copies what it keeps, so a plugin may reuse its buffers afterwards.
 *  4. The descriptor, its vtable and every string reachable from them are STATIC data of the
 *     plugin, valid while the library is loaded (the host never unloads during a run).
 *  5. Plugin instances (helix_adapter*) are owned by the plugin; the host calls destroy().
 *
 * Threading. One adapter instance is used by one thread at a time; the host may create several
 * instances. probe() and parse() must be pure functions of their inputs (and the state the host
 * hands back): no file, network or database access, no process-global side effects. The same
 * holds for digesters (ABI 1.1): a digest is a pure function of the session the host streams
 * (and, ABI 1.2, of the state it hands back on resume).
 */
#ifndef HELIX_PLUGIN_H_
#define HELIX_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>

#define HELIX_ABI_MAJOR 1
#define HELIX_ABI_MINOR 4

#if defined(_WIN32)
#define HELIX_EXPORT __declspec(dllexport)
#else
#define HELIX_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* A UTF-8 string view, not NUL-terminated. {NULL, 0} and {p, 0} both mean "empty/unknown".
 * OWNERSHIP: borrowed; see rules 2 and 3. */
typedef struct helix_str {
  const char* ptr;
  size_t len;
} helix_str;

typedef int32_t helix_status;
#define HELIX_OK 0
#define HELIX_ERROR 1 /* the call failed as a whole; the message was set with set_error() */

/* Plugin kinds. */
#define HELIX_KIND_ADAPTER 1
#define HELIX_KIND_DIGESTER 2 /* since ABI 1.1: helix_digester_vtable */

/* How the host reads a source. */
#define HELIX_LAYOUT_LINES 1    /* append-only JSONL: complete lines from the committed offset */
#define HELIX_LAYOUT_DOCUMENT 2 /* one document, re-read whole and replaced when it changes */

/* Event kinds (helix_event.kind). Host and plugins share these spellings; HELIX_EVENT_KINDS(X)
 * expands X(kind) for each, e.g. to build a list. */
#define HELIX_EVENT_KIND_USER_MSG "user_msg"
#define HELIX_EVENT_KIND_ASSISTANT_MSG "assistant_msg"
#define HELIX_EVENT_KIND_THINKING "thinking"
#define HELIX_EVENT_KIND_TOOL_CALL "tool_call"
#define HELIX_EVENT_KIND_TOOL_RESULT "tool_result"
#define HELIX_EVENT_KIND_ERROR "error"
#define HELIX_EVENT_KIND_TEST_RUN "test_run"
#define HELIX_EVENT_KIND_EDIT "edit"
#define HELIX_EVENT_KIND_RETRY "retry"
#define HELIX_EVENT_KIND_HUMAN_INTERVENTION "human_intervention"
#define HELIX_EVENT_KIND_DECISION "decision"
#define HELIX_EVENT_KIND_LIFECYCLE "lifecycle"
#define HELIX_EVENT_KIND_COMPLETION "completion"
#define HELIX_EVENT_KIND_OTHER "other"
/* clang-format off: one kind per line */
#define HELIX_EVENT_KINDS(X)             \
  X(HELIX_EVENT_KIND_USER_MSG)           \
  X(HELIX_EVENT_KIND_ASSISTANT_MSG)      \
  X(HELIX_EVENT_KIND_THINKING)           \
  X(HELIX_EVENT_KIND_TOOL_CALL)          \
  X(HELIX_EVENT_KIND_TOOL_RESULT)        \
  X(HELIX_EVENT_KIND_ERROR)              \
  X(HELIX_EVENT_KIND_TEST_RUN)           \
  X(HELIX_EVENT_KIND_EDIT)               \
  X(HELIX_EVENT_KIND_RETRY)              \
  X(HELIX_EVENT_KIND_HUMAN_INTERVENTION) \
  X(HELIX_EVENT_KIND_DECISION)           \
  X(HELIX_EVENT_KIND_LIFECYCLE)          \
  X(HELIX_EVENT_KIND_COMPLETION)         \
  X(HELIX_EVENT_KIND_OTHER)
/* clang-format on */

/* probe() result of a probe that failed (the C++ glue returns it when probe() throws); since
 * ABI 1.3 the host reports it as a warning naming the plugin, older hosts read it as 0. */
#define HELIX_PROBE_FAILED (-1)

/* Event flags. */
#define HELIX_EVENT_SIDECHAIN 1u /* belongs to a subagent/sidechain conversation */
/* Usage flag (ABI 1.3): not a model call but the agent's own running total of what the session
 * cost so far (e.g. Claude Code's cost-state records), in cost_usd, per key; the host keeps the
 * latest record of each key, shows it beside its own priced cost, and counts no tokens or call
 * for it. Older hosts take it for a call without tokens. */
#define HELIX_USAGE_AGENT_TOTAL 2u

/* Opaque host context of one call. OWNERSHIP: host-owned, valid only during that call. */
typedef struct helix_call helix_call;
/* Opaque plugin instance. OWNERSHIP: plugin-owned; released by the host through destroy(). */
typedef struct helix_adapter helix_adapter;

/* Services the host offers every plugin. OWNERSHIP: host-owned, valid until destroy(). */
typedef struct helix_host_api {
  uint32_t struct_size;
  uint32_t abi_major;
  uint32_t abi_minor;
  /* Sets the message explaining a HELIX_ERROR return; the host copies `message`. */
  void (*set_error)(helix_call* call, helix_str message);
  /* ABI 1.3 (read struct_size first): the host's extension `id` ("helix.<name>/<rev>"), or NULL
   * when it has none of that id. OWNERSHIP: host-owned, valid until destroy(). */
  const void* (*get_extension)(const struct helix_host_api* host, const char* id);
} helix_host_api;

/* ---- Records an adapter emits ------------------------------------------------------------ */

/* What is known about a session. Empty fields and zero times are "unknown" and never erase
 * what an earlier record said. Merge rule: started_at keeps the minimum, ended_at the maximum,
 * cwd and parent_native_id the first value known; every other field the latest value. */
typedef struct helix_session {
  uint32_t struct_size;
  helix_str native_id;        /* required: the agent's own session id; uid = "<flavor>:<id>" */
  helix_str parent_native_id; /* a separate subagent session's parent session id, if any */
  helix_str cwd;
  helix_str git_branch;
  helix_str model;
  helix_str title;         /* the agent's own title for the session */
  helix_str agent_version; /* the agent CLI's version that wrote the records */
  int64_t started_at_ms;   /* Unix epoch milliseconds; 0 = unknown */
  int64_t ended_at_ms;
  /* ABI 1.3 (the host reads it only inside struct_size): the session this one was forked from
   * (a copy of its conversation continued under a new id), if any. The host links the fork to
   * its origin and keeps the records the fork copied as references to the origin's, not as
   * events of its own. Merge rule: the first value known. */
  helix_str forked_from_native_id;
} helix_session;

/* One normalized SessionEvent. `kind` is one of HELIX_EVENT_KINDS: user_msg, assistant_msg,
 * thinking, tool_call, tool_result, error, test_run, edit, retry, human_intervention, decision,
 * lifecycle, completion, other ("other" keeps records of types the adapter does not map).
 * Identity: (source, source_offset, ordinal) is unique; a record re-read after a crash is
 * stored once. Events with a `uid` are also unique per (session, uid, ordinal), so a record
 * copied into several files (resumes, rewrites) is stored once, first copy wins. */
typedef struct helix_event {
  uint32_t struct_size;
  helix_str session_id;   /* required: native session id this event belongs to */
  uint64_t source_offset; /* byte offset of the record's first byte in the source */
  uint32_t ordinal;       /* 0.. when one record yields several events */
  uint32_t flags;         /* HELIX_EVENT_* */
  int64_t ts_ms;          /* Unix epoch milliseconds; 0 = unknown */
  helix_str kind;
  helix_str role;       /* user | assistant | system | tool */
  helix_str tool;       /* tool name for tool_call/tool_result/edit/test_run/error */
  helix_str uid;        /* native record id (Claude uuid); empty = none */
  helix_str parent_uid; /* native id of the parent record; the host resolves parent_seq */
  helix_str call_id;    /* pairs a call with its result; a result without `tool` inherits it */
  helix_str summary;    /* one line for humans; the host truncates it to 200 characters */
  helix_str text;       /* the full text: prompt, answer, command, output, error message */
  helix_str payload;    /* the raw record as read; stored compressed behind payload_ref.
                           Events of one record may pass the same bytes; stored once. */
  helix_str model;
} helix_event;

/* Token usage of one model call. Token convention, the same for every flavor:
 * input_tokens excludes cache reads and cache writes; output_tokens includes reasoning;
 * reasoning_tokens is the reasoning part of output (reported apart, never added again). */
typedef struct helix_usage {
  uint32_t struct_size;
  helix_str session_id; /* required */
  helix_str key;        /* de-duplication key, unique within the flavor (e.g. Claude message.id
                           + requestId). Records with equal keys are one call: the host keeps
                           the one with the largest total. Empty = this record is unique. */
  uint64_t source_offset;
  uint32_t flags; /* HELIX_EVENT_SIDECHAIN, HELIX_USAGE_AGENT_TOTAL */
  int64_t ts_ms;
  helix_str model;
  int64_t input_tokens;
  int64_t output_tokens;
  int64_t cache_read_tokens;
  int64_t cache_creation_tokens;
  int64_t reasoning_tokens;
  double cost_usd; /* cost reported by the agent itself; negative = not reported */
  /* ABI 1.3 (read struct_size first): the part of cache_creation_tokens written to the 1-hour
   * cache, billed at its own rate (Claude's usage.cache_creation.ephemeral_1h_input_tokens). */
  int64_t cache_creation_1h_tokens;
} helix_usage;

/* Callbacks an adapter calls during parse(). OWNERSHIP: host-owned, valid during the call;
 * every record passed in is borrowed for the duration of the callback (rule 3). */
typedef struct helix_emit_api {
  uint32_t struct_size;
  void (*session)(helix_call* call, const helix_session* session);
  void (*event)(helix_call* call, const helix_event* event);
  void (*usage)(helix_call* call, const helix_usage* usage);
  /* A record that could not be used (or a notable one, e.g. an unknown type). `category` is a
   * short snake_case word (invalid_json, unknown_type, ...); the host counts per category. */
  void (*warn)(helix_call* call, uint64_t source_offset, helix_str category, helix_str message);
  /* Saves opaque adapter state for this source (at most 64 KiB). It is committed atomically
   * with the data of this call and handed back as helix_parse_input.state on the next call. */
  void (*save_state)(helix_call* call, helix_str state);
} helix_emit_api;

/* ---- Adapter plugins ---------------------------------------------------------------------- */

/* A glob of source files relative to each root. `*` and `?` match within one path segment,
 * `**` matches any number of segments. OWNERSHIP: static. */
typedef struct helix_source_pattern {
  const char* glob;
  uint32_t layout; /* HELIX_LAYOUT_* */
} helix_source_pattern;

typedef struct helix_probe_input {
  uint32_t struct_size;
  helix_str path; /* absolute path of the candidate source */
  helix_str head; /* its first bytes (up to 64 KiB), decompressed if the file is compressed */
  uint64_t size;  /* size of the file on disk */
} helix_probe_input;

typedef struct helix_parse_input {
  uint32_t struct_size;
  helix_str path;
  uint32_t layout;
  uint64_t base_offset; /* offset of data.ptr[0] within the (decompressed) source */
  helix_str data;       /* LINES: whole lines, each ending in '\n'. DOCUMENT: the whole file */
  helix_str state;      /* what save_state() last committed for this source; empty at offset 0 */
} helix_parse_input;

typedef struct helix_adapter_vtable {
  uint32_t struct_size;
  const char* flavor;                   /* session_uid prefix, e.g. "claude"; [a-z0-9_-]+ */
  const char* root_env;                 /* env var holding root dirs (comma list), or NULL */
  const char* const* default_roots;     /* NULL-terminated; a leading "~/" means $HOME */
  const helix_source_pattern* patterns; /* terminated by an entry whose glob is NULL */
  /* Creates an instance. config_json is the adapter's section of the host config as a JSON
   * object ("{}" when absent). On failure returns HELIX_ERROR after set_error(). */
  helix_status (*create)(const helix_host_api* host, helix_call* call, helix_str config_json,
                         helix_adapter** out);
  void (*destroy)(helix_adapter* adapter);
  /* How sure the adapter is that it understands this source: 0 not mine, 50 possible,
   * 80 likely, 100 certain. The highest score claims the source for good. */
  int32_t (*probe)(helix_adapter* adapter, const helix_probe_input* input);
  /* Turns bytes into records through `emit`. Bad records are reported with warn() and skipped;
   * HELIX_ERROR means the adapter cannot go on with this source at all. A DOCUMENT that does
   * not parse as a whole (torn by a writer that rewrites it in place) must return HELIX_ERROR:
   * the host then keeps what it stored from the last complete parse and retries. */
  helix_status (*parse)(helix_adapter* adapter, helix_call* call, const helix_parse_input* input,
                        const helix_emit_api* emit);
  /* ABI 1.3 (read struct_size first; may be NULL): the adapter's extension `id`, or NULL.
   * OWNERSHIP: static data of the plugin, like the table itself. */
  const void* (*get_extension)(const char* id);
} helix_adapter_vtable;

/* ---- Digester plugins (ABI 1.1) ----------------------------------------------------------- */

/* Opaque digester instance. OWNERSHIP: plugin-owned; released by the host through destroy(). */
typedef struct helix_digester helix_digester;

/* The stored session a digest is computed for (Tier 1 as it is now). OWNERSHIP: borrowed for
 * the duration of begin_session(). */
typedef struct helix_digest_session {
  uint32_t struct_size;
  helix_str session_uid; /* "<flavor>:<native id>" */
  helix_str flavor;
  helix_str native_id;
  helix_str parent_uid; /* a subagent session's parent session uid, if any */
  helix_str repo;
  helix_str domain;
  helix_str cwd;
  helix_str git_branch;
  helix_str model;
  helix_str title;
  helix_str agent_version;
  int64_t started_at_ms; /* Unix epoch milliseconds; 0 = unknown */
  int64_t ended_at_ms;
} helix_digest_session;

/* Where a digester delivers its result. OWNERSHIP: host-owned, valid during end_session(). */
typedef struct helix_digest_api {
  uint32_t struct_size;
  /* The session's digest: one JSON object (UTF-8). The host copies it; the last call wins. */
  void (*result)(helix_call* call, helix_str json);
  /* ABI 1.2 (read struct_size first): the digester's resumable state after the events it was
   * given, as opaque bytes the host stores with the digest and hands back to resume_session.
   * Valid only during end_session, with the call it was given (like result). The host copies
   * it; the last call wins. Optional: a digester that never calls it is given every event of
   * a grown session again, and cannot fold the growth of one whose raw events were evicted. */
  void (*state)(helix_call* call, helix_str bytes);
} helix_digest_api;

/* One session is digested as: begin_session, then event() for every stored event in `seq`
 * order (with its full text; payload is empty; session_id is the native id), then usage() for
 * every kept usage record (ordered by time), then end_session, which reports the digest through
 * `digest->result`. The same input must give the same digest (no clock, no randomness), and a
 * digester reads nothing but what the host streams: no file, network or database access.
 * A new session always starts with begin_session (or resume_session), also after an error.
 *
 * Resuming (ABI 1.2). The host stores the state a digester reports with each digest. When the
 * session grows, the host may call resume_session with that state instead of begin_session,
 * then event() only for the events stored since (for a session whose raw events were evicted
 * by retention, the earlier ones are gone; for a kept one, the host resumes only when none of
 * them changed), then usage() for EVERY usage record of the session (usage is never evicted, so
 * usage-derived totals must not be in the state), then end_session. The digest must equal the
 * one the digester would give for all events. */
typedef struct helix_digester_vtable {
  uint32_t struct_size;
  /* The digester's [digesters.<name>] section of the host config as a JSON object ("{}" when
   * absent). On failure returns HELIX_ERROR after set_error(). */
  helix_status (*create)(const helix_host_api* host, helix_call* call, helix_str config_json,
                         helix_digester** out);
  void (*destroy)(helix_digester* digester);
  void (*begin_session)(helix_digester* digester, const helix_digest_session* session);
  void (*event)(helix_digester* digester, const helix_event* event);
  void (*usage)(helix_digester* digester, const helix_usage* usage);
  /* HELIX_ERROR (after set_error) means no digest for this session; the host keeps the
   * previous one and reports the message. */
  helix_status (*end_session)(helix_digester* digester, helix_call* call,
                              const helix_digest_api* digest);
  /* ABI 1.2 (read struct_size first; NULL = not supported): starts a session like
   * begin_session, restoring what the digester had learned from earlier events from `state`
   * (bytes it reported through helix_digest_api.state). HELIX_ERROR (after set_error) for a
   * state it cannot read: the host digests a kept session again from begin_session and keeps
   * an evicted session's previous digest. OWNERSHIP: session and state are borrowed for the
   * duration of the call. */
  helix_status (*resume_session)(helix_digester* digester, helix_call* call,
                                 const helix_digest_session* session, helix_str state);
  /* ABI 1.3 (read struct_size first; may be NULL): the digester's extension `id`, or NULL.
   * OWNERSHIP: static data of the plugin. */
  const void* (*get_extension)(const char* id);
} helix_digester_vtable;

/* ---- The entry point ---------------------------------------------------------------------- */

/* Frozen prefix: abi_major, abi_minor, struct_size and kind never move. abi_minor is the
 * lowest minor whose host can run the plugin: 0 for an adapter, 1 for a digester, 2 for one
 * with resume_session. A hand-written plugin may also answer with the host_abi_minor it is
 * passed (when it supports that host); the C++ glue stamps what the plugin uses. */
typedef struct helix_plugin_descriptor {
  uint32_t abi_major;
  uint32_t abi_minor;
  uint32_t struct_size;
  uint32_t kind;           /* HELIX_KIND_* */
  const char* name;        /* unique, [a-z0-9_-]+, e.g. "claude" */
  const char* version;     /* the plugin's own semantic version */
  const char* description; /* one line */
  const void* vtable;      /* const helix_adapter_vtable* for HELIX_KIND_ADAPTER,
                              const helix_digester_vtable* for HELIX_KIND_DIGESTER */
} helix_plugin_descriptor;

#define HELIX_ENTRY_SYMBOL "helix_plugin_query"

/* ---- Sizes of the first version of each struct ------------------------------------------- */

/* A reader refuses (tables, descriptor) or drops (records) a struct whose struct_size is smaller
 * than its first version, and zero-fills what lies beyond a larger one's struct_size. */
#define HELIX_SIZE_THROUGH(type, member) (offsetof(type, member) + sizeof(((type*)0)->member))
#define HELIX_HOST_API_SIZE_1_0 HELIX_SIZE_THROUGH(helix_host_api, set_error)
#define HELIX_SESSION_SIZE_1_0 HELIX_SIZE_THROUGH(helix_session, ended_at_ms)
#define HELIX_EVENT_SIZE_1_0 HELIX_SIZE_THROUGH(helix_event, model)
#define HELIX_USAGE_SIZE_1_0 HELIX_SIZE_THROUGH(helix_usage, cost_usd)
#define HELIX_EMIT_API_SIZE_1_0 HELIX_SIZE_THROUGH(helix_emit_api, save_state)
#define HELIX_PROBE_INPUT_SIZE_1_0 HELIX_SIZE_THROUGH(helix_probe_input, size)
#define HELIX_PARSE_INPUT_SIZE_1_0 HELIX_SIZE_THROUGH(helix_parse_input, state)
#define HELIX_ADAPTER_VTABLE_SIZE_1_0 HELIX_SIZE_THROUGH(helix_adapter_vtable, parse)
#define HELIX_DESCRIPTOR_SIZE_1_0 HELIX_SIZE_THROUGH(helix_plugin_descriptor, vtable)
#define HELIX_DIGEST_SESSION_SIZE_1_1 HELIX_SIZE_THROUGH(helix_digest_session, ended_at_ms)
#define HELIX_DIGEST_API_SIZE_1_1 HELIX_SIZE_THROUGH(helix_digest_api, result)
#define HELIX_DIGESTER_VTABLE_SIZE_1_1 HELIX_SIZE_THROUGH(helix_digester_vtable, end_session)

/* ---- Extensions (ABI 1.3) ----------------------------------------------------------------- */

/* Capabilities beyond the frozen structs, the way CLAP adds them: get_extension(id) returns a
 * struct of the id's own, or NULL. An id reads "helix.<name>/<rev>"; a new revision is a new id
 * (and may be a different struct), so a plugin can offer several revisions and each side uses
 * the newest it knows. Each extension struct starts with struct_size, read like the others. */

/* How the agent resumes one of this adapter's sessions: `helix-host resume` prints the command.
 * Without it (or with argv NULL) the host says it cannot resume the flavor. */
#define HELIX_EXT_RESUME "helix.resume/1"
#define HELIX_RESUME_IN_CWD 1u        /* run in the session's cwd, which must be known and exist */
#define HELIX_RESUME_NOT_SUBAGENTS 2u /* a subagent session (one with a parent) cannot be */
typedef struct helix_resume_ext {
  uint32_t struct_size;
  uint32_t flags;    /* HELIX_RESUME_* */
  const char* agent; /* the agent's name for messages, e.g. "Claude Code" */
  /* The command, NULL-terminated; each "{session_id}" in a word becomes the native session id.
   * NULL = this adapter's sessions cannot be resumed; `refusal` says why. */
  const char* const* argv;
  const char* refusal;
} helix_resume_ext;

/* What `helix-host hook <flavor>` reads from the agent's hook event (a JSON object) to find the
 * session's sources. Without it the host reads session_id/sessionId, transcript_path/
 * transcriptPath and hook_event_name/hookEventName. Key lists are NULL-terminated. */
#define HELIX_EXT_HOOK "helix.hook/1"
typedef struct helix_hook_ext {
  uint32_t struct_size;
  const char* const* session_id_keys; /* keys holding the native session id, first found wins */
  const char* const* transcript_keys; /* keys holding the transcript's path; may be NULL */
  const char* const* event_name_keys; /* keys naming the hook event, for the log; may be NULL */
  /* When this environment variable is set, a hook run for any flavor is this flavor's (Grok Build
   * runs Claude Code's hooks and sets GROK_HOOK_EVENT). NULL = none. */
  const char* flavor_env;
  /* File names beside a session's own directory that are ingested with it. May be NULL. */
  const char* const* companion_files;
  /* Source file names hold only the first N characters of the session id (0 = all of it). */
  uint32_t id_chars_in_file_names;
} helix_hook_ext;

/* When the adapter's parse output changes with its version. A source last parsed by a plugin
 * version below `reparse_below` (semantic version) is parsed again from its start on the next
 * sweep, its stored events and usage replaced. Without it, a new version parses only new data. */
#define HELIX_EXT_REPARSE "helix.reparse/1"
typedef struct helix_reparse_ext {
  uint32_t struct_size;
  const char* reparse_below;
} helix_reparse_ext;

/* ---- Host extensions (ABI 1.4) ------------------------------------------------------------ */

/* Where an adapter reports the rate limits the agent's provider announced: how much of each
 * usage window is used and when it resets (Codex CLI's token_count.rate_limits). A plugin looks
 * it up once through helix_host_api.get_extension; a host without it returns NULL and the
 * adapter simply does not report them. OWNERSHIP: host-owned, valid until destroy(). */
#define HELIX_EXT_RATE_LIMITS "helix.rate_limits/1"

/* One window's state as one record reported it. The host keeps one row per (source, offset,
 * limit_id, window), so a record re-read after a crash is stored once, and shows the latest of
 * each (limit_id, window). OWNERSHIP: borrowed for the duration of the callback (rule 3). */
typedef struct helix_rate_limit {
  uint32_t struct_size;
  helix_str session_id;   /* required: native session id of the record that reported it */
  uint64_t source_offset; /* byte offset of that record in the source */
  int64_t ts_ms;          /* when it was reported, Unix epoch milliseconds; 0 = unknown */
  helix_str limit_id;  /* the provider's name of the limit (Codex: "codex"); empty = the default */
  helix_str window;    /* which window of the limit: "primary", "secondary" */
  double used_percent; /* how much of the window is used, 0 to 100 */
  int64_t window_minutes; /* the window's length; 0 = unknown */
  int64_t resets_at_ms;   /* when the window starts again, Unix epoch milliseconds; 0 = unknown */
} helix_rate_limit;

typedef struct helix_rate_limits_ext {
  uint32_t struct_size;
  /* Valid only during parse(), with the call parse() was given, like the emit callbacks. */
  void (*rate_limit)(helix_call* call, const helix_rate_limit* limit);
} helix_rate_limits_ext;
#define HELIX_RATE_LIMIT_SIZE_1_4 HELIX_SIZE_THROUGH(helix_rate_limit, resets_at_ms)
#define HELIX_RATE_LIMITS_EXT_SIZE_1_4 HELIX_SIZE_THROUGH(helix_rate_limits_ext, rate_limit)

/* The one required export. Returns static storage valid while the library is loaded.
 * OWNERSHIP: static, plugin-owned. */
HELIX_EXPORT const helix_plugin_descriptor* helix_plugin_query(uint32_t host_abi_major,
                                                               uint32_t host_abi_minor);

#ifdef __cplusplus
}
#endif

#endif /* HELIX_PLUGIN_H_ */

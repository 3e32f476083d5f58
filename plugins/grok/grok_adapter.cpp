// The Grok Build (xAI `grok`) adapter: $GROK_HOME/sessions/<encoded cwd>/<session id>/.
//
// A session is a directory of several sources, each claimed here; every event names the
// session directory's name, so they make one session.
//
// Two files describe the same conversation. updates.jsonl is the append-only ACP journal
// (timestamped, never rewritten, streams messages in chunks); chat_history.jsonl holds the
// model-facing items whole (model ids, reasoning, server-side tools) and is rewritten on
// compaction and rewind. Sessions with only a chat_history exist (legacy and generated ones),
// and the adapter cannot see sibling files, so both produce transcript events, and every
// message both describe gets the same uid in both, with the ordinal derived from the uid
// (uid_ordinal), so the host's (session, uid, ordinal) rule stores one copy:
//   user prompt     prompt-<prompt index>-<fingerprint of the typed text>
//   assistant text  reply-<prompt index>-<fingerprint of the text>
//   reasoning       thought-<prompt index>-<fingerprint of the text>
//   tool call       its tool call id;  tool result  <tool call id>/result
// A mismatch (e.g. prompt counters that drift after a resume) yields a duplicate, never the
// loss of a different message. Events only one file has (system prompt, preamble, injected
// reminders; turn usage, rewind markers) carry no uid.
//
// cwd: summary.json's info.cwd is the truth. The host keeps the first cwd it learns, and it
// reads a directory's files in path order, so only files sorting after summary.json
// (updates.jsonl, usage.json, and the per-cwd prompt_history.jsonl) offer the cwd decoded from
// the group directory name, and only when that decoding is certain.
#include "grok_parsers.hpp"

namespace {

// Sources relative to each root ($GROK_HOME, default ~/.grok).
const char* const kRoots[] = {"~/.grok", nullptr};
const helix_source_pattern kPatterns[] = {
    {"sessions/*/*/chat_history.jsonl", HELIX_LAYOUT_LINES},
    {"sessions/*/*/events.jsonl", HELIX_LAYOUT_LINES},
    {"sessions/*/*/summary.json", HELIX_LAYOUT_DOCUMENT},
    {"sessions/*/*/updates.jsonl", HELIX_LAYOUT_LINES},
    {"sessions/*/*/usage.json", HELIX_LAYOUT_DOCUMENT},
    {"sessions/*/prompt_history.jsonl", HELIX_LAYOUT_LINES},
    {"sessions/*/.cwd", HELIX_LAYOUT_DOCUMENT},
    {"sessions/*/*/subagents/*/meta.json", HELIX_LAYOUT_DOCUMENT},
    {nullptr, 0}};

bool contains(std::string_view head, std::string_view needle) {
  return head.find(needle) != std::string_view::npos;
}

// Whether the first bytes look like this Grok file; the name alone is not enough (other
// agents write events.jsonl or summary.json too).
bool looks_like(std::string_view name, std::string_view head) {
  if (name == "updates.jsonl") return contains(head, "\"sessionUpdate\"");
  if (name == "chat_history.jsonl")
    return head.starts_with("{\"type\":") || head.starts_with("{\"role\":");
  if (name == "events.jsonl") return contains(head, "\"ts\":\"") && contains(head, "\"type\":\"");
  if (name == "summary.json")
    return contains(head, "\"info\"") && contains(head, "\"session_summary\"");
  if (name == "usage.json") return contains(head, "\"sessionId\"") && contains(head, "\"turns\"");
  if (name == "prompt_history.jsonl")
    return contains(head, "\"session_id\"") && contains(head, "\"is_bash\"");
  if (name == ".cwd") return head.starts_with("/") || (head.size() > 2 && head[1] == ':');
  if (name == "meta.json")
    return contains(head, "\"child_session_id\"") && contains(head, "\"parent_session_id\"");
  return false;
}

class GrokAdapter : public helix::Adapter {
 public:
  int probe(const helix::Probe& probe) override {
    const std::string_view name = probe.file_name();
    if (looks_like(name, probe.head)) return name == ".cwd" ? 80 : 100;
    // An empty file of a Grok name in a Grok tree is possibly ours (written a moment later).
    const bool grok_name = name == "updates.jsonl" || name == "chat_history.jsonl" ||
                           name == "events.jsonl" || name == "prompt_history.jsonl";
    return grok_name && probe.head.empty() && contains(probe.path, "/sessions/") ? 50 : 0;
  }

  void parse(helix::ParseContext& ctx) override {
    const grok::SourcePath source = grok::split_source_path(ctx.path());
    const std::string_view name = source.file_name;
    if (name == "updates.jsonl") return grok::parse_updates(ctx, source);
    if (name == "chat_history.jsonl") return grok::parse_chat_history(ctx, source);
    if (name == "events.jsonl") return grok::parse_events(ctx, source);
    if (name == "summary.json") return grok::parse_summary(ctx, source);
    if (name == "usage.json") return grok::parse_usage(ctx, source);
    if (name == "prompt_history.jsonl") return grok::parse_prompt_history(ctx, source);
    if (name == ".cwd") return grok::parse_cwd_file(ctx, source);
    if (name == "meta.json") return grok::parse_subagent_meta(ctx);
    ctx.warn(0, "unknown_source", "not a Grok Build session file: " + std::string(ctx.path()));
  }
};

}  // namespace

namespace {
// `grok -r <id>`, run in the session's directory (docs/operations.md).
const char* const kResumeArgv[] = {"grok", "-r", "{session_id}", nullptr};
constexpr helix_resume_ext kResume = helix::resume_command("Grok Build", kResumeArgv);
// Grok Build's hook events carry sessionId and hookEventName. It also runs the hooks of
// .claude/settings.json and sets GROK_HOOK_EVENT then, so `hook claude` run by Grok is Grok's.
// prompt_history.jsonl beside the session's directory holds its prompts too.
const char* const kHookSessionKeys[] = {"sessionId", "session_id", nullptr};
const char* const kHookTranscriptKeys[] = {"transcriptPath", "transcript_path", nullptr};
const char* const kHookEventKeys[] = {"hookEventName", "hook_event_name", nullptr};
const char* const kHookCompanions[] = {"prompt_history.jsonl", nullptr};
constexpr helix_hook_ext kHook = helix::hook_events({.session_id_keys = kHookSessionKeys,
                                                     .transcript_keys = kHookTranscriptKeys,
                                                     .event_name_keys = kHookEventKeys,
                                                     .flavor_env = "GROK_HOOK_EVENT",
                                                     .companion_files = kHookCompanions});
}  // namespace

HELIX_ADAPTER(GrokAdapter, .name = "grok", .version = "1.1.0",
              .description = "xAI Grok Build sessions (~/.grok/sessions)", .flavor = "grok",
              .root_env = "GROK_HOME", .roots = kRoots, .patterns = kPatterns, .resume = &kResume,
              .hook = &kHook, .reparse_below = "1.1.0")

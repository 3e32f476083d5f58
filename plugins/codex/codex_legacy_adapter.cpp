// plugins/codex/codex_legacy_adapter.cpp: the `codex-legacy` adapter, for the Codex eras before
// the {timestamp,type,payload} wrapper: the Rust CLI's bare-item JSONL (<= 0.31, Aug 2025) and
// the TypeScript CLI's single JSON document (Apr-Aug 2025). Neither carries token usage.
#include "codex_items.hpp"

#include <stdexcept>

namespace codex {
namespace {
namespace bj = boost::json;
using helix::json::obj;
using helix::json::str;

class CodexLegacyAdapter : public helix::Adapter {
 public:
  int probe(const helix::Probe& probe) override {
    const Era era = detect_era(probe.head);
    if (probe.path_ends_with(".json")) return era == Era::kTypeScript ? 100 : 0;
    if (era != Era::kLegacyLines) return 0;
    return probe.file_name().starts_with("rollout-") ? 100 : 60;  // Codex names its rollouts
  }

  void parse(helix::ParseContext& ctx) override {
    // The legacy lines carry no session id, so the one of the first line travels in the state.
    session_id_ = ctx.state().empty() ? std::string(session_id_from_path(ctx.path()))
                                      : std::string(ctx.state());
    helix::Adapter::parse(ctx);
    if (ctx.layout() == HELIX_LAYOUT_LINES) ctx.save_state(session_id_);
  }

  void parse_line(helix::ParseContext& ctx, std::string_view line, uint64_t offset) override {
    boost::system::error_code ec;
    bj::value value = bj::parse(line, ec);
    if (ec || !value.is_object())
      return ctx.warn(offset, "invalid_json", ec ? ec.message() : "line is not an object");
    const bj::object& o = value.get_object();
    if (o.contains("record_type")) return;  // a snapshot of the recorder's state, not content
    const bool session_line = !o.contains("type") && o.contains("id") && o.contains("timestamp");
    if (session_line) adopt_session_id(o);  // before Record: it keeps a view of the id
    Record record(ctx, session_id_, offset, 0, line, {});
    if (session_line) return on_session(ctx, record, o);
    map_item(ctx, record, o, offset);
  }

  // {"session":{"timestamp","id","instructions"},"items":[...]}: every event of the document
  // shares its offset (0) and payload, told apart by ordinal.
  void parse_document(helix::ParseContext& ctx, std::string_view doc) override {
    boost::system::error_code ec;
    bj::value value = bj::parse(doc, ec);
    const bj::object* root = ec ? nullptr : value.if_object();
    // The TypeScript CLI rewrote the whole file on every change: a document that does not parse
    // is one read half written. Failing the call keeps what the host stored from the last one.
    if (!root)
      throw std::runtime_error("the rollout document is not one complete JSON object (" +
                               (ec ? ec.message() : std::string("not an object")) +
                               "); it is read again next sweep");
    const auto* session = obj(*root, "session");
    if (session) adopt_session_id(*session);  // before Record: it keeps a view of the id
    Record record(ctx, session_id_, ctx.base_offset(), 0, doc, {});
    if (session) on_session(ctx, record, *session);
    if (const auto* items = helix::json::arr(*root, "items"))
      for (const auto& item : *items)
        if (const auto* o = item.if_object()) map_item(ctx, record, *o, ctx.base_offset());
  }

 private:
  void adopt_session_id(const bj::object& meta) {
    if (auto id = str(meta, "id"); !id.empty()) session_id_ = std::string(id);
  }

  void on_session(helix::ParseContext& ctx, Record& record, const bj::object& meta) {
    const auto* git = obj(meta, "git");
    ctx.session({.native_id = session_id_,
                 .git_branch = git ? str(*git, "branch") : std::string_view(),
                 .started_at_ms = helix::json::iso8601_ms(str(meta, "timestamp"))});
    record.emit({.kind = "lifecycle", .role = "system", .summary = "session started"});
  }

  static void map_item(helix::ParseContext& ctx, Record& record, const bj::object& item,
                       uint64_t offset) {
    if (!map_response_item(record, item, Prompts::kFromItems).known)
      ctx.warn(offset, "unknown_type", "unknown item type " + std::string(str(item, "type")));
  }

  std::string session_id_;
};

}  // namespace
}  // namespace codex

namespace codex {
namespace {
constexpr helix_resume_ext kResume = helix::resume_refused(
    "Codex CLI",
    "it was written by a Codex CLI older than rust-v0.32 (TypeScript JSON or bare-item JSONL); "
    "'codex resume' reads only the later rollout format");
}  // namespace
}  // namespace codex

HELIX_ADAPTER(codex::CodexLegacyAdapter, .name = "codex-legacy", .version = "1.0.0",
              .description =
                  "OpenAI Codex CLI rollouts before 0.32: bare-item JSONL and "
                  "TypeScript JSON",
              .flavor = "codex", .root_env = "CODEX_HOME", .roots = codex::kRoots,
              .patterns = codex::kPatterns, .resume = &codex::kResume, .hook = &codex::kHook)

// keiseikit.cpp: Helix adapter for KeiSeiKit's legacy flat trace format (KeiSeiKit
// docs/MEMORY-FORMAT.md §1b), the model a third-party adapter copies.
//
// KeiSeiKit writes one JSONL file per session to ~/.claude/memory/traces/<session>.jsonl:
//   {"ts":1700000000,"kind":"tool_use","tool":"Read","file_path":"/abs/path/file.rs",
//    "is_error":false,"event_class":"tool_use:Read","message":"stdout text"}
// KEISEIKIT_HOME overrides the memory directory (the one holding traces/).
#include <helix/adapter.hpp>
#include <helix/json.hpp>

#include <string>

namespace {

namespace hj = helix::json;

// A §1b record's kind (with its tool and is_error) as a Helix event kind and role;
// kind is empty for a kind §1b does not define.
struct Mapping {
  std::string_view kind, role;
};
Mapping map_kind(std::string_view kind, std::string_view tool, bool is_error) {
  if (kind == "tool_use")
    return {tool == "Edit" || tool == "Write" ? "edit" : "tool_call", "assistant"};
  if (kind == "tool_result") return {is_error ? "error" : "tool_result", "tool"};
  if (kind == "other") return {"other", ""};
  return {};
}

// The flat format names no session: the file does (a record's session_id wins if present).
std::string_view session_id(const boost::json::object& record, std::string_view path) {
  if (auto id = hj::str(record, "session_id"); !id.empty()) return id;
  auto name = path.substr(path.rfind('/') + 1);  // npos + 1 == 0: no directory part
  return name.substr(0, name.find('.'));
}

class KeiSeiKitAdapter final : public helix::Adapter {
 public:
  // Ours when the first record of a traces/*.jsonl file is a flat record (numeric ts + kind);
  // Claude-format traces (§1a) may share the directory.
  int probe(const helix::Probe& p) override {
    if (!p.path_ends_with(".jsonl") || p.path.find("/traces/") == std::string_view::npos) return 0;
    int score = 0;
    parser_.parse(p.head.substr(0, p.head.find('\n')), [&](const boost::json::value& v, auto) {
      const auto* o = hj::obj(&v);
      const auto* ts = o ? o->if_contains("ts") : nullptr;
      if (ts && ts->is_number() && o->contains("kind")) score = 90;
    });
    return score;
  }

  void parse_line(helix::ParseContext& ctx, std::string_view line, uint64_t offset) override {
    const std::string error = parser_.parse(line, [&](const boost::json::value& v, std::size_t at) {
      const auto* record = hj::obj(&v);
      if (!record) return ctx.warn(offset + at, "not_an_object", "record is not a JSON object");
      emit(ctx, *record, line, offset + at);
    });
    if (!error.empty()) ctx.warn(offset, "invalid_json", error);
  }

 private:
  static void emit(helix::ParseContext& ctx, const boost::json::object& r, std::string_view line,
                   uint64_t offset) {
    const auto native_kind = hj::str(r, "kind");
    const auto tool = hj::str(r, "tool");
    auto [kind, role] = map_kind(native_kind, tool, hj::truthy(r, "is_error"));
    if (kind.empty()) {  // kept as "other" so nothing is lost, and reported
      ctx.warn(offset, "unknown_type", std::string("unknown kind '").append(native_kind) + "'");
      kind = "other";
    }
    helix::Event e;
    e.session_id = session_id(r, ctx.path());
    e.source_offset = offset;
    e.ts_ms = hj::num(r, "ts") * 1000;
    e.kind = kind;
    e.role = role;
    e.tool = tool;
    std::string summary(hj::str(r, "event_class"));
    if (auto file = hj::str(r, "file_path"); !file.empty()) summary.append(" ").append(file);
    e.summary = summary;
    e.text = hj::str(r, "message");
    e.payload = line;  // the record's bytes: KeiSeiKit writes one object per line

    // Every line widens its session's time span: the host keeps the min start, the max end.
    helix::Session s;
    s.native_id = e.session_id;
    s.started_at_ms = s.ended_at_ms = e.ts_ms;
    ctx.session(s);
    ctx.event(e);  // the host copies; the views may dangle afterwards
  }

  hj::LineParser parser_;
};

const char* const kRoots[] = {"~/.claude/memory", nullptr};
const helix_source_pattern kPatterns[] = {{"traces/*.jsonl", HELIX_LAYOUT_LINES}, {nullptr, 0}};

}  // namespace

HELIX_ADAPTER(KeiSeiKitAdapter, .name = "keiseikit", .version = "0.1.0",
              .description = "KeiSeiKit flat trace JSONL (~/.claude/memory/traces)",
              .flavor = "keiseikit", .root_env = "KEISEIKIT_HOME", .roots = kRoots,
              .patterns = kPatterns)

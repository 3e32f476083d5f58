// An adapter written against helix/adapter.hpp of ABI 1.0 (unchanged in 1.1 and 1.2), built
// against each frozen header in tests/abi/sdk-*. Every line "<kind> <text>" of a *.compat file
// gives one event and one usage record of the session named by the file; each member it sets
// has a distinct value, so a test can check that every one crosses the ABI.
//   COMPAT_NAME "name"   the plugin's name (and its flavor)
#include <helix/adapter.hpp>

#include <string>

namespace {

class CompatAdapter final : public helix::Adapter {
 public:
  int probe(const helix::Probe& p) override { return p.path_ends_with(".compat") ? 90 : 0; }

  void parse(helix::ParseContext& ctx) override {
    std::string_view name = ctx.path().substr(ctx.path().rfind('/') + 1);
    session_ = std::string(name.substr(0, name.find('.')));
    helix::Session s;
    s.native_id = session_;
    s.cwd = "/work/compat";
    s.title = "compat session";
    s.started_at_ms = 1'700'000'000'000;
    ctx.session(s);
    helix::Adapter::parse(ctx);
    ctx.save_state("after=" + std::to_string(ctx.base_offset() + ctx.data().size()));
  }

  void parse_line(helix::ParseContext& ctx, std::string_view line, uint64_t offset) override {
    const auto space = line.find(' ');
    const std::string uid = "u" + std::to_string(offset);
    helix::Event e;
    e.session_id = session_;
    e.source_offset = offset;
    e.ts_ms = 1'700'000'000'000 + static_cast<int64_t>(offset);
    e.kind = line.substr(0, space);
    e.role = "user";
    e.uid = uid;
    e.summary = line;
    e.text = space == std::string_view::npos ? std::string_view() : line.substr(space + 1);
    e.payload = line;
    e.model = "compat-model";
    ctx.event(e);
    helix::Usage u;
    u.session_id = session_;
    u.key = uid;
    u.source_offset = offset;
    u.model = "compat-model";
    u.input_tokens = 10;
    u.output_tokens = 20;
    u.cache_read_tokens = 30;
    u.reasoning_tokens = 5;
    ctx.usage(u);
  }

 private:
  std::string session_;
};

const char* const kRoots[] = {"~/.compat", nullptr};
const helix_source_pattern kPatterns[] = {{"*.compat", HELIX_LAYOUT_LINES}, {nullptr, 0}};

}  // namespace

HELIX_ADAPTER_PLUGIN(CompatAdapter, COMPAT_NAME, "1.0.0", "an adapter built against an old SDK",
                     COMPAT_NAME, "HELIX_COMPAT_HOME", kRoots, kPatterns)

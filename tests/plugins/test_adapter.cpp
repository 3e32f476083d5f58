// A test-only adapter written with helix/adapter.hpp; compile definitions select its behaviour.
//
//   TEST_PLUGIN_NAME "name"        the descriptor's name (required)
//   TEST_ABI_MAJOR / TEST_ABI_MINOR  the ABI major and needed minor its descriptor states, as a
//                                  plugin built against another SDK (or one needing a newer
//                                  host) would; the descriptor is then written out by hand
//   TEST_THROW_IN_PARSE            parse_line() throws std::runtime_error for a line starting
//                                  "boom" and helix::ParseFailure for one starting "fail";
//                                  probe() throws for a path ending ".boom"; a DOCUMENT
//                                  {"records": ["<line>", ...]} is parsed record by record
//   TEST_THROW_IN_CONSTRUCTOR      the constructor throws std::runtime_error
//   TEST_CREDENTIAL_PATTERNS       its source patterns also name credential files (auth.json,
//                                  .credentials.json, keys, tokens), which the host must refuse
//
// Otherwise it fills every member of every record with a distinct value, so a test can check
// that each one crosses the ABI intact: per call one session, a warning echoing the incoming
// state and a saved state; per line "<kind> <text>" one event and one usage record.
#include <helix/adapter.hpp>
#include <helix/document.hpp>

#include <stdexcept>
#include <string>

namespace {

class TestAdapter final : public helix::Adapter {
 public:
  TestAdapter() {
#ifdef TEST_THROW_IN_CONSTRUCTOR
    throw std::runtime_error("test plugin constructor refuses to start");
#endif
  }

  int probe(const helix::Probe& p) override {
#ifdef TEST_THROW_IN_PARSE
    if (p.path_ends_with(".boom")) throw std::runtime_error("test plugin probe fails");
#endif
    return p.path_ends_with(".test") ? 70 : 0;
  }

  void parse(helix::ParseContext& ctx) override {
    ctx.session({.native_id = "s-1",
                 .parent_native_id = "s-0",
                 .cwd = "/work/test",
                 .git_branch = "main",
                 .model = "m-session",
                 .title = "Test session",
                 .agent_version = "1.2.3",
                 .started_at_ms = 1000,
                 .ended_at_ms = 2000});
    ctx.warn(ctx.base_offset(), "test_category", "state was: " + std::string(ctx.state()));
    helix::Adapter::parse(ctx);
    ctx.save_state("next=" + std::to_string(ctx.base_offset() + ctx.data().size()));
  }

#ifdef TEST_THROW_IN_PARSE
  // Each record is a JSON string holding one line (no escapes): one that throws is a warning.
  void parse_document(helix::ParseContext& ctx, std::string_view doc) override {
    const auto records = helix::document::array_elements(doc, "records");
    if (!records) throw helix::ParseFailure("test plugin: the document is not whole");
    helix::for_each_record(ctx, doc, *records, [&](std::string_view record, uint64_t offset) {
      parse_line(ctx, record.substr(1, record.size() - 2), offset);
    });
  }
#endif

  void parse_line(helix::ParseContext& ctx, std::string_view line, uint64_t offset) override {
#ifdef TEST_THROW_IN_PARSE
    if (line.starts_with("boom"))
      throw std::runtime_error("test plugin cannot parse line at offset " + std::to_string(offset));
    if (line.starts_with("fail"))
      throw helix::ParseFailure("test plugin gives up at offset " + std::to_string(offset));
#endif
    const auto space = line.find(' ');
    const std::string uid = "uid-" + std::to_string(offset);
    ctx.event({.session_id = "s-1",
               .source_offset = offset,
               .ordinal = 3,
               .flags = HELIX_EVENT_SIDECHAIN,
               .ts_ms = 1'700'000'000'000,
               .kind = line.substr(0, space),
               .role = "user",
               .tool = "Bash",
               .uid = uid,
               .parent_uid = "uid-parent",
               .call_id = "call-1",
               .summary = ctx.keep(std::string("summary") + " line"),  // held until parse ends
               .text = line.substr(space + 1),
               .payload = line,
               .model = "m-event"});
    ctx.usage({.session_id = "s-1",
               .key = uid,
               .source_offset = offset,
               .flags = 0,
               .ts_ms = 1'700'000'000'001,
               .model = "m-usage",
               .input_tokens = 11,
               .output_tokens = 22,
               .cache_read_tokens = 33,
               .cache_creation_tokens = 44,
               .reasoning_tokens = 5,
               .cost_usd = 0.25,
               .cache_creation_1h_tokens = 40});
  }
};

const char* const kRoots[] = {"~/.helix-test", nullptr};
#ifdef TEST_CREDENTIAL_PATTERNS
const helix_source_pattern kPatterns[] = {{"*.test", HELIX_LAYOUT_LINES},
                                          {"auth.json", HELIX_LAYOUT_DOCUMENT},
                                          {".credentials.json", HELIX_LAYOUT_DOCUMENT},
                                          {"**/*.pem", HELIX_LAYOUT_LINES},
                                          {"**/*token*", HELIX_LAYOUT_LINES},
                                          {".ssh/*", HELIX_LAYOUT_LINES},
                                          {nullptr, 0}};
#else
const helix_source_pattern kPatterns[] = {{"*.test", HELIX_LAYOUT_LINES}, {nullptr, 0}};
#endif

}  // namespace

#if defined(TEST_ABI_MAJOR) || defined(TEST_ABI_MINOR)
#ifndef TEST_ABI_MAJOR
#define TEST_ABI_MAJOR HELIX_ABI_MAJOR
#endif
namespace {
constexpr helix::AdapterInfo kInfo{
    TEST_PLUGIN_NAME, "0.1.0", "Helix test adapter", "test", nullptr, kRoots, kPatterns};
constexpr helix_adapter_vtable kTable =
    helix::detail::AdapterGlue<TestAdapter>::table(kInfo, nullptr);
constexpr helix_plugin_descriptor kDescriptor = {
    TEST_ABI_MAJOR,     TEST_ABI_MINOR, sizeof(helix_plugin_descriptor),
    HELIX_KIND_ADAPTER, kInfo.name,     kInfo.version,
    kInfo.description,  &kTable};
}  // namespace
extern "C" HELIX_EXPORT const helix_plugin_descriptor* helix_plugin_query(uint32_t, uint32_t) {
  return &kDescriptor;
}
#else
HELIX_ADAPTER_PLUGIN(TestAdapter, TEST_PLUGIN_NAME, "0.1.0", "Helix test adapter", "test", nullptr,
                     kRoots, kPatterns)
#endif

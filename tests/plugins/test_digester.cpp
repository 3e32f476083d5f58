// A test-only digester written with helix/digester.hpp, to be swapped in for the default one
// through the configuration. Its digest counts what the host streamed: events by kind, usage
// records and their tokens; its task_ref ("COUNT-<events>") shows that the primary digester's
// digest sets the session's task_ref. Compile definitions:
//   TEST_DIGESTER_VERSION "x.y.z"   the plugin's version (a new major re-digests everything)
//   TEST_DIGESTER_THROW             event() throws, so no digest is produced
//   TEST_DIGESTER_ABI_1_1           declared as an ABI 1.1 plugin: a function table without
//                                   resume_session, as a plugin built against SDK 1.1 has
#include <helix/digester.hpp>

#include <map>
#include <stdexcept>
#include <string>

namespace {

class KindCounter final : public helix::Digester {
 public:
  void configure(std::string_view config) override { config_ = config; }

  void begin(const helix::DigestSession& s) override {
    uid_ = s.session_uid;
    kinds_.clear();
    events_ = usage_ = tokens_ = 0;
  }

  void event(const helix::Event& e) override {
#ifdef TEST_DIGESTER_THROW
    throw std::runtime_error("test digester refuses event " + std::string(e.kind));
#endif
    ++kinds_[std::string(e.kind)];
    ++events_;
  }

  void usage(const helix::Usage& u) override {
    ++usage_;
    tokens_ += u.input_tokens + u.output_tokens + u.cache_read_tokens + u.cache_creation_tokens;
  }

  std::string end() override {
    std::string kinds;
    for (const auto& [k, n] : kinds_)
      kinds += (kinds.empty() ? "\"" : ",\"") + k + "\":" + std::to_string(n);
    return "{\"session_uid\":\"" + uid_ + "\",\"events\":" + std::to_string(events_) +
           ",\"kinds\":{" + kinds + "},\"usage_records\":" + std::to_string(usage_) +
           ",\"tokens\":" + std::to_string(tokens_) + ",\"task_ref\":\"COUNT-" +
           std::to_string(events_) + "\",\"config\":" + config_ + "}";
  }

 private:
  std::string uid_, config_;
  std::map<std::string, int64_t> kinds_;
  int64_t events_ = 0, usage_ = 0, tokens_ = 0;
};

}  // namespace

#ifdef TEST_DIGESTER_ABI_1_1
#include <cstddef>
namespace {
using Glue = helix::detail::DigesterGlue<KindCounter>;
const helix_digester_vtable kTable = {offsetof(helix_digester_vtable, resume_session),
                                      &Glue::create,
                                      &Glue::destroy,
                                      &Glue::begin_session,
                                      &Glue::event,
                                      &Glue::usage,
                                      &Glue::end_session,
                                      nullptr /* outside struct_size: never read */,
                                      nullptr};
const helix_plugin_descriptor kDescriptor = {1,
                                             1,
                                             sizeof(helix_plugin_descriptor),
                                             HELIX_KIND_DIGESTER,
                                             "kind_counter",
                                             TEST_DIGESTER_VERSION,
                                             "Helix test digester as built against ABI 1.1",
                                             &kTable};
}  // namespace
extern "C" HELIX_EXPORT const helix_plugin_descriptor* helix_plugin_query(uint32_t, uint32_t) {
  return &kDescriptor;
}
#else
HELIX_DIGESTER_PLUGIN(KindCounter, "kind_counter", TEST_DIGESTER_VERSION,
                      "Helix test digester: counts what it is streamed")
#endif

// A digester written against helix/digester.hpp of ABI 1.1 (and, with COMPAT_RESUME, of 1.2
// with resume()), built against the frozen headers in tests/abi/sdk-*. Its digest counts the
// events and tokens it was streamed.
//   COMPAT_NAME "name"   the plugin's name
//   COMPAT_RESUME        it saves its state and resumes from it (ABI 1.2)
#include <helix/digester.hpp>

#include <string>

namespace {

class CompatDigester final : public helix::Digester {
 public:
  void begin(const helix::DigestSession& s) override {
    uid_ = std::string(s.session_uid);
    events_ = tokens_ = 0;
  }
  void event(const helix::Event&) override { ++events_; }
  void usage(const helix::Usage& u) override { tokens_ += u.input_tokens + u.output_tokens; }
  std::string end() override {
    return "{\"session_uid\":\"" + uid_ + "\",\"events\":" + std::to_string(events_) +
           ",\"tokens\":" + std::to_string(tokens_) + "}";
  }
#ifdef COMPAT_RESUME
  std::string save_state() const override { return std::to_string(events_); }
  void resume(const helix::DigestSession& s, std::string_view state) override {
    begin(s);
    events_ = std::stol(std::string(state));
  }
#endif

 private:
  std::string uid_;
  long events_ = 0, tokens_ = 0;
};

}  // namespace

HELIX_DIGESTER_PLUGIN(CompatDigester, COMPAT_NAME, "1.0.0", "a digester built against an old SDK")

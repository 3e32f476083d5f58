// Test-only adapters that helix-plugin-check must fail, each wrong in one way, and that the
// crash-isolation tests install next to the first-party plugins. Each reads "*.faulty" and
// "*.<name>" files of lines "<kind> <text>" into one session named by the file. Compile
// definitions:
//   FAULTY_NAME "name"       the plugin's name (and flavor)
//   FAULTY_VERSION "x.y.z"   its version (0.1.0 without it)
//   FAULTY_REPARSE_BELOW "v" it declares helix.reparse/1: sources parsed below v are re-read
//   FAULTY_TEXT_PREFIX "p"   every event's text starts with p (what a new version changed)
//   FAULTY_OFFSETS           every event's source_offset is 3 bytes past its line's start
//   FAULTY_NONDETERMINISTIC  every event's text carries a count of the calls so far
//   FAULTY_SEGFAULT          a line holding "crash" (or any byte above 0x7f) dereferences NULL
//   FAULTY_HANG              a line holding "hang" never returns
//   FAULTY_GROW              a line holding "grow" allocates without bound
#include <helix/adapter.hpp>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

class FaultyAdapter final : public helix::Adapter {
 public:
  int probe(const helix::Probe& p) override {
    return p.path_ends_with(".faulty") || p.path_ends_with("." FAULTY_NAME) ? 80 : 0;
  }

  void parse(helix::ParseContext& ctx) override {
    ++calls_;
    const std::string_view path = ctx.path();
    session_ = std::string(path.substr(path.rfind('/') + 1));
    session_ = session_.substr(0, session_.find('.'));
    ctx.session({.native_id = session_, .cwd = "/work/faulty"});
    helix::Adapter::parse(ctx);
  }

  void parse_line(helix::ParseContext& ctx, std::string_view line, uint64_t offset) override {
    fault(line);
    const auto space = line.find(' ');
    std::string text(space == std::string_view::npos ? std::string_view() : line.substr(space + 1));
#ifdef FAULTY_TEXT_PREFIX
    text = FAULTY_TEXT_PREFIX + text;
#endif
#ifdef FAULTY_NONDETERMINISTIC
    text += " (call " + std::to_string(calls_) + ")";
#endif
    uint64_t at = offset;
#ifdef FAULTY_OFFSETS
    at += 3;
#endif
    ctx.event({.session_id = session_,
               .source_offset = at,
               .kind = line.substr(0, space),
               .role = "user",
               .text = text,
               .payload = line});
  }

 private:
  static void fault([[maybe_unused]] std::string_view line) {
#ifdef FAULTY_SEGFAULT
    bool crash = line.find("crash") != std::string_view::npos;
    for (char c : line) crash = crash || static_cast<unsigned char>(c) > 0x7f;
    if (crash) std::raise(SIGSEGV);
#endif
#ifdef FAULTY_HANG
    if (line.find("hang") != std::string_view::npos)
      for (volatile bool forever = true; forever;) {
      }
#endif
#ifdef FAULTY_GROW
    if (line.find("grow") != std::string_view::npos) {
      std::vector<std::string> hoard;
      for (;;) hoard.emplace_back(64 << 20, 'x');
    }
#endif
  }

  long calls_ = 0;
  std::string session_;
};

const char* const kRoots[] = {"~/.faulty", nullptr};
// A third-party flavor's hook and resume declarations (its resume runs anywhere): its hook events
// name the session as conversationId, and its files carry only the id's first 8 characters.
const char* const kHookSessionKeys[] = {"conversationId", nullptr};
constexpr helix_hook_ext kHook =
    helix::hook_events({.session_id_keys = kHookSessionKeys, .id_chars_in_file_names = 8});
const char* const kResumeArgv[] = {FAULTY_NAME, "--continue", "{session_id}", nullptr};
constexpr helix_resume_ext kResume = helix::resume_command("Faulty Agent", kResumeArgv, 0);
const helix_source_pattern kPatterns[] = {
    {"*.faulty", HELIX_LAYOUT_LINES}, {"*." FAULTY_NAME, HELIX_LAYOUT_LINES}, {nullptr, 0}};

}  // namespace

#ifndef FAULTY_VERSION
#define FAULTY_VERSION "0.1.0"
#endif
#ifndef FAULTY_REPARSE_BELOW
#define FAULTY_REPARSE_BELOW nullptr
#endif

HELIX_ADAPTER(FaultyAdapter, .name = FAULTY_NAME, .version = FAULTY_VERSION,
              .description = "a deliberately faulty test adapter", .flavor = FAULTY_NAME,
              .root_env = "HELIX_FAULTY_HOME", .roots = kRoots, .patterns = kPatterns,
              .resume = &kResume, .hook = &kHook, .reparse_below = FAULTY_REPARSE_BELOW)

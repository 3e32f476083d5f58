#include "cli/cmd_hook.hpp"

#include "app/pipeline.hpp"
#include "app/session_sources.hpp"
#include "base/private_files.hpp"
#include "base/suggest.hpp"
#include "cli/cmd_fleet.hpp"
#include "cli/cmd_retention.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "privacy/redactor.hpp"
#include "store/store.hpp"
#include "store/sweep_lock.hpp"

#include <fcntl.h>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <unistd.h>
#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <set>

namespace helix {
namespace {

namespace po = boost::program_options;

constexpr std::size_t kMaxEventBytes = 1 << 20;   // hook events are small; never read more
constexpr std::uintmax_t kMaxLogBytes = 1 << 20;  // then hook.log rotates to hook.log.1

// What a hook event tells us: the session and, when the agent names it, its transcript.
struct HookEvent {
  std::string flavor, session_id, transcript_path, event_name;
};

std::string field(const boost::json::object& o, const std::vector<std::string_view>& keys) {
  for (auto key : keys)
    if (auto* v = o.if_contains(key); v && v->is_string()) return std::string(v->as_string());
  return {};
}

// Session ids become a path filter: only plain ids long enough not to match by accident.
bool usable_session_id(std::string_view id) {
  if (id.size() < 8 || id.size() > 128) return false;
  for (char c : id)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
      return false;
  return id.find("..") == std::string_view::npos;
}

std::string read_stdin() {
  if (::isatty(STDIN_FILENO)) return {};
  std::string out;
  char buf[65536];
  while (out.size() < kMaxEventBytes) {
    ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

// The hook event as a JSON object; what it means depends on the flavor's adapter.
boost::json::object event_object(std::string_view text) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(text, ec);
  if (ec || !v.is_object())
    throw std::runtime_error(
        fmt::format("the hook event is not a JSON object ({} bytes)", text.size()));
  return std::move(v.as_object());
}

std::vector<std::string_view> key_list(const char* const* keys,
                                       std::vector<std::string_view> fallback) {
  if (!keys) return fallback;
  std::vector<std::string_view> out;
  for (auto k = keys; *k; ++k) out.emplace_back(*k);
  return out;
}

// The flavor whose adapter declares an environment variable that is set (Grok Build runs the
// hooks of .claude/settings.json and sets GROK_HOOK_EVENT), else the flavor asked for.
std::string hook_flavor(const PluginRegistry& registry, std::string flavor) {
  for (const PluginInfo* p : registry.adapters())
    if (p->hook && p->hook->flavor_env && std::getenv(p->hook->flavor_env) != nullptr)
      return p->adapter->flavor;
  return flavor;
}

// The session and transcript the event names, read with the keys the flavor's adapter declares
// (without a declaration: session_id, transcript_path and hook_event_name, snake or camel case).
HookEvent resolve_event(const PluginRegistry& registry, std::string flavor,
                        const boost::json::object& o) {
  flavor = hook_flavor(registry, std::move(flavor));
  const helix_hook_ext* hook = registry.hook_events(flavor);
  HookEvent e{
      flavor,
      field(o, key_list(hook ? hook->session_id_keys : nullptr, {"session_id", "sessionId"})),
      field(o, key_list(hook ? hook->transcript_keys : nullptr,
                        {"transcript_path", "transcriptPath"})),
      field(o, key_list(hook ? hook->event_name_keys : nullptr,
                        {"hook_event_name", "hookEventName"}))};
  if (!usable_session_id(e.session_id))
    throw std::runtime_error(
        fmt::format("the hook event names no usable session id ('{}')", e.session_id));
  return e;
}

// Control bytes (a newline or a terminal escape in a session id) as \xNN, and the backslash
// as \\: one log line per entry, which no entry can forge or colour.
std::string escape_controls(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f)
      out += fmt::format("\\x{:02x}", byte);
    else if (c == '\\')
      out += "\\\\";
    else
      out += c;
  }
  return out;
}

class HookLog {
 public:
  HookLog(std::filesystem::path file, const RedactionConfig& redaction)
      : file_(std::move(file)), redaction_(redaction) {}
  // Every line is redacted first: it quotes the event (ids, paths) and error messages.
  void write(const std::string& raw) const {
    std::string line;
    try {
      if (!redactor_) redactor_.emplace(redaction_);
      line = escape_controls(redactor_->redacted(raw));
    } catch (const std::exception&) {
      line = "(a line could not be redacted and was left out)";
    }
    std::error_code ec;
    try {
      make_private_dir(file_.parent_path());  // the store's directory: 0700
    } catch (const std::exception&) {
      return;  // nowhere to log: a hook still must not fail
    }
    if (std::filesystem::file_size(file_, ec) > kMaxLogBytes && !ec)
      std::filesystem::rename(file_, file_.string() + ".1", ec);
    int fd = ::open(file_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) return;  // nowhere to log: a hook still must not fail
    const auto now = std::chrono::system_clock::now();
    const std::string text =
        fmt::format("{:%Y-%m-%dT%H:%M:%S}Z [{}] {}\n",
                    std::chrono::time_point_cast<std::chrono::seconds>(now), ::getpid(), line);
    [[maybe_unused]] auto n = ::write(fd, text.data(), text.size());
    ::close(fd);
  }

 private:
  std::filesystem::path file_;
  RedactionConfig redaction_;
  mutable std::optional<Redactor> redactor_;  // built at the first line
};

void ingest(const Config& config, const std::filesystem::path& db_file, const HookEvent& e,
            const PluginRegistry& registry, const HookLog& log) {
  const auto start = std::chrono::steady_clock::now();
  SweepLock lock(db_file);
  if (!lock.acquired()) {
    log.write(fmt::format("{} {} {}: another sweep holds the store; the next sweep ingests it",
                          e.flavor, e.session_id, e.event_name));
    return;
  }
  const auto paths = session_sources(registry, config, e.flavor, e.session_id, e.transcript_path);
  if (paths.empty()) {
    log.write(fmt::format("{} {} {}: no transcript of this session found under the {} roots",
                          e.flavor, e.session_id, e.event_name, e.flavor));
    return;
  }
  Store store(db_file);
  const PipelineReport report = Pipeline(store, registry, config).ingest_paths(paths);
  const SweepReport& r = report.sweep;
  const DigestReport& d = report.digest;
  const std::optional<RetentionPlan>& evicted = report.retention;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string line = fmt::format(
      "{} {} {}: {} files, {} events added, {} bytes read, {} sessions "
      "digested",
      e.flavor, e.session_id, e.event_name, paths.size(), r.events_added, r.bytes_read,
      d.sessions_digested);
  if (evicted)
    line += fmt::format(", retention evicted {} sessions ({})", evicted->steps.size(),
                        human_bytes(evicted->planned_bytes()));
  log.write(fmt::format("{} in {:.2f} s", line, seconds));
  for (const auto& p : r.problems) log.write(fmt::format("{} {}: {}", e.flavor, e.session_id, p));
  for (const auto& p : d.problems) log.write(fmt::format("{} {}: {}", e.flavor, e.session_id, p));
  if (evicted)
    for (const auto& m : data_loss_messages(*evicted))
      log.write(fmt::format("{} {}: {}", e.flavor, e.session_id, m));
  if (report.push)
    log.write(fmt::format("{} {}: {}", e.flavor, e.session_id, push_step_line(*report.push)));
}

// Leaves the agent at once: the parent returns, a detached child does the work with its
// standard streams on /dev/null, so the agent's hook runner has no open pipe to wait on.
// Returns the fork's pid: > 0 in the parent, 0 in the child, < 0 when there is no child
// (then the work is done in the foreground).
pid_t detach() {
  pid_t pid = ::fork();
  if (pid != 0) return pid;
  ::setsid();
  int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  for (int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) ::dup2(null, fd);
  return 0;
}

// A flavor no adapter reads is a mistyped hook: said on stderr before the agent moves on (the
// first-party flavors are known without loading a plugin, so the usual hook stays fast).
void check_flavor(const Globals& g, const Config& config, const std::string& flavor) {
  std::vector<std::string> flavors = {"claude", "codex", "grok", "gemini"};
  if (std::find(flavors.begin(), flavors.end(), flavor) != flavors.end()) return;
  PluginRegistry registry;
  load_plugins(registry, g, config);
  for (const PluginInfo* p : registry.adapters()) {
    if (p->adapter->flavor == flavor) return;
    flavors.emplace_back(p->adapter->flavor);
  }
  throw UsageError(fmt::format("no adapter plugin reads flavor '{}'{}; the hook did nothing",
                               flavor, did_you_mean(flavor, flavors)));
}

}  // namespace

int cmd_hook(const Globals& g, const std::vector<std::string>& args) {
  std::optional<HookLog> log;
  try {
    auto vm = parse_command("hook", args);
    if (!vm.count("flavor"))
      throw UsageError("hook needs a flavor: that of an adapter plugin (claude, codex, grok, ...)");
    const std::string text = vm.count("event") ? vm["event"].as<std::string>() : read_stdin();
    Config config = load_configuration(g);
    const auto db_file = store_file(g, config);
    log.emplace(db_file.parent_path() / "hook.log", config.redaction);
    const boost::json::object object = event_object(text);
    check_flavor(g, config, vm["flavor"].as<std::string>());
    const pid_t child = vm.count("foreground") ? -1 : detach();
    if (child > 0) return kExitOk;
    // The adapters say how to read the event: loaded in the detached child, not in the agent's
    // time.
    PluginRegistry registry;
    load_plugins(registry, g, config);
    std::optional<HookEvent> event;
    try {
      event = resolve_event(registry, vm["flavor"].as<std::string>(), object);
      ingest(config, db_file, *event, registry, *log);
    } catch (const std::exception& e) {
      log->write(event ? fmt::format("{} {}: {}", event->flavor, event->session_id, e.what())
                       : fmt::format("hook not run: {}", e.what()));
    }
    if (child == 0) std::_Exit(kExitOk);  // the detached child: nothing of the parent to run
  } catch (const std::exception& e) {
    if (log) log->write(fmt::format("hook not run: {}", e.what()));
    std::cerr << "helix-host hook: " << e.what() << "\n";  // the agent may show it; still 0
  }
  return kExitOk;
}

}  // namespace helix

#include "plugins/adapter_worker.hpp"

#include "plugins/adapter_instance.hpp"
#include "plugins/batch_wire.hpp"
#include "privacy/redactor.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <optional>

namespace helix {
namespace {

using Clock = std::chrono::steady_clock;

enum Call : uint64_t { kProbe = 1, kParse = 2 };
enum Answer : uint64_t { kOk = 0, kError = 1, kOutOfMemory = 2 };

bool write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

bool write_frame(int fd, const std::string& bytes) {
  const uint64_t n = bytes.size();
  return write_all(fd, reinterpret_cast<const char*>(&n), sizeof n) &&
         write_all(fd, bytes.data(), bytes.size());
}

enum class Read { ok, closed, timed_out };

// Reads exactly `n` bytes, waiting until `deadline` (none: forever).
Read read_all(int fd, char* p, std::size_t n, std::optional<Clock::time_point> deadline) {
  while (n > 0) {
    if (deadline) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now());
      if (left.count() <= 0) return Read::timed_out;
      pollfd pfd{fd, POLLIN, 0};
      const int ready = ::poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left.count(), 1 << 30)));
      if (ready < 0 && errno == EINTR) continue;
      if (ready == 0) return Read::timed_out;
    }
    const ssize_t k = ::recv(fd, p, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return Read::closed;
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return Read::ok;
}

Read read_frame(int fd, std::string& out, std::optional<Clock::time_point> deadline) {
  uint64_t n = 0;
  if (auto r = read_all(fd, reinterpret_cast<char*>(&n), sizeof n, deadline); r != Read::ok)
    return r;
  out.resize(n);
  return read_all(fd, out.data(), n, deadline);
}

// The address space this process has now: what the worker inherited from the host.
int64_t address_space_bytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t pages = 0;
  statm >> pages;
  return pages * ::sysconf(_SC_PAGESIZE);
}

std::string human(int64_t bytes) {
  return bytes % (int64_t{1} << 30) == 0 ? fmt::format("{} GiB", bytes >> 30)
                                         : fmt::format("{} MiB", bytes >> 20);
}

}  // namespace

AdapterWorker::AdapterWorker(const PluginInfo& plugin, std::string_view config_json,
                             const Redactor* redactor, const IsolationPolicy& limits)
    : plugin_(plugin), config_json_(config_json), redactor_(redactor), limits_(limits) {}

AdapterWorker::~AdapterWorker() {
  if (pid_ > 0) stop(true);
}

void AdapterWorker::start() const {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    throw std::runtime_error(fmt::format("cannot start a worker for plugin '{}': {}", plugin_.name,
                                         std::strerror(errno)));
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(sv[0]);
    ::close(sv[1]);
    throw std::runtime_error(fmt::format("cannot start a worker for plugin '{}': {}", plugin_.name,
                                         std::strerror(errno)));
  }
  if (pid == 0) {
    ::close(sv[0]);
    serve(sv[1]);
  }
  ::close(sv[1]);
  pid_ = pid;
  fd_ = sv[0];
}

// The worker: the socket is all it keeps of the host's open files (not the store, not the
// sweep lock), its address space may grow by the memory limit, and it leaves with _Exit (the
// host's objects it inherited are not its to destroy).
void AdapterWorker::serve(int fd) const {
  // A fault in the plugin must end the worker, whatever handlers the host process installed.
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGALRM})
    ::signal(sig, SIG_DFL);
  if (fd > 3) ::close_range(3, static_cast<unsigned>(fd) - 1, 0);
  ::close_range(static_cast<unsigned>(fd) + 1, ~0U, 0);
  const auto limit = static_cast<rlim_t>(address_space_bytes() + limits_.memory_bytes);
  const rlimit rl{limit, limit};
  ::setrlimit(RLIMIT_AS, &rl);
  std::optional<AdapterInstance> adapter;
  std::string create_error;
  try {
    adapter.emplace(plugin_, config_json_, redactor_);
  } catch (const std::exception& e) {
    create_error = e.what();
  }
  std::string request;
  while (read_frame(fd, request, std::nullopt) == Read::ok) {
    WireWriter out;
    try {
      if (!adapter) throw std::runtime_error(create_error);
      WireReader in(request);
      if (in.u64() == kProbe) {
        const std::string path = in.str(), head = in.str();
        const int score = adapter->probe(path, head, in.u64());
        out.u64(kOk);
        out.i64(score);
      } else {
        const std::string path = in.str();
        const auto layout = static_cast<uint32_t>(in.u64());
        const uint64_t base = in.u64();
        const std::string data = in.str(), state = in.str();
        RecordBatch batch;
        adapter->parse(path, layout, base, data, state, batch);
        out.u64(kOk);
        write_batch(out, batch);
      }
    } catch (const std::bad_alloc&) {
      out = WireWriter{};
      out.u64(kOutOfMemory);
    } catch (const std::exception& e) {
      // The C++ glue turns an exhausted heap inside the plugin into HELIX_ERROR "std::bad_alloc".
      const std::string message = e.what();
      out = WireWriter{};
      out.u64(message.find("std::bad_alloc") != std::string::npos ? kOutOfMemory : kError);
      out.str(message);
    }
    if (!write_frame(fd, out.bytes())) break;
  }
  std::_Exit(0);
}

std::string AdapterWorker::stop(bool kill_it) const {
  if (kill_it) ::kill(pid_, SIGKILL);
  ::close(fd_);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  fd_ = -1;
  if (WIFSIGNALED(status))
    return fmt::format("crashed with signal {} ({})", WTERMSIG(status),
                       ::strsignal(WTERMSIG(status)));
  return fmt::format("exited with status {}", WEXITSTATUS(status));
}

std::string AdapterWorker::call(const std::string& request) const {
  if (pid_ < 0) start();
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(limits_.call_timeout_seconds));
  std::string answer;
  const Read r = write_frame(fd_, request) ? read_frame(fd_, answer, deadline) : Read::closed;
  if (r == Read::ok) return answer;
  if (r == Read::timed_out) {
    stop(true);
    throw PluginFault(fmt::format(
        "plugin '{}' hung: no answer within {} s ([plugins] call_timeout_seconds); its worker "
        "was killed",
        plugin_.name, limits_.call_timeout_seconds));
  }
  throw PluginFault(fmt::format("plugin '{}' {}", plugin_.name, stop(false)));
}

int AdapterWorker::probe(std::string_view path, std::string_view head, uint64_t size) const {
  WireWriter out;
  out.u64(kProbe);
  out.str(path);
  out.str(head);
  out.u64(size);
  const std::string answer = call(out.bytes());
  WireReader in(answer);
  const uint64_t status = in.u64();
  if (status == kOk) return static_cast<int>(in.i64());
  return AdapterInstance::kProbeFailed;
}

void AdapterWorker::parse(std::string_view path, uint32_t layout, uint64_t base_offset,
                          std::string_view data, std::string_view state, RecordBatch& batch) const {
  // Parsing redacts: the rules are built here, once, outside the plugin's memory limit, and
  // every worker inherits them. A worker started before that (to probe) starts again.
  if (redactor_ && !redactor_->prepared()) {
    redactor_->prepare();
    if (pid_ > 0) stop(false);  // it leaves when its socket closes
  }
  WireWriter out;
  out.u64(kParse);
  out.str(path);
  out.u64(layout);
  out.u64(base_offset);
  out.str(data);
  out.str(state);
  const std::string answer = call(out.bytes());
  WireReader in(answer);
  const uint64_t status = in.u64();
  if (status == kOutOfMemory) {
    stop(true);  // its heap is exhausted: start the next call afresh
    throw PluginFault(
        fmt::format("plugin '{}' ran out of its {} memory limit ([plugins] "
                    "worker_memory)",
                    plugin_.name, human(limits_.memory_bytes)));
  }
  if (status == kError) throw std::runtime_error(in.str());
  RecordBatch got = read_batch(in);
  // Appended, as an in-process call would: payload indexes move past what the batch held.
  const auto shift = static_cast<int64_t>(batch.payloads.size());
  for (auto& e : got.events)
    if (e.payload_index >= 0) e.payload_index += shift;
  auto move_all = [](auto& to, auto& from) {
    to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
  };
  move_all(batch.sessions, got.sessions);
  move_all(batch.events, got.events);
  move_all(batch.usage, got.usage);
  move_all(batch.rate_limits, got.rate_limits);
  move_all(batch.warnings, got.warnings);
  move_all(batch.payloads, got.payloads);
  if (got.saved_state) batch.saved_state = std::move(got.saved_state);
  for (const auto& [session, n] : got.redactions) batch.redactions[session] += n;
}

std::unique_ptr<AdapterRunner> make_adapter_runner(const PluginInfo& plugin,
                                                   std::string_view config_json,
                                                   const Redactor* redactor,
                                                   const IsolationPolicy& policy) {
  if (policy.isolates(plugin))
    return std::make_unique<AdapterWorker>(plugin, config_json, redactor, policy);
  return std::make_unique<AdapterInstance>(plugin, config_json, redactor);
}

}  // namespace helix

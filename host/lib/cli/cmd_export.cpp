// helix-host export: one session as a readable markdown transcript, a self-contained HTML page,
// or its normalized records as JSON or JSONL; an evicted session exports the digest that remains.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include "base/json_text.hpp"
#include "cli/cmd_recall.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "recall/html_transcript.hpp"
#include "recall/session_json.hpp"
#include "recall/session_view.hpp"
#include "recall/transcript.hpp"
#include "store/digest_store.hpp"
#include "store/store.hpp"

namespace helix {
namespace po = boost::program_options;
namespace {

boost::json::array digests_json(const std::vector<StoredDigest>& digests) {
  boost::json::array out;
  for (const auto& d : digests) {
    boost::system::error_code ec;
    boost::json::value v = boost::json::parse(d.json, ec);
    out.push_back({{"digester", d.digester},
                   {"version", d.version},
                   {"digest", ec ? boost::json::value(d.json) : std::move(v)}});
  }
  return out;
}

std::string render(Store& store, const SessionRow& s, const std::string& format) {
  // Evicted, also when grown since (its events then hold only the growth): the digest, which
  // covers every record, is the session, as `show` prints it.
  const bool evicted = s.evicted_at_ms > 0;
  if (format == "md") {
    if (evicted) return markdown_digest(s, stored_digests(store, s.uid));
    return markdown_transcript(s, store.events(s.uid, /*with_bodies=*/true));
  }
  if (format == "html") {
    const auto costs = session_costs(store);
    const double cost = costs.count(s.uid) ? costs.at(s.uid) : 0.0;
    if (evicted) return html_evicted_session(s, stored_digests(store, s.uid), cost);
    return html_transcript(s, store.events(s.uid, /*with_bodies=*/true), cost);
  }
  boost::json::object session = session_json(s);
  if (format == "json") {
    boost::json::object doc{{"session", session}, {"evicted", evicted}};
    if (evicted) {
      doc["digests"] = digests_json(stored_digests(store, s.uid));
    } else {
      boost::json::array events;
      for (const auto& e : store.events(s.uid, true)) events.push_back(event_json(e, true));
      doc["events"] = std::move(events);
    }
    return to_json(doc) + "\n";
  }
  // jsonl: one record per line, each tagged, so that jq can select by "record".
  session["record"] = "session";
  session["evicted"] = evicted;
  std::string out = to_json(session) + "\n";
  if (evicted) {
    for (auto& d : digests_json(stored_digests(store, s.uid))) {
      d.as_object()["record"] = "digest";
      d.as_object()["session_uid"] = s.uid;
      out += to_json(d) + "\n";
    }
    return out;
  }
  for (const auto& e : store.events(s.uid, true)) {
    boost::json::object o = event_json(e, true);
    o["record"] = "event";
    o["session_uid"] = s.uid;
    out += to_json(o) + "\n";
  }
  return out;
}

// Writes the export to `path` (0600, as the store is): a new file, or with `force` an existing
// regular file; never through a symbolic link. Says why it cannot.
void write_export(const std::string& path, const std::string& text, bool force) {
  const int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (force ? O_TRUNC : O_EXCL);
  const int fd = ::open(path.c_str(), flags, 0600);
  const int error = errno;
  struct stat link {};
  const bool is_link = fd < 0 && ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode);
  if (is_link || (fd < 0 && error == ELOOP))
    throw UsageError(fmt::format(
        "{} is a symbolic link; export does not write through links (name the file itself)", path));
  if (fd < 0 && error == EEXIST)
    throw UsageError(fmt::format("{} exists; pass --force to overwrite it", path));
  if (fd < 0)
    throw std::runtime_error(
        fmt::format("cannot write the export to {}: {}", path, std::strerror(error)));
  struct stat st {};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (!regular || (st.st_uid == ::geteuid() && ::fchmod(fd, 0600) != 0)) {
    ::close(fd);
    throw UsageError(
        fmt::format("{} is not a regular file of yours; export writes only those", path));
  }
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int failed = n < 0 ? errno : EIO;
      ::close(fd);
      throw std::runtime_error(
          fmt::format("cannot write the export to {} ({} of {} bytes "
                      "written): {}",
                      path, done, text.size(), std::strerror(failed)));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0)
    throw std::runtime_error(
        fmt::format("cannot write the export to {}: {}", path, std::strerror(errno)));
}

}  // namespace

int cmd_export(const Globals& g, const std::vector<std::string>& args) {
  auto vm = parse_command("export", args);
  const std::string format = vm["format"].as<std::string>();
  Config config = load_configuration(g);
  Store store = open_store_for_reading(g, config);
  const auto session = std::make_optional(required_session(store, vm, "export"));
  const std::string text = render(store, *session, format);
  if (!vm.count("out")) {
    std::cout << text;
    return kExitOk;
  }
  write_export(vm["out"].as<std::string>(), text, vm.count("force") > 0);
  return kExitOk;
}

}  // namespace helix

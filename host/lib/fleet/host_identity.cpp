#include "fleet/host_identity.hpp"

#include "base/private_files.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace helix {
namespace {

bool valid_host_id(const std::string& id) {
  return id.size() == 32 && id.find_first_not_of("0123456789abcdef") == std::string::npos;
}

std::string new_host_id() {
  std::random_device entropy;  // the kernel's random source
  std::string id;
  for (int i = 0; i < 4; ++i) id += fmt::format("{:08x}", entropy());
  return id;
}

std::string read_host_id(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string id;
  std::getline(in, id);
  if (!valid_host_id(id))
    throw std::runtime_error(fmt::format(
        "the host id file {} does not hold a host id (32 hex digits); restore it, or delete it "
        "to make this machine a new host of the fleet",
        file.string()));
  return id;
}

}  // namespace

std::filesystem::path default_host_id_file() {
  const char* state = std::getenv("XDG_STATE_HOME");
  if (state && *state) return std::filesystem::path(state) / "helix" / "host-id";
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home ? home : ".") / ".local/state/helix/host-id";
}

std::string load_or_create_host_id(const std::string& configured) {
  const std::filesystem::path file =
      configured.empty() ? default_host_id_file() : std::filesystem::path(configured);
  std::error_code ec;
  if (std::filesystem::exists(file, ec)) return read_host_id(file);
  make_private_dir(file.parent_path());
  // Written to a temporary file, then linked into place: link() fails when another process
  // made the file first, and that process's id is the one kept.
  const auto temp = file.parent_path() / fmt::format(".host-id.{}", ::getpid());
  const std::string id = new_host_id();
  {
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const std::string line = id + "\n";
    const bool written =
        fd >= 0 && ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()) &&
        ::fsync(fd) == 0;
    if (fd >= 0) ::close(fd);
    if (!written)
      throw std::runtime_error(
          fmt::format("cannot write the host id file {}: {}", temp.string(), std::strerror(errno)));
  }
  const int linked = ::link(temp.c_str(), file.c_str());
  const int link_errno = errno;
  std::filesystem::remove(temp, ec);
  if (linked != 0 && link_errno != EEXIST)
    throw std::runtime_error(fmt::format("cannot create the host id file {}: {}", file.string(),
                                         std::strerror(link_errno)));
  return read_host_id(file);
}

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

}  // namespace helix

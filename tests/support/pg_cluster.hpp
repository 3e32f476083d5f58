// Test support: a throwaway PostgreSQL cluster (initdb + pg_ctl) on a temporary directory and a
// free port of 127.0.0.1, with password authentication. initdb refuses to run as root, so under
// root (CI) the cluster runs as the unprivileged user `nobody`. The suite exits 77 (CTest's
// skip) when the PostgreSQL server binaries are not installed.
#pragma once

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>

#include "fleet/pg.hpp"
#include "temp_dir.hpp"

namespace helix::test {

// The directory of initdb and pg_ctl (Debian: /usr/lib/postgresql/<major>/bin), if installed.
inline std::optional<std::filesystem::path> postgres_bindir() {
  std::error_code ec;
  const std::filesystem::path root = "/usr/lib/postgresql";
  std::optional<std::filesystem::path> best;
  for (const auto& entry : std::filesystem::directory_iterator(root, ec))
    if (std::filesystem::exists(entry.path() / "bin/initdb") &&
        std::filesystem::exists(entry.path() / "bin/pg_ctl") &&
        (!best || entry.path() > best->parent_path()))
      best = entry.path() / "bin";
  return best;
}

// Exits 77 (skipped) when there is no PostgreSQL server to test against.
inline void skip_without_postgres() {
  if (postgres_bindir()) return;
  std::cerr << "skipped: the PostgreSQL server binaries (initdb, pg_ctl) are not installed; "
               "scripts/bootstrap installs postgresql-15\n";
  std::exit(77);
}

class PgCluster {
 public:
  static constexpr const char* kSuperuser = "postgres";
  static constexpr const char* kSuperuserPassword = "postgres-test-password";

  PgCluster() : bin_(*postgres_bindir()) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "helix-pg-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
    if (::geteuid() == 0) {
      const passwd* nobody = ::getpwnam("nobody");
      if (!nobody) throw std::runtime_error("running as root and there is no user 'nobody'");
      run_as_ = "runuser -u nobody -- ";
      if (::chown(dir_.c_str(), nobody->pw_uid, nobody->pw_gid) != 0)
        throw std::runtime_error("cannot hand " + dir_.string() + " to nobody");
    }
    write_file(dir_ / "pwfile", std::string(kSuperuserPassword) + "\n");
    shell(fmt::format("{}{}/initdb -D {}/data -U {} --pwfile={}/pwfile -A scram-sha-256 -E UTF8 "
                      "--locale=C.UTF-8 --no-sync",
                      run_as_, bin_.string(), dir_.string(), kSuperuser, dir_.string()),
          "initdb");
    start();
    superuser("postgres").exec("CREATE DATABASE helix");
  }

  ~PgCluster() {
    std::system(fmt::format("{}{}/pg_ctl -D {}/data -m immediate stop >/dev/null 2>&1", run_as_,
                            bin_.string(), dir_.string())
                    .c_str());
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  PgCluster(const PgCluster&) = delete;
  PgCluster& operator=(const PgCluster&) = delete;

  // Starts the server on a free port, or again on the port it had.
  void start() {
    if (port_ == 0) port_ = free_port();
    shell(fmt::format("{}{}/pg_ctl -D {}/data -l {}/server.log -w -t 60 -o \"-p {} -c "
                      "listen_addresses=127.0.0.1 -c unix_socket_directories='' -c fsync=off "
                      "-c max_connections=40\" start",
                      run_as_, bin_.string(), dir_.string(), dir_.string(), port_),
          "pg_ctl start");
  }

  // Stops the server the way an administrator restarting it does (clients are disconnected).
  void stop() {
    shell(fmt::format("{}{}/pg_ctl -D {}/data -m fast -w stop", run_as_, bin_.string(),
                      dir_.string()),
          "pg_ctl stop");
  }

  int port() const { return port_; }

  // A libpq connection string for `user` (its password from a password file or the caller).
  std::string conninfo(const std::string& user, const std::string& db = "helix") const {
    return fmt::format("host=127.0.0.1 port={} dbname={} user={} connect_timeout=5", port_, db,
                       user);
  }

  pg::Connection superuser(const std::string& db = "helix") const {
    return pg::Connection(conninfo(kSuperuser, db), kSuperuserPassword);
  }
  pg::Connection as(const std::string& user, const std::string& password) const {
    return pg::Connection(conninfo(user), password);
  }

  // A line of a libpq password file (~/.pgpass format) for `user` on this server, any database.
  std::string pgpass_line(const std::string& user, const std::string& password) const {
    return fmt::format("127.0.0.1:*:*:{}:{}\n", user, password);
  }

  const std::filesystem::path& dir() const { return dir_; }

 private:
  void shell(const std::string& command, const char* what) const {
    const auto log = dir_ / "command.log";
    if (std::system((command + " >" + log.string() + " 2>&1").c_str()) != 0)
      throw std::runtime_error(fmt::format("{} failed: {}\n{}", what, command, read_file(log)));
  }

  static int free_port() {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
      throw std::runtime_error("cannot find a free port on 127.0.0.1");
    ::close(fd);
    return ntohs(addr.sin_port);
  }

  std::filesystem::path bin_, dir_;
  std::string run_as_;  // "runuser -u nobody -- " under root
  int port_ = 0;
};

}  // namespace helix::test

#include "fleet/fleet_connection.hpp"

#include "fleet/fleet_schema.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace helix {
namespace {

void refuse_password_in(const std::string& conninfo, const char* where) {
  bool has_password = false;
  try {
    has_password = pg::names_password(conninfo);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(
        fmt::format("{} is not a libpq connection string: {}", where, e.what()));
  }
  if (has_password)
    throw std::invalid_argument(fmt::format(
        "{} holds a password; remove it and keep the password in ~/.pgpass (or PGPASSFILE), a "
        "pg_service.conf service, or the file named by [fleet] password_file",
        where));
}

std::string read_password_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw std::runtime_error(fmt::format("cannot read [fleet] password_file {}", path));
  if ((st.st_mode & 077) != 0)
    throw std::runtime_error(fmt::format(
        "[fleet] password_file {} can be read by others (mode {:04o}); fix it with: chmod 600 {}",
        path, st.st_mode & 07777, path));
  std::ifstream in(path);
  std::string password;
  std::getline(in, password);
  if (!password.empty() && password.back() == '\r') password.pop_back();
  if (password.empty())
    throw std::runtime_error(fmt::format("[fleet] password_file {} is empty", path));
  return password;
}

}  // namespace

void check_fleet_config(const FleetConfig& config, bool need_team) {
  if (config.connection.empty())
    throw std::invalid_argument(
        "no fleet database is configured: set [fleet] connection and team in the configuration "
        "(docs/operations.md, Team memory)");
  if (need_team && !valid_team_name(config.team))
    throw std::invalid_argument(fmt::format(
        "[fleet] team '{}' is not a team name (1 to 40 of a-z, 0-9 and _)", config.team));
  refuse_password_in(config.connection, "[fleet] connection");
}

std::unique_ptr<pg::Connection> connect_fleet(const FleetConfig& config, bool need_team,
                                              const std::string& connection) {
  if (!connection.empty())
    refuse_password_in(connection, "--connection");
  else
    check_fleet_config(config, need_team);
  // The configured password belongs to the configured login, not to an administrator's.
  const std::string password = connection.empty() && !config.password_file.empty()
                                   ? read_password_file(config.password_file)
                                   : std::string();
  return std::make_unique<pg::Connection>(connection.empty() ? config.connection : connection,
                                          password);
}

}  // namespace helix

// A connection to the fleet database as [fleet] configures it, checked before anything is sent.
#pragma once

#include "config/fleet_config.hpp"
#include "fleet/pg.hpp"

#include <memory>
#include <string>

namespace helix {

// Refuses a configuration push and the fleet reads cannot use, saying what to change: no
// [fleet] connection, a bad team name (when `need_team`), or a password in the connection
// string.
void check_fleet_config(const FleetConfig& config, bool need_team);

// Connects as configured, with the password of `password_file` when one is set (a file others
// may read is refused, as libpq refuses such a ~/.pgpass). A non-empty `connection` (an
// administrator's command) replaces the configured string and its password file.
std::unique_ptr<pg::Connection> connect_fleet(const FleetConfig& config, bool need_team,
                                              const std::string& connection = "");

}  // namespace helix

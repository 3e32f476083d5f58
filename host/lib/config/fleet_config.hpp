// [fleet]: how this machine reaches its team's PostgreSQL database and what it pushes there.
#pragma once

#include <cstdint>
#include <string>

namespace helix {

struct FleetConfig {
  // A libpq connection string (key=value or postgresql:// URI). Empty: no fleet. Never holds a
  // password: libpq finds it in PGPASSFILE (~/.pgpass), a service file, or `password_file`.
  std::string connection;
  std::string password_file;  // a file holding only the password (0600); "" = libpq's own
  std::string team;           // the team this machine pushes for: [a-z0-9_]{1,40}
  // Where this machine's stable host id is kept (generated on the first push). "" = the
  // default, $XDG_STATE_HOME/helix/host-id (~/.local/state/helix/host-id).
  std::string host_id_file;
  bool events = false;             // also push the redacted events and their search text
  std::string cadence = "manual";  // manual | after-sweep (a sweep pushes after it wrote)
  int64_t batch_sessions = 500;    // sessions per transaction (with their digests and usage)
};

}  // namespace helix

// helix-host's exit codes: one table for every command (docs/operations.md), sysexits.h values
// where one fits.
#pragma once

namespace helix {

inline constexpr int kExitOk = 0;
inline constexpr int kExitNotFound = 1;      // the session, digest or store asked for is not there
inline constexpr int kExitUsage = 2;         // a bad command line (the message says what)
inline constexpr int kExitConfig = 2;        // a bad configuration file (file, line and what)
inline constexpr int kExitFailure = 3;       // a fatal runtime error (store, I/O)
inline constexpr int kExitCannotResume = 4;  // resume: the agent cannot resume this session
// `sweep`: a plugin crashed, hung or ran out of memory on some sources, which are quarantined;
// everything else was stored and is reported.
inline constexpr int kExitQuarantined = 5;
inline constexpr int kExitDataError = 65;  // an input file is not what it must be (EX_DATAERR)
// `sweep`: the store refused or lost writes (disk full, I/O error); the report counts only what
// was committed, and the next sweep reads the rest again (EX_IOERR).
inline constexpr int kExitStoreFailed = 74;
// Another sweep holds the store, or another process kept it locked past the busy timeout
// (EX_TEMPFAIL).
inline constexpr int kExitBusy = 75;

}  // namespace helix

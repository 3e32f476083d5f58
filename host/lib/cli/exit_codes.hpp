// helix-host's exit codes (documented in docs/operations.md).
#pragma once

namespace helix {

inline constexpr int kExitOk = 0;
inline constexpr int kExitNotFound = 1;  // the asked-for session or digest does not exist
inline constexpr int kExitUsage = 2;     // bad command line or configuration
inline constexpr int kExitFailure = 3;   // a fatal runtime error (store, I/O)
// `sweep`: a plugin crashed, hung or ran out of memory on some sources, which are quarantined;
// everything else was stored and is reported.
inline constexpr int kExitQuarantined = 5;
inline constexpr int kExitDataError = 65;  // an input file is not what it must be (EX_DATAERR)
// `sweep`: the store refused or lost writes (disk full, I/O error); the report counts only what
// was committed, and the next sweep reads the rest again (EX_IOERR).
inline constexpr int kExitStoreFailed = 74;
inline constexpr int kExitBusy = 75;  // another sweep holds the store (EX_TEMPFAIL)

}  // namespace helix

// A SQLite VFS that wraps the default one and fails on cue, the way SQLite's own tests inject
// I/O faults: preloaded (LD_PRELOAD) into a real helix-host, it registers itself as the default
// VFS, so the store runs on it unchanged. HELIX_FAULT picks the fault, counted over the process:
//   write:N  every write past the first N bytes fails (SQLITE_IOERR_WRITE), nothing written
//   short:N  the write that crosses N bytes writes only what fits, then every write is short
//            (SQLITE_FULL, as SQLite reports a short write)
//   fsync:N  every sync after the first N fails (SQLITE_IOERR_FSYNC)
//   busy:N   every write lock after the first N is refused (SQLITE_BUSY), as another
//            process holding the store past the busy timeout
// HELIX_FAULT_LOG, when set, names a file that gets one line per injected fault.
#include <sqlite3.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

enum class Fault { none, write, short_write, fsync, busy };

Fault g_fault = Fault::none;
long long g_allowance = 0;  // bytes, syncs or locks that succeed before the fault
std::atomic<long long> g_used{0};
sqlite3_vfs* g_real = nullptr;

void note(const char* what) {
  if (const char* log = std::getenv("HELIX_FAULT_LOG")) {
    if (FILE* f = std::fopen(log, "a")) {
      std::fprintf(f, "%s\n", what);
      std::fclose(f);
    }
  }
}

// Our file: the wrapped VFS's file lives right behind it (szOsFile covers both).
struct FaultFile {
  sqlite3_file base;
  sqlite3_file* real() { return reinterpret_cast<sqlite3_file*>(this + 1); }
};

sqlite3_file* real_of(sqlite3_file* f) { return reinterpret_cast<FaultFile*>(f)->real(); }

int fault_write(sqlite3_file* f, const void* data, int amount, sqlite3_int64 offset) {
  if (g_fault == Fault::write || g_fault == Fault::short_write) {
    const long long before = g_used.fetch_add(amount);
    if (before + amount > g_allowance) {
      note(g_fault == Fault::write ? "write failed" : "short write");
      if (g_fault == Fault::write) return SQLITE_IOERR_WRITE;
      const long long fits = before < g_allowance ? g_allowance - before : 0;
      if (fits > 0) real_of(f)->pMethods->xWrite(real_of(f), data, static_cast<int>(fits), offset);
      return SQLITE_FULL;
    }
  }
  return real_of(f)->pMethods->xWrite(real_of(f), data, amount, offset);
}

int fault_sync(sqlite3_file* f, int flags) {
  if (g_fault == Fault::fsync && g_used.fetch_add(1) >= g_allowance) {
    note("fsync failed");
    return SQLITE_IOERR_FSYNC;
  }
  return real_of(f)->pMethods->xSync(real_of(f), flags);
}

bool refuse_lock() {
  if (g_fault != Fault::busy || g_used.fetch_add(1) < g_allowance) return false;
  note("lock refused");
  return true;
}

int fault_lock(sqlite3_file* f, int level) {
  if (level >= SQLITE_LOCK_RESERVED && refuse_lock()) return SQLITE_BUSY;
  return real_of(f)->pMethods->xLock(real_of(f), level);
}

// WAL mode takes its write lock (slot 0) through the shared-memory locks.
int fault_shm_lock(sqlite3_file* f, int offset, int n, int flags) {
  if (offset == 0 && (flags & SQLITE_SHM_LOCK) && (flags & SQLITE_SHM_EXCLUSIVE) && refuse_lock())
    return SQLITE_BUSY;
  return real_of(f)->pMethods->xShmLock(real_of(f), offset, n, flags);
}

// The rest forwards to the wrapped file.
int fault_close(sqlite3_file* f) { return real_of(f)->pMethods->xClose(real_of(f)); }
int fault_read(sqlite3_file* f, void* data, int amount, sqlite3_int64 offset) {
  return real_of(f)->pMethods->xRead(real_of(f), data, amount, offset);
}
int fault_truncate(sqlite3_file* f, sqlite3_int64 size) {
  return real_of(f)->pMethods->xTruncate(real_of(f), size);
}
int fault_file_size(sqlite3_file* f, sqlite3_int64* size) {
  return real_of(f)->pMethods->xFileSize(real_of(f), size);
}
int fault_unlock(sqlite3_file* f, int level) {
  return real_of(f)->pMethods->xUnlock(real_of(f), level);
}
int fault_check_reserved(sqlite3_file* f, int* out) {
  return real_of(f)->pMethods->xCheckReservedLock(real_of(f), out);
}
int fault_control(sqlite3_file* f, int op, void* arg) {
  return real_of(f)->pMethods->xFileControl(real_of(f), op, arg);
}
int fault_sector_size(sqlite3_file* f) { return real_of(f)->pMethods->xSectorSize(real_of(f)); }
int fault_device(sqlite3_file* f) {
  return real_of(f)->pMethods->xDeviceCharacteristics(real_of(f));
}
int fault_shm_map(sqlite3_file* f, int region, int size, int extend, void volatile** out) {
  return real_of(f)->pMethods->xShmMap(real_of(f), region, size, extend, out);
}
void fault_shm_barrier(sqlite3_file* f) { real_of(f)->pMethods->xShmBarrier(real_of(f)); }
int fault_shm_unmap(sqlite3_file* f, int remove) {
  return real_of(f)->pMethods->xShmUnmap(real_of(f), remove);
}

// Version 2: no memory-mapped reads (xFetch), so every byte goes through xRead.
const sqlite3_io_methods kMethods = {2,
                                     fault_close,
                                     fault_read,
                                     fault_write,
                                     fault_truncate,
                                     fault_sync,
                                     fault_file_size,
                                     fault_lock,
                                     fault_unlock,
                                     fault_check_reserved,
                                     fault_control,
                                     fault_sector_size,
                                     fault_device,
                                     fault_shm_map,
                                     fault_shm_lock,
                                     fault_shm_barrier,
                                     fault_shm_unmap,
                                     nullptr,
                                     nullptr};

int fault_open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* f, int flags, int* out_flags) {
  auto* ours = reinterpret_cast<FaultFile*>(f);
  ours->base.pMethods = nullptr;
  const int rc = g_real->xOpen(g_real, name, ours->real(), flags, out_flags);
  if (rc == SQLITE_OK) ours->base.pMethods = &kMethods;
  return rc;
}

sqlite3_vfs g_vfs;

void parse_fault() {
  const char* spec = std::getenv("HELIX_FAULT");
  if (!spec) return;
  const std::string s(spec);
  const auto colon = s.find(':');
  const std::string kind = s.substr(0, colon);
  g_allowance = colon == std::string::npos ? 0 : std::atoll(s.c_str() + colon + 1);
  if (kind == "write") g_fault = Fault::write;
  if (kind == "short") g_fault = Fault::short_write;
  if (kind == "fsync") g_fault = Fault::fsync;
  if (kind == "busy") g_fault = Fault::busy;
}

__attribute__((constructor)) void register_fault_vfs() {
  parse_fault();
  g_real = sqlite3_vfs_find(nullptr);
  if (!g_real) return;
  g_vfs = *g_real;  // everything but opening files is the wrapped VFS's own
  g_vfs.iVersion = g_real->iVersion;
  g_vfs.zName = "helix-fault";
  g_vfs.szOsFile = static_cast<int>(sizeof(FaultFile)) + g_real->szOsFile;
  g_vfs.xOpen = fault_open;
  g_vfs.pAppData = g_real->pAppData;
  sqlite3_vfs_register(&g_vfs, 1);
}

}  // namespace

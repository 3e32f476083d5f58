#include "store/database.hpp"

#include <fmt/format.h>
#include <sqlite3.h>
#include <memory>
#include <stdexcept>

#include "store/search_index.hpp"
#include "store/store.hpp"

namespace helix {
namespace {

// SQL text on one line, shortened, for error messages.
std::string brief(std::string_view sql) {
  std::string out;
  for (char c : sql) {
    if (c == '\n' || c == ' ') {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  return out.size() > 60 ? out.substr(0, 60) + "..." : out;
}

constexpr int kBusyTimeoutMs = 10000;

// Throws the error of `db`: StoreLocked when another connection held the store past the busy
// timeout, std::runtime_error otherwise.
[[noreturn]] void throw_store_error(sqlite3* db, const std::string& message) {
  if ((sqlite3_extended_errcode(db) & 0xff) == SQLITE_BUSY)
    throw StoreLocked(fmt::format("{} (another process held the store for more than {} s)", message,
                                  kBusyTimeoutMs / 1000));
  throw std::runtime_error(message);
}

[[noreturn]] void fail(sqlite3* db, std::string_view what) {
  throw_store_error(db, fmt::format("store error while {}: {}", what, sqlite3_errmsg(db)));
}

}  // namespace

Statement::Statement(sqlite3* db, std::string_view sql) : db_(db) {
  if (sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                         &stmt_, nullptr) != SQLITE_OK)
    fail(db, fmt::format("preparing \"{}\"", brief(sql)));
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement::Statement(Statement&& other) noexcept
    : db_(other.db_), stmt_(other.stmt_), named_(std::move(other.named_)) {
  other.stmt_ = nullptr;
}

Statement& Statement::bind(int index, int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}
Statement& Statement::bind(int index, double value) {
  sqlite3_bind_double(stmt_, index, value);
  return *this;
}
Statement& Statement::bind(int index, std::string_view text) {
  sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  return *this;
}
Statement& Statement::bind_blob(int index, std::string_view bytes) {
  sqlite3_bind_blob64(stmt_, index, bytes.data(), bytes.size(), SQLITE_TRANSIENT);
  return *this;
}
Statement& Statement::bind_null(int index) {
  sqlite3_bind_null(stmt_, index);
  return *this;
}
Statement& Statement::bind_text_or_null(int index, std::string_view text) {
  return text.empty() ? bind_null(index) : bind(index, text);
}

int Statement::index_of(const char* name) const {
  for (const auto& [known, index] : named_)
    if (known == name) return index;
  const int index = sqlite3_bind_parameter_index(stmt_, name);
  if (index == 0)
    throw std::logic_error(
        fmt::format("SQL statement has no parameter {}: {}", name, sqlite3_sql(stmt_)));
  named_.emplace_back(name, index);
  return index;
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  std::string sql = sqlite3_sql(stmt_) ? sqlite3_sql(stmt_) : "";
  sqlite3_reset(stmt_);
  fail(db_, fmt::format("running \"{}\"", brief(sql)));
}

void Statement::run() {
  while (step()) {
  }
  reset();
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int64_t Statement::integer(int column) const { return sqlite3_column_int64(stmt_, column); }
double Statement::real(int column) const { return sqlite3_column_double(stmt_, column); }
std::string Statement::text(int column) const {
  auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)))
           : std::string();
}
std::string Statement::blob(int column) const {
  auto* p = static_cast<const char*>(sqlite3_column_blob(stmt_, column));
  return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)))
           : std::string();
}
bool Statement::is_null(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

StatementLease::~StatementLease() {
  if (!stmt_) return;
  stmt_->reset();
  if (in_use_) *in_use_ = false;
}

StatementLease::StatementLease(StatementLease&& other) noexcept
    : owned_(std::move(other.owned_)), stmt_(other.stmt_), in_use_(other.in_use_) {
  other.stmt_ = nullptr;
  other.in_use_ = nullptr;
}

StatementLease Database::cached(std::string_view sql) {
  auto it = cache_.find(std::string(sql));
  if (it == cache_.end())
    it = cache_
             .emplace(std::string(sql),
                      std::make_unique<CachedStatement>(CachedStatement{Statement(db_, sql)}))
             .first;
  CachedStatement& c = *it->second;
  if (c.in_use) return StatementLease(Statement(db_, sql));
  c.in_use = true;
  return StatementLease(&c.statement, &c.in_use);
}

Database::Database(const std::filesystem::path& file, bool read_only) : path_(file) {
  int flags = read_only ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  if (sqlite3_open_v2(file.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    throw std::runtime_error(fmt::format("cannot open the store {}: {}", file.string(), msg));
  }
  // ~Database does not run when the constructor throws: the connection closes here instead.
  std::unique_ptr<sqlite3, int (*)(sqlite3*)> close_on_failure(db_, sqlite3_close_v2);
  sqlite3_busy_timeout(db_, kBusyTimeoutMs);
  sqlite3_extended_result_codes(db_, 1);
  register_search_functions(db_);  // the search index's view and trigger call it
  exec("PRAGMA foreign_keys = ON");
  // auto_vacuum first: SQLite ignores it once WAL is on, and without it deletes never give
  // space back to the file system. On a file that already has tables it changes nothing.
  if (!read_only) {
    // temp_store = MEMORY: a statement's journal (written inside a sweep's long transaction
    // once past 64 KiB) stays in memory; in /var/tmp it took 61% of a cold sweep's pwrite
    // calls (bench/RESULTS.md). It holds only the pages one statement changes.
    exec(
        "PRAGMA auto_vacuum = INCREMENTAL; PRAGMA journal_mode = WAL; "
        "PRAGMA synchronous = NORMAL; PRAGMA temp_store = MEMORY");
    // No checkpoint when the connection closes (unless the WAL grew large, ~Database): a
    // sweep every second (watch, hooks) would copy its pages into the database each time.
    // The WAL is folded in passively when it passes wal_autocheckpoint pages; what a power
    // loss takes from an unsynced WAL is whole transactions, whose sources the next sweep
    // reads again.
    sqlite3_db_config(db_, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
  }
  (void)close_on_failure.release();  // disarmed: the connection stays open
}

Database::~Database() {
  cache_.clear();  // statements first: the connection closes cleanly only without them
  // A WAL left larger than this (a cold sweep's) is folded in and removed as the last
  // connection closes, as SQLite does by default: the disk it takes stays bounded.
  constexpr std::uintmax_t kWalKeptAtClose = 16 << 20;
  std::error_code ec;
  const auto wal_bytes = std::filesystem::file_size(path_.string() + "-wal", ec);
  if (!ec && wal_bytes > kWalKeptAtClose)
    sqlite3_db_config(db_, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0, nullptr);
  sqlite3_close_v2(db_);
}

void Database::exec(std::string_view sql) {
  char* err = nullptr;
  std::string owned(sql);
  if (sqlite3_exec(db_, owned.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    throw_store_error(db_, fmt::format("store error while running \"{}\": {}", brief(owned), msg));
  }
}

int64_t Database::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }
int Database::changes() const { return sqlite3_changes(db_); }
bool Database::in_transaction() const { return sqlite3_get_autocommit(db_) == 0; }

Transaction::Transaction(Database& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }
Transaction::~Transaction() {
  if (!done_) {
    try {
      db_.exec("ROLLBACK");
    } catch (const std::exception&) {
      // The connection already rolled back (e.g. after a failed COMMIT); nothing is left.
    }
  }
}
void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

Savepoint::Savepoint(Database& db) : db_(db) { db_.exec("SAVEPOINT chunk"); }
Savepoint::~Savepoint() {
  if (done_) return;
  try {
    db_.exec("ROLLBACK TO chunk; RELEASE chunk");
  } catch (const std::exception&) {
    // SQLite already rolled back the whole transaction (e.g. a full disk); nothing is left.
  }
}
void Savepoint::release() {
  db_.exec("RELEASE chunk");
  done_ = true;
}

}  // namespace helix

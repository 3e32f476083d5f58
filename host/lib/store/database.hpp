// A thin RAII layer over SQLite: one connection, prepared statements, transactions.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace helix {

class Statement {
 public:
  Statement(sqlite3* db, std::string_view sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement(Statement&& other) noexcept;

  // Binding is 1-based as in SQLite. Empty optionals and empty strings bind as written.
  Statement& bind(int index, int64_t value);
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view text);
  Statement& bind_blob(int index, std::string_view bytes);
  Statement& bind_null(int index);
  // Binds NULL for an empty string: for optional text columns.
  Statement& bind_text_or_null(int index, std::string_view text);
  // Named parameters (":name" in the SQL), for statements with more than a handful.
  // Throws std::logic_error when the SQL has no parameter of that name. Names are looked up
  // once per statement and remembered by the name's address (string literals in practice).
  int index_of(const char* name) const;
  template <class T>
  Statement& bind(const char* name, T&& value) {
    return bind(index_of(name), std::forward<T>(value));
  }
  Statement& bind_null(const char* name) { return bind_null(index_of(name)); }
  Statement& bind_text_or_null(const char* name, std::string_view text) {
    return bind_text_or_null(index_of(name), text);
  }

  bool step();  // true while a row is available; throws on error
  void run();   // step to completion, then reset
  void reset();

  int64_t integer(int column) const;
  double real(int column) const;
  std::string text(int column) const;
  std::string blob(int column) const;
  bool is_null(int column) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  mutable std::vector<std::pair<const char*, int>> named_;  // index_of's, by name address
};

class Database;

// A statement borrowed from its connection's cache for one use: reset and unbound when the
// lease ends, however it ends (a caller that throws mid-step leaves nothing bound or open).
class StatementLease {
 public:
  StatementLease(Statement* cached, bool* in_use) : stmt_(cached), in_use_(in_use) {}
  explicit StatementLease(Statement&& own)
      : owned_(std::make_unique<Statement>(std::move(own))), stmt_(owned_.get()) {}
  ~StatementLease();
  StatementLease(const StatementLease&) = delete;
  StatementLease& operator=(const StatementLease&) = delete;
  StatementLease(StatementLease&& other) noexcept;

  Statement& operator*() const { return *stmt_; }
  Statement* operator->() const { return stmt_; }

 private:
  std::unique_ptr<Statement> owned_;  // when the cached one was already lent out
  Statement* stmt_ = nullptr;
  bool* in_use_ = nullptr;
};

class Database {
 public:
  // Opens (creating if needed) the file with WAL, a busy timeout and foreign keys on.
  explicit Database(const std::filesystem::path& file, bool read_only = false);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  void exec(std::string_view sql);
  Statement prepare(std::string_view sql) const { return Statement(db_, sql); }
  // The statement for this SQL text, compiled once per connection and reused: for SQL that
  // runs per chunk, per source or per lookup. A second lease of a text still in use gets a
  // fresh statement of its own.
  StatementLease cached(std::string_view sql);
  int64_t last_insert_rowid() const;
  int changes() const;
  bool in_transaction() const;
  const std::filesystem::path& path() const { return path_; }

 private:
  struct CachedStatement {
    Statement statement;
    bool in_use = false;
  };
  sqlite3* db_ = nullptr;
  std::filesystem::path path_;
  std::unordered_map<std::string, std::unique_ptr<CachedStatement>> cache_;
};

// Commits on commit(), rolls back if destroyed before that.
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Database& db_;
  bool done_ = false;
};

// A nested unit inside an open transaction: released on release(), rolled back to its start if
// destroyed before that (the enclosing transaction stays open).
class Savepoint {
 public:
  explicit Savepoint(Database& db);
  ~Savepoint();
  Savepoint(const Savepoint&) = delete;
  Savepoint& operator=(const Savepoint&) = delete;
  void release();

 private:
  Database& db_;
  bool done_ = false;
};

}  // namespace helix

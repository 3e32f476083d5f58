// A thin RAII layer over libpq: one connection, parameterised statements, COPY FROM STDIN,
// transactions and rows streamed one at a time.
#pragma once

#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

struct pg_conn;
struct pg_result;

namespace helix::pg {

// A failed statement or connection. `sqlstate` is PostgreSQL's error code ("42501" for
// insufficient privilege, "" when the connection itself failed); `connection_lost` is true
// when the server went away (a restart, a network cut), so the caller can say the next run
// resumes.
class Error : public std::runtime_error {
 public:
  Error(const std::string& message, std::string sqlstate, bool connection_lost)
      : std::runtime_error(message),
        sqlstate_(std::move(sqlstate)),
        connection_lost_(connection_lost) {}
  const std::string& sqlstate() const { return sqlstate_; }
  bool connection_lost() const { return connection_lost_; }

 private:
  std::string sqlstate_;
  bool connection_lost_;
};

// A statement's rows. Values are text (libpq's text format); NULL reads as an empty view.
class Result {
 public:
  explicit Result(pg_result* result);
  int rows() const;
  std::string_view text(int row, int column) const;
  bool is_null(int row, int column) const;
  int64_t integer(int row, int column) const;  // 0 for NULL
  double real(int row, int column) const;      // 0 for NULL
  int64_t affected() const;                    // rows an INSERT, UPDATE or DELETE changed

 private:
  std::shared_ptr<pg_result> result_;
};

// One statement parameter: text, or NULL when empty (owned: a parameter list may be built from
// temporaries).
using Param = std::optional<std::string>;

// One row as query_each hands it out (valid during the callback only).
using RowVisitor = std::function<void(const Result& row)>;

class Connection {
 public:
  // Connects with a libpq connection string (key=value or URI: TLS, service files and
  // PGPASSFILE apply as libpq configures them). `password`, when not empty, is sent as the
  // password (read from a password file by the caller). The session runs in UTC with UTF-8.
  Connection(const std::string& conninfo, const std::string& password);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Statements without parameters (several may be separated by semicolons).
  void exec(std::string_view sql);
  // One statement with $1, $2... bound to `params` (sent as text).
  Result query(std::string_view sql, const std::vector<Param>& params = {});
  // Like query, but hands each row to `visit` as it arrives: memory stays flat.
  void query_each(std::string_view sql, const std::vector<Param>& params, const RowVisitor& visit);
  // COPY ... FROM STDIN (text format) with `data`, rows already escaped (see copy_field).
  void copy(std::string_view copy_sql, std::string_view data);

  // The server's name for what this connection logged in as.
  std::string user();

 private:
  [[noreturn]] void fail(pg_result* result, std::string_view what);
  pg_conn* conn_ = nullptr;
};

// BEGIN now, ROLLBACK when destroyed without commit().
class Transaction {
 public:
  explicit Transaction(Connection& c) : c_(c) { c_.exec("BEGIN"); }
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit() {
    c_.exec("COMMIT");
    open_ = false;
  }

 private:
  Connection& c_;
  bool open_ = true;
};

// Appends `value` to a COPY text-format row: backslash, tab, newline and carriage return
// escaped; an empty optional is \N (NULL). Callers separate fields with '\t', rows with '\n'.
void copy_field(std::string& row, std::optional<std::string_view> value);

// `conninfo` names a password (password=..., or user:password@ in a URI): the caller refuses
// it, since a password must never sit in clear in the configuration. Throws std::invalid_argument
// when libpq cannot parse the string, with libpq's reason.
bool names_password(const std::string& conninfo);

// `name` as an SQL identifier / string literal, quoted for pasting into SQL text.
std::string quote_identifier(std::string_view name);
std::string quote_literal(std::string_view text);

}  // namespace helix::pg

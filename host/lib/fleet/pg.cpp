#include "fleet/pg.hpp"

#include <dlfcn.h>
#include <libpq-fe.h>

#include <charconv>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace helix::pg {
namespace {

// libpq is opened on first use rather than linked: linking it loads its dependencies (TLS,
// Kerberos, LDAP) into every helix-host process, hooks included, and costs each start tens of
// milliseconds on a busy machine although only the fleet commands use it.
struct Libpq {
  decltype(&::PQclear) PQclear;
  decltype(&::PQcmdTuples) PQcmdTuples;
  decltype(&::PQconnectdbParams) PQconnectdbParams;
  decltype(&::PQconninfoFree) PQconninfoFree;
  decltype(&::PQconninfoParse) PQconninfoParse;
  decltype(&::PQerrorMessage) PQerrorMessage;
  decltype(&::PQexec) PQexec;
  decltype(&::PQexecParams) PQexecParams;
  decltype(&::PQfinish) PQfinish;
  decltype(&::PQfreemem) PQfreemem;
  decltype(&::PQgetResult) PQgetResult;
  decltype(&::PQgetisnull) PQgetisnull;
  decltype(&::PQgetlength) PQgetlength;
  decltype(&::PQgetvalue) PQgetvalue;
  decltype(&::PQntuples) PQntuples;
  decltype(&::PQputCopyData) PQputCopyData;
  decltype(&::PQputCopyEnd) PQputCopyEnd;
  decltype(&::PQresultErrorField) PQresultErrorField;
  decltype(&::PQresultErrorMessage) PQresultErrorMessage;
  decltype(&::PQresultStatus) PQresultStatus;
  decltype(&::PQsendQueryParams) PQsendQueryParams;
  decltype(&::PQsetNoticeProcessor) PQsetNoticeProcessor;
  decltype(&::PQsetSingleRowMode) PQsetSingleRowMode;
  decltype(&::PQstatus) PQstatus;
};

const Libpq& libpq() {
  static const Libpq loaded = [] {
    void* so = ::dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!so)
      throw std::runtime_error(
          std::string("the fleet needs the PostgreSQL client library libpq.so.5, which cannot be "
                      "loaded (apt-get install libpq5): ") +
          ::dlerror());
    Libpq l{};
    auto load = [so](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(so, name));
      if (!fn) throw std::runtime_error(std::string("libpq.so.5 has no ") + name);
    };
    load(l.PQclear, "PQclear");
    load(l.PQcmdTuples, "PQcmdTuples");
    load(l.PQconnectdbParams, "PQconnectdbParams");
    load(l.PQconninfoFree, "PQconninfoFree");
    load(l.PQconninfoParse, "PQconninfoParse");
    load(l.PQerrorMessage, "PQerrorMessage");
    load(l.PQexec, "PQexec");
    load(l.PQexecParams, "PQexecParams");
    load(l.PQfinish, "PQfinish");
    load(l.PQfreemem, "PQfreemem");
    load(l.PQgetResult, "PQgetResult");
    load(l.PQgetisnull, "PQgetisnull");
    load(l.PQgetlength, "PQgetlength");
    load(l.PQgetvalue, "PQgetvalue");
    load(l.PQntuples, "PQntuples");
    load(l.PQputCopyData, "PQputCopyData");
    load(l.PQputCopyEnd, "PQputCopyEnd");
    load(l.PQresultErrorField, "PQresultErrorField");
    load(l.PQresultErrorMessage, "PQresultErrorMessage");
    load(l.PQresultStatus, "PQresultStatus");
    load(l.PQsendQueryParams, "PQsendQueryParams");
    load(l.PQsetNoticeProcessor, "PQsetNoticeProcessor");
    load(l.PQsetSingleRowMode, "PQsetSingleRowMode");
    load(l.PQstatus, "PQstatus");
    return l;  // the library stays loaded for the life of the process
  }();
  return loaded;
}

std::string trimmed(std::string_view message) {
  while (!message.empty() && (message.back() == '\n' || message.back() == ' '))
    message.remove_suffix(1);
  return std::string(message);
}

void ignore_notice(void*, const char*) {}  // NOTICEs ("already exists, skipping") are not news

constexpr std::size_t kCopyChunk = 1 << 20;

}  // namespace

Result::Result(pg_result* result) : result_(result, libpq().PQclear) {}

int Result::rows() const { return libpq().PQntuples(result_.get()); }

std::string_view Result::text(int row, int column) const {
  return {libpq().PQgetvalue(result_.get(), row, column),
          static_cast<std::size_t>(libpq().PQgetlength(result_.get(), row, column))};
}

bool Result::is_null(int row, int column) const {
  return libpq().PQgetisnull(result_.get(), row, column) != 0;
}

int64_t Result::integer(int row, int column) const {
  const auto t = text(row, column);
  int64_t value = 0;
  std::from_chars(t.data(), t.data() + t.size(), value);
  return value;
}

double Result::real(int row, int column) const {
  if (is_null(row, column)) return 0;
  return std::strtod(std::string(text(row, column)).c_str(), nullptr);
}

int64_t Result::affected() const {
  const std::string_view n = libpq().PQcmdTuples(result_.get());
  int64_t value = 0;
  std::from_chars(n.data(), n.data() + n.size(), value);
  return value;
}

Connection::Connection(const std::string& conninfo, const std::string& password) {
  // Defaults first: the configured string overrides them; the password file's password last.
  std::vector<const char*> keys = {"client_encoding", "application_name", "connect_timeout",
                                   "dbname"};
  std::vector<const char*> values = {"UTF8", "helix-host", "10", conninfo.c_str()};
  if (!password.empty()) {
    keys.push_back("password");
    values.push_back(password.c_str());
  }
  keys.push_back(nullptr);
  values.push_back(nullptr);
  conn_ = libpq().PQconnectdbParams(keys.data(), values.data(), /*expand_dbname=*/1);
  if (!conn_ || libpq().PQstatus(conn_) != CONNECTION_OK) {
    std::string why = conn_ ? trimmed(libpq().PQerrorMessage(conn_)) : "out of memory";
    libpq().PQfinish(conn_);
    conn_ = nullptr;
    throw Error("cannot connect to the fleet database: " + why, "", true);
  }
  libpq().PQsetNoticeProcessor(conn_, ignore_notice, nullptr);
  exec("SET TimeZone = 'UTC'");
}

Connection::~Connection() { libpq().PQfinish(conn_); }

void Connection::fail(pg_result* result, std::string_view what) {
  std::string message = result ? trimmed(libpq().PQresultErrorMessage(result)) : "";
  if (message.empty()) message = trimmed(libpq().PQerrorMessage(conn_));
  const char* state = result ? libpq().PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  std::string sqlstate = state ? state : "";
  libpq().PQclear(result);
  const bool lost = libpq().PQstatus(conn_) == CONNECTION_BAD;
  if (lost) message = "lost the connection to the fleet database (" + message + ")";
  throw Error(std::string(what) + ": " + message, std::move(sqlstate), lost);
}

void Connection::exec(std::string_view sql) {
  pg_result* r = libpq().PQexec(conn_, std::string(sql).c_str());
  const auto status = libpq().PQresultStatus(r);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) fail(r, "fleet database");
  libpq().PQclear(r);
}

namespace {
struct Bound {
  std::vector<const char*> values;
  explicit Bound(const std::vector<Param>& params) {
    for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
  }
};
}  // namespace

Result Connection::query(std::string_view sql, const std::vector<Param>& params) {
  Bound bound(params);
  pg_result* r =
      libpq().PQexecParams(conn_, std::string(sql).c_str(), static_cast<int>(params.size()),
                           nullptr, bound.values.data(), nullptr, nullptr, 0);
  const auto status = libpq().PQresultStatus(r);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) fail(r, "fleet database");
  return Result(r);
}

void Connection::query_each(std::string_view sql, const std::vector<Param>& params,
                            const RowVisitor& visit) {
  Bound bound(params);
  if (!libpq().PQsendQueryParams(conn_, std::string(sql).c_str(), static_cast<int>(params.size()),
                                 nullptr, bound.values.data(), nullptr, nullptr, 0))
    fail(nullptr, "fleet database");
  libpq().PQsetSingleRowMode(conn_);
  pg_result* failed = nullptr;
  while (pg_result* r = libpq().PQgetResult(conn_)) {
    const auto status = libpq().PQresultStatus(r);
    if (status == PGRES_SINGLE_TUPLE && !failed) {
      Result row(r);
      visit(row);  // may throw: the rest of the rows are then dropped with the connection state
      continue;
    }
    if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK && !failed) {
      failed = r;
      continue;
    }
    libpq().PQclear(r);
  }
  if (failed) fail(failed, "fleet database");
}

void Connection::copy(std::string_view copy_sql, std::string_view data) {
  pg_result* r = libpq().PQexec(conn_, std::string(copy_sql).c_str());
  if (libpq().PQresultStatus(r) != PGRES_COPY_IN) fail(r, "fleet database");
  libpq().PQclear(r);
  for (std::size_t at = 0; at < data.size(); at += kCopyChunk) {
    const auto part = data.substr(at, kCopyChunk);
    if (libpq().PQputCopyData(conn_, part.data(), static_cast<int>(part.size())) != 1)
      fail(nullptr, "fleet database: COPY");
  }
  if (libpq().PQputCopyEnd(conn_, nullptr) != 1) fail(nullptr, "fleet database: COPY");
  pg_result* failed = nullptr;
  while (pg_result* end = libpq().PQgetResult(conn_)) {
    if (libpq().PQresultStatus(end) != PGRES_COMMAND_OK && !failed) {
      failed = end;
      continue;
    }
    libpq().PQclear(end);
  }
  if (failed) fail(failed, "fleet database: COPY");
}

std::string Connection::user() { return std::string(query("SELECT session_user").text(0, 0)); }

Transaction::~Transaction() {
  if (!open_) return;
  try {
    c_.exec("ROLLBACK");
  } catch (const Error&) {
    // The connection is gone; the server rolled the transaction back itself.
  }
}

void copy_field(std::string& row, std::optional<std::string_view> value) {
  if (!value) {
    row += "\\N";
    return;
  }
  for (char c : *value) {
    switch (c) {
      case '\\':
        row += "\\\\";
        break;
      case '\t':
        row += "\\t";
        break;
      case '\n':
        row += "\\n";
        break;
      case '\r':
        row += "\\r";
        break;
      default:
        row += c;
    }
  }
}

bool names_password(const std::string& conninfo) {
  char* error = nullptr;
  PQconninfoOption* options = libpq().PQconninfoParse(conninfo.c_str(), &error);
  if (!options) {
    std::string why = error ? trimmed(error) : "out of memory";
    libpq().PQfreemem(error);
    throw std::invalid_argument(why);
  }
  bool found = false;
  for (auto* o = options; o->keyword; ++o)
    if (std::string_view(o->keyword) == "password" && o->val && *o->val) found = true;
  libpq().PQconninfoFree(options);
  return found;
}

std::string quote_identifier(std::string_view name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string quote_literal(std::string_view text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

}  // namespace helix::pg

// RAII wrappers for libpq: a result, a connection with a prepared-statement cache, and a scoped
// execution of one statement that binds, runs and reads rows with Status errors. The shape
// follows the SQLite backend's (store/sqlite/statement.hpp) so both stores read alike.
//
// A parameter is sent as text and declared `text`; the SQL casts each one (`$1::uuid`,
// `$5::bigint`), so a statement's parameter types are written where they are used and an unused
// parameter number is harmless. Arrays of a batch's rows go in binary (binary_array.hpp),
// declared as their array type.
#pragma once

#include <libpq-fe.h>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "postgres/binary_array.hpp"
#include "whizbang/ids/uuid.hpp"

namespace whizbang::postgres {

// Owns one PGresult; cleared on destruction.
class Result {
 public:
  Result() = default;
  explicit Result(PGresult* result) : result_(result) {}
  Result(Result&& other) noexcept : result_(std::exchange(other.result_, nullptr)) {}
  Result& operator=(Result&& other) noexcept {
    std::swap(result_, other.result_);
    return *this;
  }
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  ~Result() {
    if (result_ != nullptr) PQclear(result_);
  }
  PGresult* get() const { return result_; }
  int rows() const { return result_ != nullptr ? PQntuples(result_) : 0; }

 private:
  PGresult* result_ = nullptr;
};

// One libpq connection and the statements prepared on it (named s1, s2, … by first use).
class Connection {
 public:
  // Connects with `conninfo` (key=value pairs or a postgresql:// URI).
  static absl::StatusOr<std::unique_ptr<Connection>> open(const std::string& conninfo);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  PGconn* raw() const { return conn_; }
  // "database 'x' on host 'y'": names the server in errors without the conninfo, which may hold
  // a password.
  std::string describe() const;
  // One or more statements with no parameters (simple query protocol).
  absl::Status exec(const std::string& sql);
  struct Param {
    std::optional<std::string> value;  // nullopt: NULL
    Oid binary_type = 0;               // 0: text, declared `text`; else binary, of this type
  };
  // A statement binds each parameter the same way on every run: its types are declared when it
  // is first prepared.
  using Params = std::vector<Param>;
  // Runs `sql` (prepared on first use; the text is the cache key) with `params` (nullopt: NULL).
  absl::StatusOr<Result> run(const std::string& sql, const Params& params);
  struct Statement {
    const std::string* sql;
    const Params* params;
    // Set: not prepared (the user's SQL, sql_session.hpp: a cache would keep every text ever
    // run), each parameter of this type (0: the server infers it from where it is used).
    const std::vector<Oid>* unprepared_types = nullptr;
  };
  // Runs `statements` in one round trip (libpq pipeline mode): one result per statement, in
  // order. The first failure is returned; the statements after it did not run.
  absl::StatusOr<std::vector<Result>> run_pipeline(std::span<const Statement> statements);
  // Runs `sql` without preparing it, with what was deferred ahead of it in the same round trip.
  absl::StatusOr<Result> run_unprepared(const std::string& sql, const Params& params,
                                        const std::vector<Oid>& types);
  // Sends what was deferred (BEGIN, savepoints) now: before the connection is handed to code
  // that sends statements itself.
  absl::Status flush_deferred();
  // Opens a transaction with the next statement sent rather than on its own (a round trip
  // saved); a transaction that ends before any statement ran never reaches the server.
  // `synced` false: its commit returns before the WAL is flushed (synchronous_commit off for
  // this transaction only).
  void begin_with_next_statement(bool synced = true);
  // The same for a transaction that reads one snapshot: REPEATABLE READ, READ ONLY.
  void begin_snapshot_with_next_statement();
  // Sends `sql` (a statement with no result to read: SAVEPOINT, RELEASE, ROLLBACK TO) with the
  // next statement rather than on its own. A failure shows as the next statement's.
  void defer(std::string sql) { deferred_.push_back(std::move(sql)); }
  // Ends the transaction: COMMIT or ROLLBACK (nothing when it never began).
  absl::Status finish(bool commit);
  // Runs `sql` (a SET) now and again after every reconnect: settings of the session.
  absl::Status configure_session(std::string sql);
  // After a lost connection: reconnects, forgets the prepared statements, configures the session.
  absl::Status reset_if_broken();
  absl::Status error(const PGresult* result, std::string_view context) const;

 private:
  explicit Connection(PGconn* conn) : conn_(conn) {}
  // A statement prepared on this connection, with how many parameters its text declares.
  struct Prepared {
    std::string name;
    int parameters = 0;
  };
  // The cached statement for `sql`, preparing it on first use.
  absl::StatusOr<const Prepared*> prepare(const std::string& sql, const Params& params);
  // Whether the transaction has not reached the server yet (deferred_ starts with BEGIN).
  bool begin_deferred() const;

  PGconn* conn_ = nullptr;
  std::unordered_map<std::string, Prepared> prepared_;  // by sql
  // Statements that go out ahead of the next one, in order: BEGIN (and its settings) while the
  // transaction has not reached the server, then deferred ones.
  std::vector<std::string> deferred_;
  std::vector<std::string> session_settings_;
};

// One execution of a statement: bind, run (or step through the rows), read columns.
class Query {
 public:
  Query(Connection& connection, std::string sql) : connection_(connection), sql_(std::move(sql)) {}
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;

  void bind_uuid(int index, const Uuid& id) { set(index, id.to_string()); }
  void bind_uuid(int index, const std::optional<Uuid>& id) {
    if (id) bind_uuid(index, *id);
  }
  void bind_text(int index, std::string_view text) { set(index, std::string(text)); }
  void bind_text(int index, const std::string& text) { set(index, text); }
  void bind_text(int index, const std::optional<std::string>& text) {
    if (text) set(index, *text);
  }
  void bind_int(int index, std::int64_t value) { set(index, std::to_string(value)); }
  void bind_int(int index, const std::optional<std::int64_t>& value) {
    if (value) bind_int(index, *value);
  }
  void bind_bool(int index, bool value) { set(index, value ? "true" : "false"); }
  void bind_array(int index, BinaryArray&& array) {
    const Oid type = array_type_of(array.element());
    set(index, std::move(array).finish(), type);
  }

  // Runs a statement whose rows are not read.
  absl::Status run();
  // The first call runs the statement; each call moves to the next row: true for a row, false
  // when done.
  absl::StatusOr<bool> step();
  // Rows the statement inserted, updated or deleted.
  int changes() const;
  // Sets the result of a run elsewhere (Pipeline); step() then reads its rows.
  void set_result(Result result) {
    result_ = std::move(result);
    ran_ = true;
  }
  const std::string& sql() const { return sql_; }
  const Connection::Params& params() const { return params_; }

  bool is_null(int column) const { return PQgetisnull(result_.get(), row_, column) != 0; }
  std::int64_t int64(int column) const;
  std::optional<std::int64_t> optional_int64(int column) const {
    if (is_null(column)) return std::nullopt;
    return int64(column);
  }
  bool boolean(int column) const { return !is_null(column) && value(column)[0] == 't'; }
  std::string text(int column) const {
    return std::string(value(column),
                       static_cast<std::size_t>(PQgetlength(result_.get(), row_, column)));
  }
  std::optional<std::string> optional_text(int column) const {
    if (is_null(column)) return std::nullopt;
    return text(column);
  }
  // A nil Uuid for NULL.
  Uuid uuid(int column) const;
  std::optional<Uuid> optional_uuid(int column) const {
    if (is_null(column)) return std::nullopt;
    return uuid(column);
  }

 private:
  void set(int index, std::string value, Oid binary_type = 0) {
    if (params_.size() < static_cast<std::size_t>(index)) params_.resize(index);
    params_[index - 1] = {std::move(value), binary_type};
  }
  const char* value(int column) const { return PQgetvalue(result_.get(), row_, column); }

  Connection& connection_;
  std::string sql_;
  Connection::Params params_;
  Result result_;
  bool ran_ = false;
  int row_ = -1;
};

// Statements sent together in one round trip: add them, bind each, run(), then read each.
//
//   Pipeline pipeline(connection);
//   std::vector<Query*> inserts;
//   for (const Row& row : rows) {
//     Query& insert = pipeline.add(sql::kInsert);
//     insert.bind_uuid(1, row.id);
//     inserts.push_back(&insert);
//   }
//   WB_RETURN_IF_ERROR(pipeline.run());
//   for (Query* insert : inserts) stored.push_back(insert->changes() == 1);
class Pipeline {
 public:
  explicit Pipeline(Connection& connection) : connection_(connection) {}
  Query& add(std::string sql) { return queries_.emplace_back(connection_, std::move(sql)); }
  bool empty() const { return queries_.empty(); }
  // Statements without parameters sent before and after the ones added (settings the added
  // statements are planned under, and what restores them); their results are not kept.
  void surround(std::span<const std::string> before, std::span<const std::string> after) {
    before_ = before;
    after_ = after;
  }
  absl::Status run();

 private:
  Connection& connection_;
  std::deque<Query> queries_;
  std::span<const std::string> before_;
  std::span<const std::string> after_;
};

}  // namespace whizbang::postgres

// SqlSession: your SQL in the handling's transaction (docs/guide/17-your-data.md).
//
// A receptor that changes the service's own tables (an order row, an account balance) writes
// them on the store's own connection, inside the transaction of the handling running on this
// thread: the rows commit with the handling's emitted messages, its invocation records and its
// inbox completion, or not at all. A retried handling finds its rows undone with the rest, so
// the account is debited exactly once. With group commit (a batch of handlings in one
// transaction, each in a savepoint of its own) the statements join the handling's savepoint: a
// receptor that fails rolls back its own rows, and only them.
//
// Request code outside receptors gets the same session from a whizbang::Transaction it opened:
// its rows and the commands it sends commit together.
//
// Parameters are bound, never spliced into the text; placeholders are `$1`, `$2`, … on both
// SQLite and PostgreSQL (SQLite also takes `?`). Rows come back as values read by type.
//
//   class DebitAccount : public whizbang::Receptor<shop::ChargeOrder, shop::OrderCharged> {
//    public:
//     shop::OrderCharged handle(const shop::ChargeOrder& charge) {
//       whizbang::SqlSession& sql = whizbang::SqlSession::current().value();  // throws if none
//       auto changed = sql.execute(
//           "UPDATE accounts SET balance = balance - $1 WHERE id = $2 AND balance >= $1",
//           {charge.amount, charge.account_id});
//       if (!changed.ok()) throw std::runtime_error(std::string(changed.status().message()));
//       if (*changed == 0) throw whizbang::PermanentFailure("insufficient funds");
//       return {charge.order_id};
//     }
//   };
//
// A statement that fails fails the handling (retried, then dead-lettered, docs/guide/11-
// failures.md) even when the receptor ignores its status: the handling's savepoint is doomed.
// The memory store has no SQL: SqlSession::current() answers Unimplemented there (an SQLite
// store on ":memory:" serves tests).
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

struct sqlite3;
struct pg_conn;

namespace whizbang {

// Bytes, for BLOB (SQLite) and bytea (PostgreSQL) values.
using SqlBlob = std::vector<std::uint8_t>;

// A value read from a row: NULL, an integer (booleans are 0/1), a floating-point number, text or
// bytes.
using SqlValue = std::variant<std::monostate, std::int64_t, double, std::string, SqlBlob>;

// A bound parameter. Converts implicitly from what a statement usually binds. A boolean is bound
// as PostgreSQL's boolean, and as 1 or 0 on SQLite (which has none).
class SqlParam {
 public:
  SqlParam(std::nullopt_t) {}                                                    // NOLINT: NULL
  SqlParam(bool value) : value_(std::int64_t{value ? 1 : 0}), boolean_(true) {}  // NOLINT
  SqlParam(int value) : value_(std::int64_t{value}) {}                           // NOLINT
  SqlParam(long value) : value_(std::int64_t{value}) {}                          // NOLINT
  SqlParam(long long value) : value_(static_cast<std::int64_t>(value)) {}        // NOLINT
  SqlParam(unsigned value) : value_(std::int64_t{value}) {}                      // NOLINT
  SqlParam(double value) : value_(value) {}                                      // NOLINT
  SqlParam(const char* text) : value_(std::string(text)) {}                      // NOLINT
  SqlParam(std::string_view text) : value_(std::string(text)) {}                 // NOLINT
  SqlParam(const std::string& text) : value_(text) {}                            // NOLINT
  SqlParam(SqlBlob bytes) : value_(std::move(bytes)) {}                          // NOLINT
  template <class T>
  SqlParam(const std::optional<T>& value)  // NOLINT: NULL when empty
      : SqlParam(value ? SqlParam(*value) : SqlParam(std::nullopt)) {}

  const SqlValue& value() const { return value_; }
  bool is_boolean() const { return boolean_; }

 private:
  SqlValue value_;
  bool boolean_ = false;
};

// One row of a query's answer. Each read says why when the column is missing, NULL or of
// another type (a text column that holds a number is read as that number).
class SqlRow {
 public:
  explicit SqlRow(std::vector<SqlValue> values) : values_(std::move(values)) {}

  std::size_t size() const { return values_.size(); }
  const SqlValue& value(std::size_t column) const { return values_.at(column); }
  bool is_null(std::size_t column) const;
  absl::StatusOr<std::int64_t> int64(std::size_t column) const;
  absl::StatusOr<double> real(std::size_t column) const;
  absl::StatusOr<bool> boolean(std::size_t column) const;
  absl::StatusOr<std::string> text(std::size_t column) const;
  absl::StatusOr<SqlBlob> blob(std::size_t column) const;

 private:
  absl::Status missing(std::size_t column) const;
  std::vector<SqlValue> values_;
};

struct SqlRows {
  std::vector<std::string> columns;
  std::vector<SqlRow> rows;
};

// The native connection, for what the session cannot say (a COPY, a driver feature). Exactly
// one of the two is set.
struct NativeConnection {
  sqlite3* sqlite = nullptr;
  pg_conn* postgres = nullptr;  // a PGconn*
};

class SqlSession {
 public:
  virtual ~SqlSession() = default;

  // The session of the store transaction open on this thread: the handling's in a receptor, a
  // whizbang::Transaction's in request code; the innermost when transactions of several stores
  // are open. FailedPrecondition when none is; Unimplemented for a store without SQL (memory).
  static absl::StatusOr<SqlSession*> current();

  // Runs one statement; how many rows it changed.
  virtual absl::StatusOr<std::int64_t> execute(std::string_view statement,
                                               std::span<const SqlParam> parameters) = 0;
  absl::StatusOr<std::int64_t> execute(std::string_view statement,
                                       std::initializer_list<SqlParam> parameters = {}) {
    return execute(statement, std::span<const SqlParam>(parameters.begin(), parameters.size()));
  }
  // Runs one query; every row it answers.
  virtual absl::StatusOr<SqlRows> query(std::string_view statement,
                                        std::span<const SqlParam> parameters) = 0;
  absl::StatusOr<SqlRows> query(std::string_view statement,
                                std::initializer_list<SqlParam> parameters = {}) {
    return query(statement, std::span<const SqlParam>(parameters.begin(), parameters.size()));
  }

  // Calls `use` with the native connection, inside the transaction (and the handling's
  // savepoint). `use` must not commit, roll back, release or roll back to a savepoint it did not
  // make, change the connection's settings, or leave a statement running or a result unread:
  // each is caught when it returns where it can be (FailedPrecondition), and the transaction
  // then rolls back. Valid for the call only; never keep the handle.
  template <class Use>
  absl::Status with_native(Use&& use) {
    return run_native([&](NativeConnection connection) { return use(connection); });
  }

 protected:
  virtual absl::Status run_native(const std::function<absl::Status(NativeConnection)>& use) = 0;
};

}  // namespace whizbang

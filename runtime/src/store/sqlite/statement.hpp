// RAII wrappers for SQLite: an owned prepared statement, a connection with a statement cache,
// and a scoped use of a cached statement that binds, steps and reads columns with Status errors.
#pragma once

#include <sqlite3.h>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "whizbang/ids/uuid.hpp"

namespace whizbang::sqlite {

// Owns one sqlite3_stmt; finalized on destruction.
class Statement {
 public:
  Statement() = default;
  explicit Statement(sqlite3_stmt* stmt) : stmt_(stmt) {}
  Statement(Statement&& other) noexcept : stmt_(std::exchange(other.stmt_, nullptr)) {}
  Statement& operator=(Statement&& other) noexcept {
    std::swap(stmt_, other.stmt_);
    return *this;
  }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement() {
    if (stmt_ != nullptr) sqlite3_finalize(stmt_);
  }
  sqlite3_stmt* get() const { return stmt_; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

// Owns one sqlite3 connection and the prepared statements it has cached (prepared once, reused
// for the life of the connection).
class Connection {
 public:
  // Opens or creates `path`; ":memory:" for a private in-memory database. A file it creates
  // gets `file_mode` whatever the umask (SQLite gives the -wal and -shm files the same).
  static absl::StatusOr<std::unique_ptr<Connection>> open(const std::string& path,
                                                          unsigned file_mode = 0600);
  // Opens an existing `path` read-only: never creates or writes the file. `immutable` also
  // skips locking and the -wal/-shm side files (which a read-only open of a WAL database
  // otherwise creates and leaves behind): only for a file no connection is writing. Errors name
  // `shown_as` when given (the user's path for a /proc/self/fd/N opened in its place).
  static absl::StatusOr<std::unique_ptr<Connection>> open_read_only(
      const std::string& path, bool immutable, const std::string& shown_as = {});
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  sqlite3* db() const { return db_; }
  const std::string& path() const { return path_; }
  absl::Status exec(const std::string& sql);
  // Runs one statement without parameters through the statement cache: for the transaction
  // statements every handling runs (BEGIN, COMMIT, SAVEPOINT, ...), which exec() would parse each
  // time.
  absl::Status run(const std::string& sql);
  // The cached statement for `sql`, preparing it on first use. `sql` is the cache key.
  absl::StatusOr<sqlite3_stmt*> prepare(const std::string& sql);
  absl::Status error(int code, std::string_view context) const;

 private:
  Connection(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}

  sqlite3* db_ = nullptr;
  std::string path_;
  // Looked up on every statement a store runs, a few hundred bytes of SQL each: absl's hash
  // reads a key several times faster than std::hash.
  absl::flat_hash_map<std::string, Statement> cache_;
};

// One use of a cached statement: bind, step, read. Resets the statement on destruction so the
// next use starts clean. Text and blobs are bound without copying: the bound values must
// outlive the use.
class Use {
 public:
  Use(const Connection& connection, sqlite3_stmt* stmt) : connection_(connection), stmt_(stmt) {}
  Use(const Use&) = delete;
  Use& operator=(const Use&) = delete;
  ~Use() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

  void bind_uuid(int index, const Uuid& id) {
    sqlite3_bind_blob(stmt_, index, id.bytes().data(), 16, SQLITE_STATIC);
  }
  void bind_uuid(int index, const std::optional<Uuid>& id) {
    if (id) {
      bind_uuid(index, *id);
    } else {
      sqlite3_bind_null(stmt_, index);
    }
  }
  void bind_text(int index, std::string_view text) {
    sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
  }
  void bind_text(int index, const std::optional<std::string>& text) {
    if (text) {
      bind_text(index, std::string_view(*text));
    } else {
      sqlite3_bind_null(stmt_, index);
    }
  }
  void bind_null(int index) { sqlite3_bind_null(stmt_, index); }
  void bind_int(int index, std::int64_t value) { sqlite3_bind_int64(stmt_, index, value); }
  void bind_int(int index, const std::optional<std::int64_t>& value) {
    if (value) {
      bind_int(index, *value);
    } else {
      sqlite3_bind_null(stmt_, index);
    }
  }

  // True for a row, false when done.
  absl::StatusOr<bool> step() {
    const int code = sqlite3_step(stmt_);
    if (code == SQLITE_ROW) return true;
    if (code == SQLITE_DONE) return false;
    return connection_.error(code, sqlite3_sql(stmt_));
  }
  // Steps a statement that returns no rows.
  absl::Status run() {
    absl::StatusOr<bool> row = step();
    return row.ok() ? absl::OkStatus() : row.status();
  }
  int changes() const { return sqlite3_changes(connection_.db()); }

  bool is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
  std::int64_t int64(int column) const { return sqlite3_column_int64(stmt_, column); }
  bool boolean(int column) const { return int64(column) != 0; }
  std::optional<std::int64_t> optional_int64(int column) const {
    if (is_null(column)) return std::nullopt;
    return int64(column);
  }
  std::string text(int column) const {
    const auto* data = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
    if (data == nullptr) return {};
    return std::string(data, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
  }
  std::optional<std::string> optional_text(int column) const {
    if (is_null(column)) return std::nullopt;
    return text(column);
  }
  // A nil Uuid for NULL or a blob that is not 16 bytes.
  Uuid uuid(int column) const {
    Uuid::Bytes bytes{};
    const void* data = sqlite3_column_blob(stmt_, column);
    if (data != nullptr && sqlite3_column_bytes(stmt_, column) == 16) {
      std::memcpy(bytes.data(), data, 16);
    }
    return Uuid(bytes);
  }
  std::optional<Uuid> optional_uuid(int column) const {
    if (is_null(column)) return std::nullopt;
    return uuid(column);
  }

 private:
  const Connection& connection_;
  sqlite3_stmt* stmt_;
};

}  // namespace whizbang::sqlite

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>

#include "fmt/format.h"
#include "sqlite/statement.hpp"

namespace whizbang::sqlite {
namespace {

// Creates `path` with exactly `mode` unless it exists: SQLite would create it with 0644 & ~umask,
// readable by every local user, and a store holds payloads and user ids.
absl::Status create_private(const std::string& path, unsigned mode) {
  if (path.empty() || path.front() == ':' || path.rfind("file:", 0) == 0) return absl::OkStatus();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode & 0777);
  if (fd < 0) {
    if (errno == EEXIST) return absl::OkStatus();
    return absl::UnavailableError(
        fmt::format("cannot create SQLite store '{}': {}", path, std::strerror(errno)));
  }
  const int changed = ::fchmod(fd, static_cast<mode_t>(mode & 0777));  // past the umask
  const int saved_errno = errno;
  ::close(fd);
  if (changed != 0) {
    return absl::UnavailableError(fmt::format("cannot set the mode of SQLite store '{}': {}", path,
                                              std::strerror(saved_errno)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Connection>> Connection::open(const std::string& path,
                                                             unsigned file_mode) {
  if (absl::Status created = create_private(path, file_mode); !created.ok()) return created;
  sqlite3* db = nullptr;
  const int code = sqlite3_open_v2(
      path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (code != SQLITE_OK) {
    std::string message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code);
    sqlite3_close_v2(db);
    return absl::UnavailableError(fmt::format("cannot open SQLite store '{}': {}", path, message));
  }
  sqlite3_extended_result_codes(db, 1);
  return std::unique_ptr<Connection>(new Connection(db, path));
}

namespace {

// `path` as an SQLite URI filename ("file:" + path with %, ? and # escaped).
std::string file_uri(const std::string& path) {
  std::string uri = "file:";
  for (const char c : path) {
    if (c == '%' || c == '?' || c == '#' || static_cast<unsigned char>(c) < 0x20) {
      uri += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    } else {
      uri += c;
    }
  }
  return uri;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Connection>> Connection::open_read_only(
    const std::string& path, bool immutable, const std::string& shown_as) {
  const std::string& shown = shown_as.empty() ? path : shown_as;
  sqlite3* db = nullptr;
  const std::string name = file_uri(path) + (immutable ? "?mode=ro&immutable=1" : "?mode=ro");
  const int code = sqlite3_open_v2(
      name.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
  if (code != SQLITE_OK) {
    std::string message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code);
    sqlite3_close_v2(db);
    return absl::UnavailableError(fmt::format("cannot open SQLite store '{}': {}", shown, message));
  }
  sqlite3_extended_result_codes(db, 1);
  return std::unique_ptr<Connection>(new Connection(db, shown));
}

Connection::~Connection() {
  cache_.clear();  // finalize every statement before closing
  sqlite3_close_v2(db_);
}

absl::Status Connection::exec(const std::string& sql) {
  char* message = nullptr;
  const int code = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message);
  if (code == SQLITE_OK) return absl::OkStatus();
  std::string text = message != nullptr ? message : sqlite3_errstr(code);
  sqlite3_free(message);
  return error(code, fmt::format("{} ({})", sql.substr(0, 120), text));
}

absl::Status Connection::run(const std::string& sql) {
  absl::StatusOr<sqlite3_stmt*> stmt = prepare(sql);
  if (!stmt.ok()) return stmt.status();
  const int code = sqlite3_step(*stmt);
  absl::Status status =
      code == SQLITE_DONE || code == SQLITE_ROW ? absl::OkStatus() : error(code, sql);
  sqlite3_reset(*stmt);
  return status;
}

absl::StatusOr<sqlite3_stmt*> Connection::prepare(const std::string& sql) {
  auto it = cache_.find(sql);
  if (it != cache_.end()) return it->second.get();
  sqlite3_stmt* stmt = nullptr;
  const int code = sqlite3_prepare_v3(db_, sql.c_str(), static_cast<int>(sql.size()),
                                      SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (code != SQLITE_OK) return error(code, sql.substr(0, 120));
  cache_.emplace(sql, Statement(stmt));
  return stmt;
}

absl::Status Connection::error(int code, std::string_view context) const {
  std::string message =
      fmt::format("SQLite store '{}': {} [{}]: {}", path_, sqlite3_errmsg(db_), code, context);
  switch (code & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
      return absl::UnavailableError(message);
    case SQLITE_FULL:
    case SQLITE_NOMEM:
      // The whole store's condition, never one row's: the inbox must not blame a message for it.
      return absl::ResourceExhaustedError(message);
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      return absl::DataLossError(message);
    case SQLITE_CONSTRAINT:
      return absl::AlreadyExistsError(message);
    default:
      return absl::InternalError(message);
  }
}

}  // namespace whizbang::sqlite

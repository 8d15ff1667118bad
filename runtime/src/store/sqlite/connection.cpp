#include "fmt/format.h"
#include "store/sqlite/statement.hpp"

namespace whizbang::sqlite {

absl::StatusOr<std::unique_ptr<Connection>> Connection::open(const std::string& path) {
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

absl::StatusOr<std::unique_ptr<Connection>> Connection::open_read_only(const std::string& path,
                                                                       bool immutable) {
  sqlite3* db = nullptr;
  const std::string name = file_uri(path) + (immutable ? "?mode=ro&immutable=1" : "?mode=ro");
  const int code = sqlite3_open_v2(
      name.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
  if (code != SQLITE_OK) {
    std::string message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code);
    sqlite3_close_v2(db);
    return absl::UnavailableError(fmt::format("cannot open SQLite store '{}': {}", path, message));
  }
  sqlite3_extended_result_codes(db, 1);
  return std::unique_ptr<Connection>(new Connection(db, path));
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
      return absl::UnavailableError(message);
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

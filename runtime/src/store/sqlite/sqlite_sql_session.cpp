#include "sqlite/sqlite_sql_session.hpp"

#include <string>
#include <vector>

#include "fmt/format.h"

namespace whizbang::sqlite {
namespace {

// Resets a statement when the call is done with it (rows read or not), and lets its bindings go.
class Reset {
 public:
  explicit Reset(sqlite3_stmt* statement) : statement_(statement) {}
  ~Reset() {
    sqlite3_reset(statement_);
    sqlite3_clear_bindings(statement_);
  }
  Reset(const Reset&) = delete;
  Reset& operator=(const Reset&) = delete;

 private:
  sqlite3_stmt* statement_;
};

// Binds `parameters` in order: to `$1`, `$2`, … where the statement names them so (the
// placeholders PostgreSQL takes too), else to the statement's parameters by position.
absl::Status bind(sqlite3_stmt* statement, std::span<const SqlParam> parameters) {
  const int declared = sqlite3_bind_parameter_count(statement);
  if (static_cast<std::size_t>(declared) != parameters.size()) {
    return absl::InvalidArgumentError(
        fmt::format("the statement has {} parameters, {} given", declared, parameters.size()));
  }
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const std::string name = fmt::format("${}", i + 1);
    int index = sqlite3_bind_parameter_index(statement, name.c_str());
    if (index == 0) index = static_cast<int>(i + 1);
    const SqlValue& value = parameters[i].value();
    int code = SQLITE_OK;
    if (std::holds_alternative<std::monostate>(value)) {
      code = sqlite3_bind_null(statement, index);
    } else if (const auto* number = std::get_if<std::int64_t>(&value)) {
      code = sqlite3_bind_int64(statement, index, *number);
    } else if (const auto* real = std::get_if<double>(&value)) {
      code = sqlite3_bind_double(statement, index, *real);
    } else if (const auto* text = std::get_if<std::string>(&value)) {
      code = sqlite3_bind_text64(statement, index, text->data(), text->size(), SQLITE_STATIC,
                                 SQLITE_UTF8);
    } else if (const auto* bytes = std::get_if<SqlBlob>(&value)) {
      code = sqlite3_bind_blob64(statement, index, bytes->data(), bytes->size(), SQLITE_STATIC);
    }
    if (code != SQLITE_OK) {
      return absl::InvalidArgumentError(
          fmt::format("binding parameter {}: {}", i + 1, sqlite3_errstr(code)));
    }
  }
  return absl::OkStatus();
}

SqlValue column_value(sqlite3_stmt* statement, int column) {
  switch (sqlite3_column_type(statement, column)) {
    case SQLITE_INTEGER:
      return std::int64_t{sqlite3_column_int64(statement, column)};
    case SQLITE_FLOAT:
      return sqlite3_column_double(statement, column);
    case SQLITE_TEXT: {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, column));
      return std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(statement, column)));
    }
    case SQLITE_BLOB: {
      const auto* bytes = static_cast<const std::uint8_t*>(sqlite3_column_blob(statement, column));
      return SqlBlob(bytes, bytes + sqlite3_column_bytes(statement, column));
    }
    default:
      return std::monostate{};
  }
}

}  // namespace

absl::StatusOr<sqlite3_stmt*> SqliteSqlSession::prepared(std::string_view statement) {
  // Looked up by the caller's text as it is: no copy for a statement prepared before.
  if (auto found = statements_.find(absl::string_view(statement.data(), statement.size()));
      found != statements_.end()) {
    return found->second.get();
  }
  if (statements_.size() >= kMaxStatements) statements_.clear();
  const std::string key(statement);
  sqlite3_stmt* prepared = nullptr;
  const char* tail = nullptr;
  const int code = sqlite3_prepare_v3(connection_.db(), key.data(), static_cast<int>(key.size()),
                                      SQLITE_PREPARE_PERSISTENT, &prepared, &tail);
  if (code != SQLITE_OK) return connection_.error(code, key);
  if (prepared == nullptr) return absl::InvalidArgumentError("the statement is empty");
  Statement owned(prepared);
  if (tail != nullptr &&
      std::string_view(tail).find_first_not_of(" \t\r\n;") != std::string_view::npos) {
    return absl::InvalidArgumentError("one statement at a time: the text holds more than one");
  }
  return statements_.emplace(key, std::move(owned)).first->second.get();
}

absl::Status SqliteSqlSession::step(sqlite3_stmt* statement, std::string_view text, SqlRows* rows) {
  const int columns = sqlite3_column_count(statement);
  if (rows != nullptr) {
    for (int column = 0; column < columns; ++column) {
      rows->columns.emplace_back(sqlite3_column_name(statement, column));
    }
  }
  while (true) {
    const int code = sqlite3_step(statement);
    if (code == SQLITE_DONE) return absl::OkStatus();
    if (code != SQLITE_ROW) return connection_.error(code, text.substr(0, 160));
    if (rows == nullptr) continue;
    std::vector<SqlValue> values;
    values.reserve(static_cast<std::size_t>(columns));
    for (int column = 0; column < columns; ++column) {
      values.push_back(column_value(statement, column));
    }
    rows->rows.emplace_back(std::move(values));
  }
}

absl::StatusOr<std::int64_t> SqliteSqlSession::execute(std::string_view statement,
                                                       std::span<const SqlParam> parameters) {
  if (absl::Status open = gate_.require_explicit_transaction("SqlSession::execute"); !open.ok()) {
    return open;
  }
  return gate_.run([&]() -> absl::StatusOr<std::int64_t> {
    absl::StatusOr<sqlite3_stmt*> prepared_statement = prepared(statement);
    if (!prepared_statement.ok()) return prepared_statement.status();
    const Reset reset(*prepared_statement);
    if (absl::Status bound = bind(*prepared_statement, parameters); !bound.ok()) return bound;
    if (absl::Status done = step(*prepared_statement, statement, nullptr); !done.ok()) return done;
    return static_cast<std::int64_t>(sqlite3_changes64(connection_.db()));
  });
}

absl::StatusOr<SqlRows> SqliteSqlSession::query(std::string_view statement,
                                                std::span<const SqlParam> parameters) {
  if (absl::Status open = gate_.require_explicit_transaction("SqlSession::query"); !open.ok()) {
    return open;
  }
  return gate_.run([&]() -> absl::StatusOr<SqlRows> {
    absl::StatusOr<sqlite3_stmt*> prepared_statement = prepared(statement);
    if (!prepared_statement.ok()) return prepared_statement.status();
    const Reset reset(*prepared_statement);
    if (absl::Status bound = bind(*prepared_statement, parameters); !bound.ok()) return bound;
    SqlRows rows;
    if (absl::Status done = step(*prepared_statement, statement, &rows); !done.ok()) return done;
    return rows;
  });
}

absl::Status SqliteSqlSession::run_native(
    const std::function<absl::Status(NativeConnection)>& use) {
  if (absl::Status open = gate_.require_explicit_transaction("SqlSession::with_native");
      !open.ok()) {
    return open;
  }
  sqlite3* db = connection_.db();
  return gate_.run([&]() -> absl::Status {
    absl::Status used = use(NativeConnection{db, nullptr});
    // What the user must not leave behind: each makes the transaction roll back.
    if (sqlite3_get_autocommit(db) != 0) {
      return absl::FailedPreconditionError(
          "the native connection's transaction was ended (COMMIT or ROLLBACK) inside "
          "SqlSession::with_native; only the handling or Transaction ends it");
    }
    for (sqlite3_stmt* statement = sqlite3_next_stmt(db, nullptr); statement != nullptr;
         statement = sqlite3_next_stmt(db, statement)) {
      if (sqlite3_stmt_busy(statement) == 0) continue;
      const char* text = sqlite3_sql(statement);
      sqlite3_reset(statement);
      return absl::FailedPreconditionError(fmt::format(
          "a statement was left running by SqlSession::with_native (reset it, or finalize it, "
          "before returning): {}",
          std::string_view(text != nullptr ? text : "").substr(0, 160)));
    }
    return used;
  });
}

}  // namespace whizbang::sqlite

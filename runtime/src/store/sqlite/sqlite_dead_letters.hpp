// SqliteDeadLetters: the dead-letter operations role (dead_letter_operations.hpp) on Sqlite: the
// shared SQL implementation (sql_dead_letter_operations.hpp) over this backend's statements.
#pragma once

#include <string>

#include "sql_dead_letter_operations.hpp"
#include "sqlite/sqlite_core.hpp"
#include "sqlite/statement.hpp"

namespace whizbang {

struct SqliteDeadLetterBackend {
  using Core = SqliteCore;
  static const store_internal::DeadLetterStatements& statements();
  // Runs `f` with a reader of `sql` (bind, run, step, columns).
  template <class F>
  static absl::Status with(Core& core, const std::string& sql, F&& f);
};

using SqliteDeadLetters = store_internal::SqlDeadLetterOperations<SqliteDeadLetterBackend>;

}  // namespace whizbang

namespace whizbang {

template <class F>
absl::Status SqliteDeadLetterBackend::with(Core& core, const std::string& sql, F&& f) {
  WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, core.connection->prepare(sql));
  sqlite::Use use(*core.connection, stmt);
  return f(use);
}

}  // namespace whizbang

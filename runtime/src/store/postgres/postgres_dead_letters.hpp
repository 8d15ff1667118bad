// PostgresDeadLetters: the dead-letter operations role (dead_letter_operations.hpp) on PostgreSQL:
// the shared SQL implementation (sql_dead_letter_operations.hpp) over this backend's statements.
#pragma once

#include <string>

#include "postgres/connection.hpp"
#include "postgres/postgres_core.hpp"
#include "sql_dead_letter_operations.hpp"

namespace whizbang {

struct PostgresDeadLetterBackend {
  using Core = PostgresCore;
  static const store_internal::DeadLetterStatements& statements();
  // Runs `f` with a reader of `sql` (bind, run, step, columns).
  template <class F>
  static absl::Status with(Core& core, const std::string& sql, F&& f);
};

using PostgresDeadLetters = store_internal::SqlDeadLetterOperations<PostgresDeadLetterBackend>;

}  // namespace whizbang

namespace whizbang {

template <class F>
absl::Status PostgresDeadLetterBackend::with(Core& core, const std::string& sql, F&& f) {
  postgres::Query query(*core.connection, sql);
  return f(query);
}

}  // namespace whizbang

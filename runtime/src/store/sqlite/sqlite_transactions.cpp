// SqliteTransactions: the transaction role (begin/commit, savepoints, the user's SQL, commit
// listeners) on SQLite.
#include "sqlite/sqlite_transactions.hpp"

#include <algorithm>

#include "absl/time/clock.h"
#include "fmt/format.h"
#include "row_decoding.hpp"
#include "sqlite/migrations.hpp"
#include "sqlite/sql.hpp"
#include "sqlite/sqlite_core.hpp"

namespace whizbang {

using sqlite::Use;

absl::Status SqliteTransactions::begin() { return core_.gate.begin(); }
absl::Status SqliteTransactions::begin_snapshot() { return core_.gate.begin_snapshot(); }

absl::StatusOr<SqlSession*> SqliteTransactions::sql() {
  if (absl::Status open = core_.gate.require_explicit_transaction("WorkStore::sql"); !open.ok()) {
    return open;
  }
  return &core_.sql_session;
}

absl::Status SqliteTransactions::commit() { return core_.gate.commit(); }

absl::Status SqliteTransactions::rollback() { return core_.gate.rollback(); }

bool SqliteTransactions::in_transaction() const { return core_.gate.in_transaction(); }

absl::Status SqliteTransactions::savepoint() { return core_.gate.savepoint(); }

absl::Status SqliteTransactions::release_savepoint() {
  return core_.gate.end_savepoint(/*keep=*/true);
}

absl::Status SqliteTransactions::rollback_to_savepoint() {
  return core_.gate.end_savepoint(/*keep=*/false);
}

int SqliteTransactions::add_commit_listener(CommitListener listener) {
  return core_.gate.add_listener(std::move(listener));
}

void SqliteTransactions::remove_commit_listener(int id) { core_.gate.remove_listener(id); }

}  // namespace whizbang

// PostgresTransactions: the transaction role (begin/commit, savepoints, the user's SQL, commit
// listeners) on PostgreSQL.
#include "postgres/postgres_transactions.hpp"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "fmt/format.h"
#include "postgres/binary_array.hpp"
#include "postgres/migrations.hpp"
#include "postgres/postgres_core.hpp"
#include "postgres/sql.hpp"
#include "row_decoding.hpp"

namespace whizbang {

using postgres::Query;

absl::Status PostgresTransactions::begin() { return core_.gate.begin(); }
absl::Status PostgresTransactions::begin_snapshot() { return core_.gate.begin_snapshot(); }

absl::StatusOr<SqlSession*> PostgresTransactions::sql() {
  if (absl::Status open = core_.gate.require_explicit_transaction("WorkStore::sql"); !open.ok()) {
    return open;
  }
  return &core_.sql_session;
}

absl::Status PostgresTransactions::commit() { return core_.gate.commit(); }

absl::Status PostgresTransactions::rollback() { return core_.gate.rollback(); }

bool PostgresTransactions::in_transaction() const { return core_.gate.in_transaction(); }

absl::Status PostgresTransactions::savepoint() { return core_.gate.savepoint(); }

absl::Status PostgresTransactions::release_savepoint() {
  return core_.gate.end_savepoint(/*keep=*/true);
}

absl::Status PostgresTransactions::rollback_to_savepoint() {
  return core_.gate.end_savepoint(/*keep=*/false);
}

void PostgresCore::listen_for_other_processes() {
  std::lock_guard lock(listener_mutex);
  if (listener != nullptr) return;
  listener = std::make_unique<postgres::NotificationListener>(
      conninfo, channel, options.instance.instance_id,
      [this](const CommitInfo& written) { gate.notify_listeners(written); });
}

int PostgresTransactions::add_commit_listener(CommitListener listener) {
  core_.listen_for_other_processes();
  return core_.gate.add_listener(std::move(listener));
}

void PostgresTransactions::remove_commit_listener(int id) { core_.gate.remove_listener(id); }

}  // namespace whizbang

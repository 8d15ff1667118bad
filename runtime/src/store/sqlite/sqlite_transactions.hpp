// SqliteTransactions: the transaction role (begin/commit, savepoints, the user's SQL, commit
// listeners) on SQLite.
#pragma once

#include "sqlite/sqlite_core.hpp"
#include "whizbang/store/store_transactions.hpp"

namespace whizbang {

class SqliteTransactions final : public StoreTransactions {
 public:
  explicit SqliteTransactions(SqliteCore& core) : core_(core) {}

  absl::Status begin() override;
  absl::Status begin_snapshot() override;
  absl::Status commit() override;
  absl::Status rollback() override;
  bool in_transaction() const override;
  absl::Status savepoint() override;
  absl::Status release_savepoint() override;
  absl::Status rollback_to_savepoint() override;
  absl::StatusOr<SqlSession*> sql() override;
  int add_commit_listener(CommitListener listener) override;
  void remove_commit_listener(int id) override;
  bool writers_take_turns() const override { return true; }

 private:
  SqliteCore& core_;
};

}  // namespace whizbang

// PostgresTransactions: the transaction role (begin/commit, savepoints, the user's SQL, commit
// listeners) on PostgreSQL.
#pragma once

#include "postgres/postgres_core.hpp"
#include "whizbang/store/store_transactions.hpp"

namespace whizbang {

class PostgresTransactions final : public StoreTransactions {
 public:
  explicit PostgresTransactions(PostgresCore& core) : core_(core) {}

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

 private:
  PostgresCore& core_;
};

}  // namespace whizbang

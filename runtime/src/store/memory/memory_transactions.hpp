// MemoryTransactions: the transaction role (begin/commit, savepoints, the user's SQL, commit
// listeners) on memory.
#pragma once

#include "memory/memory_core.hpp"
#include "whizbang/store/store_transactions.hpp"

namespace whizbang {

class MemoryTransactions final : public StoreTransactions {
 public:
  explicit MemoryTransactions(MemoryCore& core) : core_(core) {}

  absl::Status begin() override;
  absl::Status commit() override;
  absl::Status rollback() override;
  bool in_transaction() const override;
  absl::Status savepoint() override;
  absl::Status release_savepoint() override;
  absl::Status rollback_to_savepoint() override;
  int add_commit_listener(CommitListener listener) override;
  void remove_commit_listener(int id) override;
  bool writers_take_turns() const override { return true; }

 private:
  MemoryCore& core_;
};

}  // namespace whizbang

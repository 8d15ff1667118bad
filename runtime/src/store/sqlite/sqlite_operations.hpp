// SqliteOperations: the operations role (dead letters, requeue, retention purge) on SQLite.
#pragma once

#include "sqlite/sqlite_core.hpp"
#include "whizbang/store/store_operations.hpp"

namespace whizbang {

class SqliteOperations final : public StoreOperations {
 public:
  explicit SqliteOperations(SqliteCore& core) : core_(core) {}

  absl::StatusOr<std::vector<DeadLetter>> dead_letters(std::size_t limit) override;
  absl::StatusOr<std::size_t> requeue_dead_letters(std::span<const MessageId> ids) override;
  absl::StatusOr<PurgeCounts> purge(const RetentionOptions& retention) override;

 private:
  SqliteCore& core_;
};

}  // namespace whizbang

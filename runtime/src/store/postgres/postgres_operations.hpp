// PostgresOperations: the operations role (dead letters, requeue, retention purge) on PostgreSQL.
#pragma once

#include "postgres/postgres_core.hpp"
#include "whizbang/store/store_operations.hpp"

namespace whizbang {

class PostgresOperations final : public StoreOperations {
 public:
  explicit PostgresOperations(PostgresCore& core) : core_(core) {}

  absl::StatusOr<std::vector<DeadLetter>> dead_letters(std::size_t limit) override;
  absl::StatusOr<std::size_t> requeue_dead_letters(std::span<const MessageId> ids) override;
  absl::StatusOr<PurgeCounts> purge(const RetentionOptions& retention) override;

 private:
  PostgresCore& core_;
};

}  // namespace whizbang

// MemoryOperations: the operations role (dead letters, requeue, retention purge) on memory.
#pragma once

#include "memory/memory_core.hpp"
#include "whizbang/store/store_operations.hpp"

namespace whizbang {

class MemoryOperations final : public StoreOperations {
 public:
  explicit MemoryOperations(MemoryCore& core) : core_(core) {}

  absl::StatusOr<std::vector<DeadLetter>> dead_letters(std::size_t limit) override;
  absl::StatusOr<std::size_t> requeue_dead_letters(std::span<const MessageId> ids) override;
  absl::StatusOr<PurgeCounts> purge(const RetentionOptions& retention) override;

 private:
  MemoryCore& core_;
};

}  // namespace whizbang

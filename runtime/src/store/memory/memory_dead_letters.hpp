// MemoryDeadLetters: the dead-letter operations role on the memory store: not implemented (the
// memory store is for tests and samples; the operator API needs SQLite or PostgreSQL). Every call
// answers UnimplementedError saying so.
#pragma once

#include "whizbang/store/dead_letter_operations.hpp"

namespace whizbang {

class MemoryDeadLetters final : public DeadLetterOperations {
 public:
  absl::StatusOr<DeadLetterPage> list_dead_letters(
      const DeadLetterFilter& filter, std::size_t limit,
      const std::optional<DeadLetterCursor>& after) override;
  absl::StatusOr<std::vector<DeadLetterGroup>> dead_letter_groups(
      const DeadLetterFilter& filter) override;
  absl::StatusOr<std::optional<DeadLetterDetail>> find_dead_letter(
      const DeadLetterKey& key) override;
  absl::StatusOr<std::size_t> requeue_dead_letter_keys(
      std::span<const DeadLetterKey> keys) override;
  absl::StatusOr<std::size_t> discard_dead_letters(std::span<const DeadLetterKey> keys,
                                                   std::string_view reason) override;
  absl::StatusOr<std::vector<DiscardedDeadLetter>> discarded_dead_letters(
      std::size_t limit) override;
  absl::StatusOr<WorkBacklog> work_backlog() override;
};

}  // namespace whizbang

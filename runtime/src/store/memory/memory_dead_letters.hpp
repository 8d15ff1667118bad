// MemoryDeadLetters: the dead-letter operations role (whizbang/store/dead_letter_operations.hpp)
// on the memory store, with the SQL backends' semantics: the same filters, keyset order and
// cursor, groups by cause, requeue and discard (kept with its reason) in one transaction.
#pragma once

#include "memory/memory_core.hpp"
#include "whizbang/store/dead_letter_operations.hpp"

namespace whizbang {

class MemoryDeadLetters final : public DeadLetterOperations {
 public:
  explicit MemoryDeadLetters(MemoryCore& core) : core_(core) {}

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

 private:
  std::optional<DeadLetterDetail> find(const DeadLetterKey& key) const;
  // Gives the dead letter `key` a fresh set of attempts, due now; false when there is none.
  bool requeue(const DeadLetterKey& key);
  // Removes the dead letter `key` from its table; false when there is none.
  bool remove(const DeadLetterKey& key);

  MemoryCore& core_;
};

}  // namespace whizbang

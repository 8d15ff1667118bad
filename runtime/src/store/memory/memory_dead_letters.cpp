// MemoryDeadLetters: not implemented on the memory store (memory_dead_letters.hpp).
#include "memory/memory_dead_letters.hpp"

namespace whizbang {
namespace {

absl::Status unimplemented() {
  return absl::UnimplementedError(
      "dead-letter operations need a SQLite or PostgreSQL store; the memory store has none");
}

}  // namespace

absl::StatusOr<DeadLetterPage> MemoryDeadLetters::list_dead_letters(
    const DeadLetterFilter&, std::size_t, const std::optional<DeadLetterCursor>&) {
  return unimplemented();
}
absl::StatusOr<std::vector<DeadLetterGroup>> MemoryDeadLetters::dead_letter_groups(
    const DeadLetterFilter&) {
  return unimplemented();
}
absl::StatusOr<std::optional<DeadLetterDetail>> MemoryDeadLetters::find_dead_letter(
    const DeadLetterKey&) {
  return unimplemented();
}
absl::StatusOr<std::size_t> MemoryDeadLetters::requeue_dead_letter_keys(
    std::span<const DeadLetterKey>) {
  return unimplemented();
}
absl::StatusOr<std::size_t> MemoryDeadLetters::discard_dead_letters(std::span<const DeadLetterKey>,
                                                                    std::string_view) {
  return unimplemented();
}
absl::StatusOr<std::vector<DiscardedDeadLetter>> MemoryDeadLetters::discarded_dead_letters(
    std::size_t) {
  return unimplemented();
}
absl::StatusOr<WorkBacklog> MemoryDeadLetters::work_backlog() { return unimplemented(); }

}  // namespace whizbang

// ComposedWorkStore's forwarding of the dead-letter operations role (dead_letter_operations.hpp).
#include "whizbang/store/composed_work_store.hpp"

namespace whizbang {

absl::StatusOr<DeadLetterPage> ComposedWorkStore::list_dead_letters(
    const DeadLetterFilter& filter, std::size_t limit,
    const std::optional<DeadLetterCursor>& after) {
  return roles_.dead_letters->list_dead_letters(filter, limit, after);
}
absl::StatusOr<std::vector<DeadLetterGroup>> ComposedWorkStore::dead_letter_groups(
    const DeadLetterFilter& filter) {
  return roles_.dead_letters->dead_letter_groups(filter);
}
absl::StatusOr<std::optional<DeadLetterDetail>> ComposedWorkStore::find_dead_letter(
    const DeadLetterKey& key) {
  return roles_.dead_letters->find_dead_letter(key);
}
absl::StatusOr<std::size_t> ComposedWorkStore::requeue_dead_letter_keys(
    std::span<const DeadLetterKey> keys) {
  return roles_.dead_letters->requeue_dead_letter_keys(keys);
}
absl::StatusOr<std::size_t> ComposedWorkStore::discard_dead_letters(
    std::span<const DeadLetterKey> keys, std::string_view reason) {
  return roles_.dead_letters->discard_dead_letters(keys, reason);
}
absl::StatusOr<std::vector<DiscardedDeadLetter>> ComposedWorkStore::discarded_dead_letters(
    std::size_t limit) {
  return roles_.dead_letters->discarded_dead_letters(limit);
}
absl::StatusOr<WorkBacklog> ComposedWorkStore::work_backlog() {
  return roles_.dead_letters->work_backlog();
}

}  // namespace whizbang

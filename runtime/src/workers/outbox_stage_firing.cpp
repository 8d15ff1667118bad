#include "outbox_stage_firing.hpp"

#include "whizbang/retry/failure.hpp"

namespace whizbang::outbox_drain {

StageFiring fire_while_leased(WorkStore& store, const MessageId& row, Envelope& envelope,
                              Stage stage,
                              const std::function<absl::Status(Envelope&, Stage)>& lifecycle) {
  Transaction transaction(store);
  if (!transaction.status().ok()) return {false, true, transaction.status()};
  const WorkLease lease{WorkSource::Outbox, row};
  absl::StatusOr<std::vector<MessageId>> held = store.renew_leases({&lease, 1});
  if (!held.ok()) return {false, true, held.status()};
  if (held->empty()) return {true, false, absl::OkStatus()};  // rolled back: nothing written
  const absl::Status status =
      status_of_call(to_string(stage), [&] { return lifecycle(envelope, stage); });
  // Committed even after a receptor failed: the records of the receptors that fired before it
  // must not be lost. A failed store call inside dooms the transaction (commit says Aborted):
  // the stage fired and is not recorded; its row completes all the same, so it is not fired
  // again here.
  absl::Status committed = transaction.commit();
  return {false, false, status.ok() ? committed : status};
}

}  // namespace whizbang::outbox_drain

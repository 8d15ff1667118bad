// Fires an outbox row's PreOutbox or PostOutbox stage while the row is this instance's.
//
// These stages run outside any handling's transaction, and several instances of a service
// compete for its outbox rows. Fired and recorded in two steps, a stage could fire in two of
// them: the first fires it, stalls past its lease before the record is written, and the one that
// takes the row over finds no record and fires it again. So a stage fires inside a transaction
// that first renews the row's lease: the renewal fails when another instance holds the row, and
// once it succeeded the row stays this instance's (locked, or SQLite's single writer) until the
// stage's records commit. See docs/guide/11-failures.md, "Several instances, leases and crashes".
#pragma once

#include <functional>

#include "absl/status/status.h"
#include "whizbang/message/envelope.hpp"
#include "whizbang/store/work_store.hpp"

namespace whizbang::outbox_drain {

struct StageFiring {
  // Another instance holds the row: the stage did not fire.
  bool lease_lost = false;
  // The store failed before the stage could run (its transaction, the renewal): nothing fired,
  // so the row must be offered again rather than completed.
  bool not_run = false;
  // The stage's status (a receptor that failed), or the store's.
  absl::Status status;
};

// Runs `lifecycle(envelope, stage)` for outbox row `row` under its renewed lease, in a
// transaction of its own. What the stage's receptors recorded and emitted before one of them
// failed is kept (as each would be, fired outside a transaction).
StageFiring fire_while_leased(WorkStore& store, const MessageId& row, Envelope& envelope,
                              Stage stage,
                              const std::function<absl::Status(Envelope&, Stage)>& lifecycle);

}  // namespace whizbang::outbox_drain

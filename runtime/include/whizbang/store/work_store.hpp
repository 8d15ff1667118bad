// WorkStore: the durable-store contract (outbox, inbox, event store, work coordination), as the
// one object a host takes.
//
// Implemented once per backend (store/sqlite, store/postgres) and in memory for tests; the
// contract tests in tests/store run against every implementation. It is its roles, each declared
// in its own header with what it means:
//   StoreTransactions  (store_transactions.hpp)  transactions, savepoints, sql(), wake-ups;
//                                                 the RAII Transaction and Savepoint
//   OutboxStore        (outbox_store.hpp)        what a dispatcher writes
//   InboxStore         (inbox_store.hpp)         delivered messages, deduplicated
//   EventStore         (event_store.hpp)         reading a stream
//   PerspectiveStore   (perspective_store.hpp)   what perspectives run on
//   PerspectiveSyncStore (perspective_sync_store.hpp) cursors per stream, events still pending
//   PerspectiveRebuildStore (perspective_rebuild_store.hpp) rebuilds, versions, lag
//   StageWorkStore     (stage_work_store.hpp)    lifecycle completions and detached work
//   WorkCoordination   (work_coordination.hpp)   work cycles, completions, leases, invocations
//   StoreOperations    (store_operations.hpp)    dead letters and the retention purge
//   DeadLetterOperations (dead_letter_operations.hpp) filtered pages, groups, requeue, discard
// A caller that needs one role takes that role; a host takes the WorkStore. Reads of single rows
// for tools and tests are a separate interface, StoreReader (store_reader.hpp), which backends
// implement beside it. Backends compose their roles through ComposedWorkStore
// (composed_work_store.hpp).
//
//   whizbang::Transaction tx(store);
//   auto rows = store.store_outbox_messages(emitted);          // joins tx
//   store.complete_work(completions, {});                      // joins tx
//   if (absl::Status s = tx.commit(); !s.ok()) return s;       // destructor rolls back otherwise
//
// Deduplication: store_outbox_messages inserts each row unless its message_id is already known
// (an unpublished row, or a published one's tombstone); every skipped row adds one to
// `whizbang.work_coordinator.outbox.emission_deduplicated{message_type}` and logs a Debug line
// (EventId 110). Inbox rows are deduplicated permanently (wh_message_deduplication).
#pragma once

#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "whizbang/message/envelope.hpp"
#include "whizbang/store/dead_letter_operations.hpp"
#include "whizbang/store/event_store.hpp"
#include "whizbang/store/inbox_store.hpp"
#include "whizbang/store/outbox_message.hpp"
#include "whizbang/store/outbox_store.hpp"
#include "whizbang/store/perspective_rebuild_store.hpp"
#include "whizbang/store/perspective_store.hpp"
#include "whizbang/store/perspective_sync_store.hpp"
#include "whizbang/store/sql_session.hpp"
#include "whizbang/store/stage_work_store.hpp"
#include "whizbang/store/store_operations.hpp"
#include "whizbang/store/store_options.hpp"
#include "whizbang/store/store_rows.hpp"
#include "whizbang/store/store_transactions.hpp"
#include "whizbang/store/work_coordination.hpp"
#include "whizbang/store/work_item.hpp"

namespace whizbang {

class WorkStore : public StoreTransactions,
                  public OutboxStore,
                  public InboxStore,
                  public EventStore,
                  public PerspectiveStore,
                  public PerspectiveSyncStore,
                  public PerspectiveRebuildStore,
                  public StageWorkStore,
                  public WorkCoordination,
                  public StoreOperations,
                  public DeadLetterOperations {
 public:
  ~WorkStore() override = default;

  // Inserts each message unless a row with its message_id exists (then: a counted no-op, see
  // above). New rows are leased to this instance at once. Returns one row per input in input
  // order.
  absl::StatusOr<std::vector<StoredOutboxRow>> store_outbox_messages(
      std::span<const OutboxMessage> messages) override = 0;
};

}  // namespace whizbang

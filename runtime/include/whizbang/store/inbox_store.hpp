// InboxStore: the inbox role of the durable store — storing delivered messages (permanently
// deduplicated) for a claim, or handling a delivered batch without inbox rows. The inbox worker
// and transports' receivers call it through WorkStore (work_store.hpp).
//
//   whizbang::Transaction tx(store);
//   auto stored = store.store_inbox_messages(delivered, self.service_id);  // duplicates: no row
//   if (absl::Status s = tx.commit(); !s.ok()) return s;
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "whizbang/ids/message_id.hpp"
#include "whizbang/store/store_rows.hpp"
#include "whizbang/store/work_item.hpp"

namespace whizbang {

// What accept_deliveries() did with a delivered batch.
struct AcceptedDeliveries {
  std::vector<WorkItem> ready;  // to handle now; no inbox row holds them
  std::size_t stored = 0;       // stored as inbox rows, for a claim
  std::size_t duplicates = 0;   // seen before: nothing to do
};

class InboxStore {
 public:
  virtual ~InboxStore() = default;

  // Inserts each message not seen before (permanent dedup) without a lease, so any instance can
  // claim it. An all-zero source_service_id is unknown and becomes `receiving_service_id`.
  // Returns the ids of the newly stored rows (a duplicate produces no row).
  virtual absl::StatusOr<std::vector<MessageId>> store_inbox_messages(
      std::span<const InboxMessage> messages, const Uuid& receiving_service_id) = 0;

  // ---- handling deliveries without an inbox row (optional) ----------------------------------
  // A store that answers these lets the inbox worker handle a delivered batch in the transaction
  // that receives it without writing the inbox rows of the handlings that succeed: one insert, a
  // claim and a delete fewer per message (docs/guide/06-stores-and-workers.md, "Handling on
  // delivery"). The others store every delivery and claim it.
  virtual bool accepts_deliveries() const { return false; }

  // Inside the caller's transaction, `messages` in message-id order. Each one not seen before is
  // deduplicated permanently, as store_inbox_messages() does. It is stored as an inbox row, for a
  // later claim, when its stream has an inbox row still to handle (or a message of this call was
  // stored on it), or when it is an event the store cannot take apart; otherwise it is returned
  // ready to handle as a claim returns a row (an event already appended to its stream), and no
  // row is written. A ready message whose handling does not succeed needs keep_accepted() before
  // its failure or release is recorded.
  virtual absl::StatusOr<AcceptedDeliveries> accept_deliveries(
      std::span<const InboxMessage> /*messages*/, const Uuid& /*receiving_service_id*/) {
    return absl::UnimplementedError("this store stores every delivery (accepts_deliveries())");
  }

  // Writes the inbox rows of messages accept_deliveries() returned ready, in the caller's
  // transaction, leased to this instance: complete_work() then applies to them as to claimed
  // rows (a failure, a dead letter, a release, or the next claim).
  virtual absl::Status keep_accepted(std::span<const InboxMessage> /*messages*/,
                                     const Uuid& /*receiving_service_id*/) {
    return absl::UnimplementedError("this store stores every delivery (accepts_deliveries())");
  }
};

}  // namespace whizbang

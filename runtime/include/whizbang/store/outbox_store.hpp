// OutboxStore: the one store operation the dispatcher needs — writing outbox rows.
//
// WorkStore (the full durable contract) extends it; tests and embedders that only watch what a
// dispatcher emits implement just this.
#pragma once

#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "whizbang/ids/message_id.hpp"
#include "whizbang/store/outbox_message.hpp"

namespace whizbang {

class OutboxStore {
 public:
  virtual ~OutboxStore() = default;

  // Inserts each message unless a row with its message_id exists (then: a counted no-op).
  // Returns one row per input in input order.
  virtual absl::StatusOr<std::vector<StoredOutboxRow>> store_outbox_messages(
      std::span<const OutboxMessage> messages) = 0;

  // A send or publish with an idempotency key (Dispatcher, docs/guide/17-your-data.md): records,
  // in the caller's transaction, that the dispatch of message `id` happened; false when it was
  // recorded before (within RetentionOptions::dispatch_keys), so the dispatch is a duplicate and
  // does nothing. Unimplemented for a store that keeps no such record.
  virtual absl::StatusOr<bool> remember_dispatch(const MessageId& /*id*/) {
    return absl::UnimplementedError("this store keeps no record of keyed dispatches");
  }
};

}  // namespace whizbang

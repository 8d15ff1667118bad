// OutboxStore: the one store operation the dispatcher needs — writing outbox rows.
//
// WorkStore (the full durable contract) extends it; tests and embedders that only watch what a
// dispatcher emits implement just this.
#pragma once

#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "whizbang/store/outbox_message.hpp"

namespace whizbang {

class OutboxStore {
 public:
  virtual ~OutboxStore() = default;

  // Inserts each message unless a row with its message_id exists (then: a counted no-op).
  // Returns one row per input in input order.
  virtual absl::StatusOr<std::vector<StoredOutboxRow>> store_outbox_messages(
      std::span<const OutboxMessage> messages) = 0;
};

}  // namespace whizbang

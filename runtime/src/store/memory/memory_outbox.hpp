// MemoryOutbox: the outbox role (storing emitted messages, keyed dispatches) on memory.
#pragma once

#include "memory/memory_core.hpp"
#include "whizbang/store/outbox_store.hpp"

namespace whizbang {

class MemoryOutbox final : public OutboxStore {
 public:
  explicit MemoryOutbox(MemoryCore& core) : core_(core) {}

  absl::StatusOr<std::vector<StoredOutboxRow>> store_outbox_messages(
      std::span<const OutboxMessage> messages) override;
  absl::StatusOr<bool> remember_dispatch(const MessageId& id) override;

 private:
  MemoryCore& core_;
};

}  // namespace whizbang

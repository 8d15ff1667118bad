// MemoryInbox: the inbox role (storing deliveries, deduplicated) on memory.
#pragma once

#include "memory/memory_core.hpp"
#include "whizbang/store/inbox_store.hpp"

namespace whizbang {

class MemoryInbox final : public InboxStore {
 public:
  explicit MemoryInbox(MemoryCore& core) : core_(core) {}

  absl::StatusOr<std::vector<MessageId>> store_inbox_messages(
      std::span<const InboxMessage> messages, const Uuid& receiving_service_id) override;

 private:
  MemoryCore& core_;
};

}  // namespace whizbang

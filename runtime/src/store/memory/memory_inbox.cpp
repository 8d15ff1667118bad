// MemoryInbox: the inbox role (storing deliveries, deduplicated) on memory.
#include "memory/memory_inbox.hpp"

#include <algorithm>
#include <cctype>

#include "memory/memory_core.hpp"

namespace whizbang {

using memory_store::FailureColumns;

std::vector<MessageId> MemoryCore::store_inbox(std::span<const InboxMessage> messages,
                                               const Uuid& receiving_service_id) {
  std::vector<MessageId> stored;
  const TimePoint at = now();
  for (const InboxMessage& message : messages) {
    if (!state.message_deduplication.emplace(message.message_id, at).second) continue;
    InboxRow row{message, {}};
    if (row.message.source_service_id.is_nil()) {
      row.message.source_service_id = receiving_service_id;
    }
    row.state.status = MessageStatus::Stored;
    row.state.created_at = at;
    state.inbox.emplace(message.message_id, std::move(row));
    stored.push_back(message.message_id);
  }
  if (!stored.empty()) gate.note({.inbox_written = true});
  return stored;
}

absl::StatusOr<std::vector<MessageId>> MemoryInbox::store_inbox_messages(
    std::span<const InboxMessage> messages, const Uuid& receiving_service_id) {
  return core_.gate.run([&]() -> absl::StatusOr<std::vector<MessageId>> {
    return core_.store_inbox(messages, receiving_service_id);
  });
}

}  // namespace whizbang

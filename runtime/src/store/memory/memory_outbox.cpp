// MemoryOutbox: the outbox role (storing emitted messages, keyed dispatches) on memory.
#include "memory/memory_outbox.hpp"

#include <algorithm>
#include <cctype>

#include "memory/memory_core.hpp"

namespace whizbang {

using memory_store::FailureColumns;

std::vector<StoredOutboxRow> MemoryCore::store_outbox(std::span<const OutboxMessage> messages) {
  std::vector<StoredOutboxRow> rows;
  rows.reserve(messages.size());
  const TimePoint at = now();
  for (const OutboxMessage& message : messages) {
    const bool known = state.outbox.contains(message.message_id) ||
                       state.outbox_tombstones.contains(message.message_id);
    if (!known) {
      OutboxRow row{message, {}};
      row.state.status = MessageStatus::Stored;
      row.state.created_at = at;
      row.state.instance_id = self();
      row.state.lease_expiry = at + options.lease_duration;
      row.state.scheduled_for = message.scheduled_for;
      state.outbox.emplace(message.message_id, std::move(row));
    }
    rows.push_back({message.message_id, message.stream_id, !known});
  }
  if (!messages.empty()) gate.note({.outbox_written = true});
  return rows;
}

void MemoryCore::report_new(std::span<const OutboxMessage> messages,
                            const std::set<MessageId>& created) {
  std::vector<StoredOutboxRow> rows;
  rows.reserve(messages.size());
  for (const OutboxMessage& message : messages) {
    rows.push_back({message.message_id, message.stream_id, created.contains(message.message_id)});
  }
  store_internal::report_deduplicated(options, messages, rows);
}

absl::StatusOr<std::vector<StoredOutboxRow>> MemoryOutbox::store_outbox_messages(
    std::span<const OutboxMessage> messages) {
  return core_.gate.run([&]() -> absl::StatusOr<std::vector<StoredOutboxRow>> {
    std::vector<StoredOutboxRow> rows = core_.store_outbox(messages);
    store_internal::report_deduplicated(core_.options, messages, rows);
    return rows;
  });
}

absl::StatusOr<bool> MemoryOutbox::remember_dispatch(const MessageId& id) {
  return core_.gate.run([&]() -> absl::StatusOr<bool> {
    return core_.state.dispatch_keys.emplace(id, core_.now()).second;
  });
}

}  // namespace whizbang

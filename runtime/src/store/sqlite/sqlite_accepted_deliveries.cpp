// accept_deliveries() and keep_accepted() on SQLite: a delivered batch handled without the inbox
// rows of the handlings that succeed (docs/guide/06-stores-and-workers.md, "Handling on
// delivery").
#include <optional>
#include <set>

#include "sqlite/sql.hpp"
#include "sqlite/sqlite_store_impl.hpp"

namespace whizbang {

using sqlite::Use;

absl::StatusOr<AcceptedDeliveries> SqliteWorkStore::accept_deliveries(
    std::span<const InboxMessage> messages, const Uuid& receiving_service_id) {
  if (!impl_->gate.in_transaction()) {
    return absl::FailedPreconditionError("accept_deliveries needs the caller's transaction");
  }
  return impl_->gate.run([&] { return impl_->accept(messages, receiving_service_id); });
}

absl::Status SqliteWorkStore::keep_accepted(std::span<const InboxMessage> messages,
                                            const Uuid& receiving_service_id) {
  if (!impl_->gate.in_transaction()) {
    return absl::FailedPreconditionError("keep_accepted needs the caller's transaction");
  }
  return impl_->gate.run([&]() -> absl::Status {
    const std::int64_t now = impl_->now_micros();
    for (const InboxMessage& message : messages) {
      WB_RETURN_IF_ERROR(impl_->insert_inbox_row(message, receiving_service_id, now, true));
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<bool> SqliteWorkStore::Impl::inbox_stream_waits(const Uuid& stream) {
  WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, connection->prepare(sqlite::sql::kInboxStreamWaits));
  Use use(*connection, stmt);
  use.bind_uuid(1, stream);
  return use.step();
}

absl::StatusOr<AcceptedDeliveries> SqliteWorkStore::Impl::accept(
    std::span<const InboxMessage> messages, const Uuid& receiving_service_id) {
  AcceptedDeliveries accepted;
  const std::int64_t now = now_micros();
  std::set<Uuid> stored_streams;  // streams a message of this call was stored on
  PerspectiveTargets targets;
  for (const InboxMessage& message : messages) {
    WB_ASSIGN_OR_RETURN(bool first, first_seen(message.message_id, now));
    if (!first) {  // seen before: permanently deduplicated
      ++accepted.duplicates;
      continue;
    }
    // Stream order: behind a row of its stream that waits, it waits as a row too; and an event
    // the store cannot take apart is stored for the claim to quarantine.
    bool store_it = false;
    std::optional<store_internal::EventParts> parts;  // an event's, cut once
    if (message.stream_id) {
      store_it = stored_streams.contains(*message.stream_id);
      if (!store_it) {
        WB_ASSIGN_OR_RETURN(store_it, inbox_stream_waits(*message.stream_id));
      }
      if (!store_it && message.is_event) {
        absl::StatusOr<store_internal::EventParts> cut =
            store_internal::event_parts(message.envelope_json);
        store_it = !cut.ok();
        if (cut.ok()) parts = *std::move(cut);
      }
    }
    if (store_it) {
      WB_RETURN_IF_ERROR(insert_inbox_row(message, receiving_service_id, now, /*leased=*/false));
      if (message.stream_id) stored_streams.insert(*message.stream_id);
      ++accepted.stored;
      continue;
    }
    WorkItem item;
    item.source = WorkSource::Inbox;
    item.message_id = message.message_id;
    item.handler_name = message.handler_name;
    item.message_type = message.message_type;
    item.envelope_json = message.envelope_json;
    item.stream_id = message.stream_id;
    item.is_event = message.is_event;
    item.status = MessageStatus::Stored;
    item.is_newly_stored = true;
    item.source_service_id =
        message.source_service_id.is_nil() ? receiving_service_id : message.source_service_id;
    item.lease_expiry = store_internal::from_micros(now + lease_micros());
    if (parts) {
      WB_RETURN_IF_ERROR(append_event_parts(item, *parts, targets));
      item.status = item.status | MessageStatus::EventStored;
    }
    accepted.ready.push_back(std::move(item));
  }
  if (accepted.stored > 0 || !accepted.ready.empty()) gate.note({.inbox_written = true});
  return accepted;
}

}  // namespace whizbang

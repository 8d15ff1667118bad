// SqliteInbox: the inbox role on SQLite: storing deliveries, and handling a delivered batch without
// the inbox rows of the handlings that succeed (accept_deliveries, keep_accepted).
#include "sqlite/sqlite_inbox.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include "absl/time/clock.h"
#include "fmt/format.h"
#include "row_decoding.hpp"
#include "sqlite/migrations.hpp"
#include "sqlite/sql.hpp"
#include "sqlite/sqlite_core.hpp"

namespace whizbang {

using sqlite::Use;

absl::StatusOr<AcceptedDeliveries> SqliteInbox::accept_deliveries(
    std::span<const InboxMessage> messages, const Uuid& receiving_service_id) {
  if (!core_.gate.in_transaction()) {
    return absl::FailedPreconditionError("accept_deliveries needs the caller's transaction");
  }
  return core_.gate.run([&] { return core_.accept(messages, receiving_service_id); });
}

absl::Status SqliteInbox::keep_accepted(std::span<const InboxMessage> messages,
                                        const Uuid& receiving_service_id) {
  if (!core_.gate.in_transaction()) {
    return absl::FailedPreconditionError("keep_accepted needs the caller's transaction");
  }
  return core_.gate.run([&]() -> absl::Status {
    const std::int64_t now = core_.now_micros();
    for (const InboxMessage& message : messages) {
      WB_RETURN_IF_ERROR(core_.insert_inbox_row(message, receiving_service_id, now, true));
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<bool> SqliteCore::inbox_stream_waits(const Uuid& stream) {
  WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, connection->prepare(sqlite::sql::kInboxStreamWaits));
  Use use(*connection, stmt);
  use.bind_uuid(1, stream);
  return use.step();
}

absl::StatusOr<AcceptedDeliveries> SqliteCore::accept(std::span<const InboxMessage> messages,
                                                      const Uuid& receiving_service_id) {
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
    item.lease_expiry = from_unix_micros(now + lease_micros());
    if (parts) {
      WB_RETURN_IF_ERROR(append_event_parts(item, *parts, targets));
      item.status = item.status | MessageStatus::EventStored;
    }
    accepted.ready.push_back(std::move(item));
  }
  if (accepted.stored > 0 || !accepted.ready.empty()) gate.note({.inbox_written = true});
  return accepted;
}

absl::StatusOr<std::vector<MessageId>> SqliteCore::store_inbox(
    std::span<const InboxMessage> messages, const Uuid& receiving_service_id, bool leased) {
  std::vector<MessageId> stored;
  if (messages.empty()) return stored;
  const std::int64_t now = now_micros();
  for (const InboxMessage& message : messages) {
    WB_ASSIGN_OR_RETURN(bool first, first_seen(message.message_id, now));
    if (!first) continue;  // seen before: permanently deduplicated
    WB_RETURN_IF_ERROR(insert_inbox_row(message, receiving_service_id, now, leased));
    stored.push_back(message.message_id);
  }
  if (!stored.empty()) gate.note({.inbox_written = true});
  return stored;
}

absl::StatusOr<bool> SqliteCore::first_seen(const MessageId& id, std::int64_t now) {
  WB_ASSIGN_OR_RETURN(sqlite3_stmt * dedup, connection->prepare(sqlite::sql::kInsertDeduplication));
  Use use(*connection, dedup);
  use.bind_uuid(1, id.uuid());
  use.bind_int(2, now);
  WB_RETURN_IF_ERROR(use.run());
  return use.changes() == 1;
}

absl::Status SqliteCore::insert_inbox_row(const InboxMessage& message,
                                          const Uuid& receiving_service_id, std::int64_t now,
                                          bool leased) {
  WB_ASSIGN_OR_RETURN(sqlite3_stmt * insert, connection->prepare(sqlite::sql::kInsertInbox));
  Use use(*connection, insert);
  use.bind_uuid(1, message.message_id.uuid());
  use.bind_text(2, std::string_view(message.handler_name));
  use.bind_text(3, std::string_view(message.message_type));
  use.bind_text(4, std::string_view(message.envelope_json));
  use.bind_uuid(5, message.stream_id);
  use.bind_int(6, message.is_event ? 1 : 0);
  use.bind_uuid(
      7, message.source_service_id.is_nil() ? receiving_service_id : message.source_service_id);
  use.bind_int(8, now);
  if (leased) {
    use.bind_uuid(9, options.instance.instance_id);
    use.bind_int(10, now + lease_micros());
  } else {
    use.bind_null(9);
    use.bind_null(10);
  }
  return use.run();
}

absl::StatusOr<std::vector<MessageId>> SqliteInbox::store_inbox_messages(
    std::span<const InboxMessage> messages, const Uuid& receiving_service_id) {
  // Stored inside the caller's transaction (the inbox worker's group for a delivered batch,
  // which claims them in the same transaction): leased here, so that claim keeps the lease
  // rather than rewrite each row for it (docs/guide/06-stores-and-workers.md, "What a claim
  // writes"). Stored on their own: unleased, for any instance's worker.
  const bool leased = core_.gate.in_transaction();
  return core_.gate.run([&] { return core_.store_inbox(messages, receiving_service_id, leased); });
}

}  // namespace whizbang

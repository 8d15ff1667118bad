// PostgresInbox: the inbox role (storing deliveries, deduplicated) on PostgreSQL.
#include "postgres/postgres_inbox.hpp"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "fmt/format.h"
#include "postgres/binary_array.hpp"
#include "postgres/migrations.hpp"
#include "postgres/postgres_core.hpp"
#include "postgres/sql.hpp"
#include "row_decoding.hpp"

namespace whizbang {

using postgres::Query;

PostgresCore::Queries PostgresCore::add_inbox(postgres::Pipeline& pipeline,
                                              std::span<const InboxMessage> messages,
                                              const Uuid& receiving_service_id) {
  Queries inserts;
  const std::int64_t now = now_micros();
  for (const InboxMessage& message : messages) {
    Query& insert = pipeline.add(postgres::sql::kInsertInbox);
    insert.bind_uuid(1, message.message_id.uuid());
    insert.bind_text(2, message.handler_name);
    insert.bind_text(3, message.message_type);
    insert.bind_text(4, message.envelope_json);
    insert.bind_uuid(5, message.stream_id);
    insert.bind_bool(6, message.is_event);
    insert.bind_uuid(
        7, message.source_service_id.is_nil() ? receiving_service_id : message.source_service_id);
    insert.bind_int(8, now);
    inserts.push_back(&insert);
  }
  return inserts;
}

std::vector<MessageId> PostgresCore::read_inbox(std::span<const InboxMessage> messages,
                                                const Queries& inserts) {
  std::vector<MessageId> stored;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    // No row: seen before (permanently deduplicated).
    if (inserts[i]->changes() == 1) stored.push_back(messages[i].message_id);
  }
  if (!stored.empty()) gate.note({.inbox_written = true});
  return stored;
}

absl::StatusOr<std::vector<MessageId>> PostgresInbox::store_inbox_messages(
    std::span<const InboxMessage> messages, const Uuid& receiving_service_id) {
  return core_.gate.run([&]() -> absl::StatusOr<std::vector<MessageId>> {
    postgres::Pipeline pipeline(*core_.connection);
    const PostgresCore::Queries inserts = core_.add_inbox(pipeline, messages, receiving_service_id);
    WB_RETURN_IF_ERROR(pipeline.run());
    return core_.read_inbox(messages, inserts);
  });
}

}  // namespace whizbang

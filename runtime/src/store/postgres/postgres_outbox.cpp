// PostgresOutbox: the outbox role (storing emitted messages, keyed dispatches) on PostgreSQL.
#include "postgres/postgres_outbox.hpp"

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

PostgresCore::Queries PostgresCore::add_outbox(postgres::Pipeline& pipeline,
                                               std::span<const OutboxMessage> messages) {
  // In id order (a stable sort: of rows sharing an id, the first stays first), so two batches
  // sharing ids lock them in one order across the statements too.
  std::vector<const OutboxMessage*> ordered;
  ordered.reserve(messages.size());
  for (const OutboxMessage& message : messages) ordered.push_back(&message);
  std::stable_sort(
      ordered.begin(), ordered.end(),
      [](const OutboxMessage* a, const OutboxMessage* b) { return a->message_id < b->message_id; });
  const std::int64_t now = now_micros();
  Queries inserts;
  for (std::size_t first = 0; first < ordered.size(); first += kOutboxRowsPerStatement) {
    const std::size_t end = std::min(ordered.size(), first + kOutboxRowsPerStatement);
    using postgres::BinaryArray;
    using postgres::ElementType;
    BinaryArray ids(ElementType::Uuid), destinations(ElementType::Text), types(ElementType::Text),
        envelopes(ElementType::Text), scopes(ElementType::Text), streams(ElementType::Uuid),
        events(ElementType::Bool), scheduled(ElementType::Int8);
    for (std::size_t i = first; i < end; ++i) {
      const OutboxMessage& message = *ordered[i];
      ids.add(message.message_id.uuid());
      destinations.add(message.destination);
      types.add(std::string_view(message.message_type));
      envelopes.add(std::string_view(message.envelope_json));
      if (message.scope) {
        scopes.add(std::string_view(store_internal::scope_json(*message.scope)));
      } else {
        scopes.add_null();
      }
      streams.add(message.stream_id);
      events.add(message.is_event);
      scheduled.add(message.scheduled_for
                        ? std::optional<std::int64_t>(to_unix_micros(*message.scheduled_for))
                        : std::nullopt);
    }
    Query& insert = pipeline.add(postgres::sql::kInsertOutbox);
    insert.bind_array(1, std::move(ids));
    insert.bind_array(2, std::move(destinations));
    insert.bind_array(3, std::move(types));
    insert.bind_array(4, std::move(envelopes));
    insert.bind_array(5, std::move(scopes));
    insert.bind_array(6, std::move(streams));
    insert.bind_array(7, std::move(events));
    insert.bind_array(8, std::move(scheduled));
    insert.bind_int(9, now);
    insert.bind_uuid(10, options.instance.instance_id);
    insert.bind_int(11, now + lease_micros());
    inserts.push_back(&insert);
  }
  return inserts;
}

std::vector<StoredOutboxRow> PostgresCore::read_outbox(std::span<const OutboxMessage> messages,
                                                       const Queries& inserts) {
  std::vector<StoredOutboxRow> rows;
  if (inserts.empty()) return rows;
  std::set<MessageId> inserted;
  for (Query* insert : inserts) {
    while (true) {
      absl::StatusOr<bool> row = insert->step();
      if (!row.ok() || !*row) break;
      inserted.insert(MessageId::from_trusted(insert->uuid(0)));
    }
  }
  rows.reserve(messages.size());
  for (const OutboxMessage& message : messages) {
    // The first row of an id inserted is new; a later one with the same id is its duplicate.
    const bool created = inserted.erase(message.message_id) == 1;
    rows.push_back({message.message_id, message.stream_id, created});
  }
  gate.note({.outbox_written = true});
  return rows;
}

absl::StatusOr<std::vector<StoredOutboxRow>> PostgresOutbox::store_outbox_messages(
    std::span<const OutboxMessage> messages) {
  absl::StatusOr<std::vector<StoredOutboxRow>> rows =
      core_.gate.run([&]() -> absl::StatusOr<std::vector<StoredOutboxRow>> {
        postgres::Pipeline pipeline(*core_.connection);
        const PostgresCore::Queries inserts = core_.add_outbox(pipeline, messages);
        WB_RETURN_IF_ERROR(pipeline.run());
        return core_.read_outbox(messages, inserts);
      });
  // Counted after the call so a failed (rolled back) batch counts nothing.
  if (rows.ok()) store_internal::report_deduplicated(core_.options, messages, *rows);
  return rows;
}

absl::StatusOr<bool> PostgresOutbox::remember_dispatch(const MessageId& id) {
  return core_.gate.run([&]() -> absl::StatusOr<bool> {
    postgres::Query insert(*core_.connection, postgres::sql::kRememberDispatch);
    insert.bind_uuid(1, id.uuid());
    insert.bind_int(2, to_unix_micros(core_.options.now()));
    if (absl::Status status = insert.run(); !status.ok()) return status;
    return insert.changes() == 1;
  });
}

}  // namespace whizbang

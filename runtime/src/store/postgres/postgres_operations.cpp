// PostgresWorkStore: lease renewal, dead letters (list and requeue), the retention purge and the
// reads of single rows and streams (StoreReader).
#include "postgres/postgres_store_impl.hpp"
#include "postgres/sql.hpp"
#include "row_decoding.hpp"

namespace whizbang {

using postgres::Query;
using store_internal::to_micros;

namespace {

// Every row `sql` (with ?1 = `key`) selects, decoded.
template <class Row, class Decode>
absl::StatusOr<std::vector<Row>> read_rows(postgres::Connection& connection, const std::string& sql,
                                           const Uuid& key, Decode decode) {
  Query query(connection, sql);
  query.bind_uuid(1, key);
  return store_internal::collect_rows<Row>(query, decode);
}

template <class Row, class Decode>
absl::StatusOr<std::optional<Row>> read_row(postgres::Connection& connection,
                                            const std::string& sql, const Uuid& key,
                                            Decode decode) {
  WB_ASSIGN_OR_RETURN(std::vector<Row> rows, read_rows<Row>(connection, sql, key, decode));
  if (rows.empty()) return std::optional<Row>();
  return std::optional<Row>(std::move(rows.front()));
}

}  // namespace

absl::StatusOr<std::vector<MessageId>> PostgresWorkStore::renew_leases(
    std::span<const WorkLease> leases) {
  return impl_->gate.run([&]() -> absl::StatusOr<std::vector<MessageId>> {
    postgres::Pipeline pipeline(*impl_->connection);
    const Impl::Queries renewals = impl_->add_renewals(pipeline, leases);
    WB_RETURN_IF_ERROR(pipeline.run());
    return impl_->read_renewals(leases, renewals);
  });
}

absl::StatusOr<std::vector<DeadLetter>> PostgresWorkStore::dead_letters(std::size_t limit) {
  return impl_->gate.run_read([&]() -> absl::StatusOr<std::vector<DeadLetter>> {
    Query query(*impl_->connection, postgres::sql::kDeadLetters);
    query.bind_int(1, static_cast<std::int64_t>(limit));
    return store_internal::collect_rows<DeadLetter>(
        query, store_internal::decode_dead_letter<postgres::Query>);
  });
}

absl::StatusOr<std::size_t> PostgresWorkStore::requeue_dead_letters(
    std::span<const MessageId> ids) {
  static const std::string kStatements[] = {
      postgres::sql::requeue("wh_outbox", "message_id"),
      postgres::sql::requeue("wh_inbox", "message_id"),
      postgres::sql::requeue("wh_perspective_events", "event_work_id"),
      postgres::sql::requeue("wh_lifecycle_completions", "event_id"),
      postgres::sql::requeue("wh_detached_work", "work_id"),
  };
  return impl_->gate.run([&]() -> absl::StatusOr<std::size_t> {
    std::size_t requeued = 0;
    auto run = [&](const std::optional<MessageId>& id) -> absl::Status {
      for (const std::string& sql : kStatements) {
        Query query(*impl_->connection, sql);
        if (id) query.bind_uuid(1, id->uuid());
        WB_RETURN_IF_ERROR(query.run());
        requeued += static_cast<std::size_t>(query.changes());
      }
      return absl::OkStatus();
    };
    if (ids.empty()) {
      WB_RETURN_IF_ERROR(run(std::nullopt));
    } else {
      for (const MessageId& id : ids) WB_RETURN_IF_ERROR(run(id));
    }
    // Requeued rows are due now: wake the workers as a new row would.
    if (requeued > 0) impl_->gate.note({.outbox_written = true, .inbox_written = true});
    return requeued;
  });
}

absl::StatusOr<PurgeCounts> PostgresWorkStore::purge(const RetentionOptions& retention) {
  absl::StatusOr<PurgeCounts> counts = impl_->gate.run([&]() -> absl::StatusOr<PurgeCounts> {
    const TimePoint now = impl_->options.now();
    auto purge_older = [&](const std::string& sql, std::chrono::seconds age,
                           std::int64_t& count) -> absl::Status {
      Query query(*impl_->connection, sql);
      query.bind_int(1, to_micros(now - age));
      query.bind_uuid(2, impl_->options.instance.instance_id);  // where the statement has ?2
      WB_RETURN_IF_ERROR(query.run());
      count = query.changes();
      return absl::OkStatus();
    };
    PurgeCounts purged;
    WB_RETURN_IF_ERROR(purge_older(postgres::sql::kPurgeDeduplication,
                                   retention.inbox_deduplication, purged.inbox_deduplication));
    WB_RETURN_IF_ERROR(purge_older(postgres::sql::kPurgePublishedIds, retention.outbox_tombstones,
                                   purged.outbox_tombstones));
    WB_RETURN_IF_ERROR(purge_older(postgres::sql::kPurgeInvocations, retention.receptor_invocations,
                                   purged.receptor_invocations));
    WB_RETURN_IF_ERROR(purge_older(postgres::sql::kPurgeInstances, retention.service_instances,
                                   purged.service_instances));
    WB_RETURN_IF_ERROR(purge_older(postgres::sql::kPurgeRefusedDeliveries,
                                   retention.refused_deliveries, purged.refused_deliveries));
    WB_RETURN_IF_ERROR(purge_older(postgres::sql::kPurgeDispatchKeys, retention.dispatch_keys,
                                   purged.dispatch_keys));
    return purged;
  });
  if (counts.ok()) store_internal::report_purged(impl_->options, *counts);
  return counts;
}

absl::StatusOr<std::optional<OutboxRow>> PostgresWorkStore::find_outbox_row(const MessageId& id) {
  return impl_->gate.run_read([&] {
    return read_row<OutboxRow>(*impl_->connection, postgres::sql::kFindOutbox, id.uuid(),
                               store_internal::decode_outbox_row<postgres::Query>);
  });
}

absl::StatusOr<std::optional<InboxRow>> PostgresWorkStore::find_inbox_row(const MessageId& id) {
  return impl_->gate.run_read([&] {
    return read_row<InboxRow>(*impl_->connection, postgres::sql::kFindInbox, id.uuid(),
                              store_internal::decode_inbox_row<postgres::Query>);
  });
}

absl::StatusOr<std::vector<StoredEvent>> PostgresWorkStore::read_stream(const Uuid& stream_id) {
  return impl_->gate.run_read([&] {
    return read_rows<StoredEvent>(*impl_->connection, postgres::sql::kReadStream, stream_id,
                                  store_internal::decode_event_row<postgres::Query>);
  });
}

absl::StatusOr<std::vector<PerspectiveEventRow>> PostgresWorkStore::perspective_events(
    const Uuid& stream_id) {
  return impl_->gate.run_read([&] {
    return read_rows<PerspectiveEventRow>(
        *impl_->connection, postgres::sql::kPerspectiveEvents, stream_id,
        store_internal::decode_perspective_event_row<postgres::Query>);
  });
}

}  // namespace whizbang

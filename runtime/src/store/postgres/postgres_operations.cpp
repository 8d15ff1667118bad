// PostgresOperations: the operations role (dead letters, requeue, retention purge) on PostgreSQL.
#include "postgres/postgres_operations.hpp"

#include "batched_purge.hpp"
#include "postgres/postgres_core.hpp"
#include "postgres/sql.hpp"
#include "row_decoding.hpp"

namespace whizbang {

using postgres::Query;

absl::StatusOr<std::vector<DeadLetter>> PostgresOperations::dead_letters(std::size_t limit) {
  return core_.gate.run_read([&]() -> absl::StatusOr<std::vector<DeadLetter>> {
    Query query(*core_.connection, postgres::sql::kDeadLetters);
    query.bind_int(1, static_cast<std::int64_t>(limit));
    return store_internal::collect_rows<DeadLetter>(
        query, store_internal::decode_dead_letter<postgres::Query>);
  });
}

absl::StatusOr<std::size_t> PostgresOperations::requeue_dead_letters(
    std::span<const MessageId> ids) {
  static const std::string kStatements[] = {
      postgres::sql::requeue("wh_outbox", "message_id"),
      postgres::sql::requeue("wh_inbox", "message_id"),
      postgres::sql::requeue("wh_perspective_events", "event_work_id"),
      postgres::sql::requeue("wh_lifecycle_completions", "event_id"),
      postgres::sql::requeue("wh_detached_work", "work_id"),
  };
  return core_.gate.run([&]() -> absl::StatusOr<std::size_t> {
    std::size_t requeued = 0;
    auto run = [&](const std::optional<MessageId>& id) -> absl::Status {
      for (const std::string& sql : kStatements) {
        Query query(*core_.connection, sql);
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
    if (requeued > 0) core_.gate.note({.outbox_written = true, .inbox_written = true});
    return requeued;
  });
}

absl::StatusOr<PurgeCounts> PostgresOperations::purge(const RetentionOptions& retention) {
  namespace sql = postgres::sql;
  static const store_internal::PurgeStatements kStatements{
      sql::kPurgeDeduplication, sql::kPurgeTombstones,        sql::kPurgeInvocations,
      sql::kPurgeInstances,     sql::kPurgeRefusedDeliveries, sql::kPurgeDispatchKeys};
  return store_internal::purge_in_batches(
      core_.gate, kStatements, core_.options, retention,
      [&](const std::string& statement, std::int64_t cut_off,
          std::int64_t batch) -> absl::StatusOr<std::int64_t> {
        Query query(*core_.connection, statement);
        query.bind_int(1, cut_off);
        query.bind_uuid(2, core_.options.instance.instance_id);  // where the statement has $2
        query.bind_int(3, batch);
        WB_RETURN_IF_ERROR(query.run());
        return query.changes();
      });
}

}  // namespace whizbang

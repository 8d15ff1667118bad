// SqliteOperations: the operations role (dead letters, requeue, retention purge) on SQLite.
#include "sqlite/sqlite_operations.hpp"

#include "batched_purge.hpp"
#include "fmt/format.h"
#include "row_decoding.hpp"
#include "sqlite/sql.hpp"
#include "sqlite/sqlite_core.hpp"
#include "whizbang/observability/logging.hpp"

namespace whizbang {

using sqlite::Use;

absl::StatusOr<std::vector<DeadLetter>> SqliteOperations::dead_letters(std::size_t limit) {
  return core_.gate.run_read([&]() -> absl::StatusOr<std::vector<DeadLetter>> {
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, core_.connection->prepare(sqlite::sql::kDeadLetters));
    Use use(*core_.connection, stmt);
    use.bind_int(1, static_cast<std::int64_t>(limit));
    return store_internal::collect_rows<DeadLetter>(
        use, store_internal::decode_dead_letter<sqlite::Use>);
  });
}

absl::StatusOr<std::size_t> SqliteOperations::requeue_dead_letters(std::span<const MessageId> ids) {
  static const std::string kStatements[] = {
      sqlite::sql::requeue("wh_outbox", "message_id"),
      sqlite::sql::requeue("wh_inbox", "message_id"),
      sqlite::sql::requeue("wh_perspective_events", "event_work_id"),
      sqlite::sql::requeue("wh_lifecycle_completions", "event_id"),
      sqlite::sql::requeue("wh_detached_work", "work_id"),
  };
  return core_.gate.run([&]() -> absl::StatusOr<std::size_t> {
    std::size_t requeued = 0;
    auto run = [&](const std::optional<MessageId>& id) -> absl::Status {
      for (const std::string& sql : kStatements) {
        WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, core_.connection->prepare(sql));
        Use use(*core_.connection, stmt);
        if (id) use.bind_uuid(1, id->uuid());
        WB_RETURN_IF_ERROR(use.run());
        requeued += static_cast<std::size_t>(use.changes());
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

absl::StatusOr<PurgeCounts> SqliteOperations::purge(const RetentionOptions& retention) {
  namespace sql = sqlite::sql;
  static const store_internal::PurgeStatements kStatements{
      sql::kPurgeDeduplication, sql::kPurgeTombstones,        sql::kPurgeInvocations,
      sql::kPurgeInstances,     sql::kPurgeRefusedDeliveries, sql::kPurgeDispatchKeys};
  return store_internal::purge_in_batches(
      core_.gate, kStatements, core_.options, retention,
      [&](const std::string& statement, std::int64_t cut_off,
          std::int64_t batch) -> absl::StatusOr<std::int64_t> {
        WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, core_.connection->prepare(statement));
        Use use(*core_.connection, stmt);
        use.bind_int(1, cut_off);
        if (statement == sql::kPurgeInstances) {
          use.bind_uuid(2, core_.options.instance.instance_id);
        }
        use.bind_int(3, batch);
        WB_RETURN_IF_ERROR(use.run());
        return static_cast<std::int64_t>(use.changes());
      });
}

}  // namespace whizbang

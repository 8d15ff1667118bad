// SqliteOperations: the operations role (dead letters, requeue, retention purge) on SQLite.
#include "sqlite/sqlite_operations.hpp"

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
  absl::StatusOr<PurgeCounts> counts = core_.gate.run([&]() -> absl::StatusOr<PurgeCounts> {
    const TimePoint now = core_.options.now();
    // ?2, where a statement has it, is this instance (never purged: it is alive).
    auto purge_older = [&](const std::string& sql, std::chrono::seconds age,
                           std::int64_t& count) -> absl::Status {
      WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, core_.connection->prepare(sql));
      Use use(*core_.connection, stmt);
      use.bind_int(1, to_unix_micros(now - age));
      if (sqlite3_bind_parameter_count(stmt) >= 2) {
        use.bind_uuid(2, core_.options.instance.instance_id);
      }
      WB_RETURN_IF_ERROR(use.run());
      count = use.changes();
      return absl::OkStatus();
    };
    PurgeCounts purged;
    WB_RETURN_IF_ERROR(purge_older(sqlite::sql::kPurgeDeduplication, retention.inbox_deduplication,
                                   purged.inbox_deduplication));
    WB_RETURN_IF_ERROR(purge_older(sqlite::sql::kPurgeTombstones, retention.outbox_tombstones,
                                   purged.outbox_tombstones));
    WB_RETURN_IF_ERROR(purge_older(sqlite::sql::kPurgeInvocations, retention.receptor_invocations,
                                   purged.receptor_invocations));
    WB_RETURN_IF_ERROR(purge_older(sqlite::sql::kPurgeInstances, retention.service_instances,
                                   purged.service_instances));
    WB_RETURN_IF_ERROR(purge_older(sqlite::sql::kPurgeRefusedDeliveries,
                                   retention.refused_deliveries, purged.refused_deliveries));
    WB_RETURN_IF_ERROR(purge_older(sqlite::sql::kPurgeDispatchKeys, retention.dispatch_keys,
                                   purged.dispatch_keys));
    return purged;
  });
  if (counts.ok()) store_internal::report_purged(core_.options, *counts);
  return counts;
}

}  // namespace whizbang

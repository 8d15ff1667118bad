// SqliteCoordination: the coordination role (work cycles, completions, leases, receptor
// invocations) on SQLite.
#include "sqlite/sqlite_coordination.hpp"

#include <algorithm>

#include "absl/time/clock.h"
#include "fmt/format.h"
#include "row_decoding.hpp"
#include "sqlite/migrations.hpp"
#include "sqlite/sql.hpp"
#include "sqlite/sqlite_core.hpp"
#include "whizbang/observability/logging.hpp"

namespace whizbang {

using sqlite::Use;

absl::StatusOr<std::vector<MessageId>> SqliteCoordination::renew_leases(
    std::span<const WorkLease> leases) {
  return core_.gate.run([&] { return core_.renew(leases); });
}

absl::Status SqliteCore::complete(std::span<const WorkCompletion> completions,
                                  std::span<const WorkFailure> failures, bool debug_mode) {
  const std::int64_t now = now_micros();
  const Uuid& self = options.instance.instance_id;
  // ?1 the row, ?2 this instance (the statement touches the row only while it is ours).
  auto run_on_owned_row = [&](const std::string& sql, const MessageId& id) -> absl::Status {
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, connection->prepare(sql));
    Use use(*connection, stmt);
    use.bind_uuid(1, id.uuid());
    use.bind_uuid(2, self);
    return use.run();
  };
  for (const WorkCompletion& completion : completions) {
    const bool deletes =
        !debug_mode && has_status(completion.status, completion.source == WorkSource::Outbox
                                                         ? MessageStatus::Published
                                                         : MessageStatus::EventStored);
    if (deletes) {
      if (completion.source == WorkSource::Outbox) {
        // A published row leaves a tombstone, while it is ours (as the delete goes).
        WB_RETURN_IF_ERROR(
            run_on_owned_row(sqlite::sql::kTombstoneOwnedOutboxRow, completion.message_id));
      }
      WB_RETURN_IF_ERROR(
          run_on_owned_row(sqlite::sql::delete_row(completion.source), completion.message_id));
      continue;
    }
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                        connection->prepare(sqlite::sql::complete_row(completion.source)));
    Use use(*connection, stmt);
    use.bind_uuid(1, completion.message_id.uuid());
    use.bind_uuid(2, self);
    use.bind_int(3, static_cast<std::int64_t>(completion.status));
    use.bind_int(4, now);
    WB_RETURN_IF_ERROR(use.run());
  }
  for (const WorkFailure& failure : failures) {
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                        connection->prepare(sqlite::sql::fail_row(failure.source)));
    Use use(*connection, stmt);
    use.bind_uuid(1, failure.message_id.uuid());
    use.bind_uuid(2, self);
    use.bind_int(3, static_cast<std::int64_t>(failure.status));
    use.bind_text(4, std::string_view(failure.error));
    bind_failure_rule(use, now, failure.dead_letter, failure.reason, failure.retry);
    WB_ASSIGN_OR_RETURN(bool row, use.step());
    if (!row) continue;  // gone, or claimed by another instance: not ours to fail
    store_internal::report_failure(options, {sqlite::sql::table(failure.source), failure.message_id,
                                             use.text(0), static_cast<int>(use.int64(1)),
                                             !use.is_null(2), use.optional_uuid(3), failure.error});
  }
  return absl::OkStatus();
}

void SqliteCore::bind_failure_rule(sqlite::Use& use, std::int64_t now, bool dead_letter,
                                   FailureReason reason,
                                   const std::optional<RetryDecision>& retry) const {
  use.bind_int(5, now);
  use.bind_int(6, dead_letter ? 1 : 0);
  use.bind_int(7, retry && retry->max_attempts > 0 ? retry->max_attempts : options.max_attempts);
  use.bind_int(8, static_cast<std::int64_t>(reason));
  use.bind_int(9, retry ? retry->wait.count() : -1);
}

absl::Status SqliteCoordination::defer_work(std::span<const WorkDeferral> deferrals) {
  if (deferrals.empty()) return absl::OkStatus();
  return core_.gate.run([&]() -> absl::Status {
    const std::int64_t now = core_.now_micros();
    for (const WorkDeferral& deferral : deferrals) {
      WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                          core_.connection->prepare(sqlite::sql::defer_row(deferral.source)));
      Use use(*core_.connection, stmt);
      use.bind_uuid(1, deferral.message_id.uuid());
      use.bind_uuid(2, core_.options.instance.instance_id);
      use.bind_int(3, now + std::max<std::int64_t>(deferral.wait.count(), 0));
      WB_RETURN_IF_ERROR(use.run());
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<WorkItem>> SqliteCoordination::process_work_batch(
    const WorkBatchRequest& request) {
  // Most polls of a quiet service find nothing: answer those with reads, without taking the
  // write lock (or syncing a heartbeat) every poll interval of every worker of every instance.
  if (!core_.gate.in_transaction()) {
    absl::StatusOr<bool> idle = core_.gate.run_read([&] { return core_.idle_poll(request); });
    if (!idle.ok()) return idle.status();
    if (*idle) return std::vector<WorkItem>();
  }
  // A cycle that only claims and renews needs no fsync: lost to a power loss, its rows are
  // claimable again, as when a lease lapses (TransactionBackend::backend_begin_unsynced).
  if (store_internal::claims_only(request)) {
    return core_.gate.run_unsynced([&] { return core_.process(request); });
  }
  return core_.gate.run([&] { return core_.process(request); });
}

absl::Status SqliteCoordination::complete_work(std::span<const WorkCompletion> completions,
                                               std::span<const WorkFailure> failures) {
  return core_.gate.run([&] { return core_.complete(completions, failures, false); });
}

absl::Status SqliteCoordination::record_receptor_invocations(
    const MessageId& message_id, std::span<const ReceptorInvocationRecord> records) {
  return core_.gate.run([&]() -> absl::Status {
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                        core_.connection->prepare(sqlite::sql::kInsertInvocation));
    for (const ReceptorInvocationRecord& record : records) {
      Use use(*core_.connection, stmt);
      use.bind_uuid(1, message_id.uuid());
      use.bind_text(2, record.receptor_id.view());
      use.bind_text(3, std::string_view(record.service_name));
      use.bind_text(4, std::string_view(record.perspective));
      use.bind_int(5, static_cast<std::int64_t>(record.stage));
      use.bind_int(6, to_unix_micros(record.completed_at));
      use.bind_int(7, record.duration.count());
      WB_RETURN_IF_ERROR(use.run());
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<ReceptorInvocationRecord>> SqliteCoordination::find_receptor_invocations(
    const MessageId& message_id, std::string_view receptor_id) {
  return core_.gate.run_read([&]() -> absl::StatusOr<std::vector<ReceptorInvocationRecord>> {
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                        core_.connection->prepare(sqlite::sql::kFindInvocations));
    Use use(*core_.connection, stmt);
    use.bind_uuid(1, message_id.uuid());
    use.bind_text(2, receptor_id);
    return store_internal::collect_rows<ReceptorInvocationRecord>(
        use, store_internal::decode_invocation_record<sqlite::Use>);
  });
}

}  // namespace whizbang

// PostgresCoordination: the coordination role (work cycles, completions, leases, receptor
// invocations) on PostgreSQL.
#include "postgres/postgres_coordination.hpp"

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

absl::StatusOr<std::vector<MessageId>> PostgresCoordination::renew_leases(
    std::span<const WorkLease> leases) {
  return core_.gate.run([&]() -> absl::StatusOr<std::vector<MessageId>> {
    postgres::Pipeline pipeline(*core_.connection);
    pipeline.surround(postgres::sql::kPlanByIndexes, postgres::sql::kAfterPlanByIndexes);
    const PostgresCore::Queries renewals = core_.add_renewals(pipeline, leases);
    WB_RETURN_IF_ERROR(pipeline.run());
    return core_.read_renewals(leases, renewals);
  });
}

PostgresCore::Queries PostgresCore::add_completions(postgres::Pipeline& pipeline,
                                                    std::span<const WorkCompletion> completions,
                                                    std::span<const WorkFailure> failures,
                                                    bool debug_mode) {
  const std::int64_t now = now_micros();
  const Uuid& self = options.instance.instance_id;
  // Rows done for good are deleted by one statement per table: {id,id,…} of each.
  std::string deleted[2];
  for (const WorkCompletion& completion : completions) {
    const bool deletes =
        !debug_mode && has_status(completion.status, completion.source == WorkSource::Outbox
                                                         ? MessageStatus::Published
                                                         : MessageStatus::EventStored);
    if (deletes) {
      std::string& ids = deleted[static_cast<int>(completion.source)];
      ids += ids.empty() ? "{" : ",";
      ids += completion.message_id.uuid().to_string();
      continue;
    }
    Query& complete = pipeline.add(postgres::sql::complete_row(completion.source));
    complete.bind_uuid(1, completion.message_id.uuid());
    complete.bind_uuid(2, self);
    complete.bind_int(3, static_cast<std::int64_t>(completion.status));
    complete.bind_int(4, now);
  }
  for (const WorkSource source : {WorkSource::Outbox, WorkSource::Inbox}) {
    if (deleted[static_cast<int>(source)].empty()) continue;
    Query& erase = pipeline.add(postgres::sql::delete_rows(source));
    erase.bind_text(1, deleted[static_cast<int>(source)] + "}");
    erase.bind_uuid(2, self);
  }
  Queries failing;
  for (const WorkFailure& failure : failures) {
    Query& fail = pipeline.add(postgres::sql::fail_row(failure.source));
    fail.bind_uuid(1, failure.message_id.uuid());
    fail.bind_uuid(2, self);
    fail.bind_int(3, static_cast<std::int64_t>(failure.status));
    fail.bind_text(4, failure.error);
    bind_failure_rule(fail, now, failure.dead_letter, failure.reason, failure.retry);
    failing.push_back(&fail);
  }
  return failing;
}

void PostgresCore::report_failures(std::span<const WorkFailure> failures,
                                   const Queries& statements) {
  for (std::size_t i = 0; i < failures.size(); ++i) {
    Query& fail = *statements[i];
    absl::StatusOr<bool> row = fail.step();
    if (!row.ok() || !*row) continue;  // gone, or claimed by another instance: not ours to fail
    const WorkFailure& failure = failures[i];
    store_internal::report_failure(
        options,
        {postgres::sql::table(failure.source), failure.message_id, fail.text(0),
         static_cast<int>(fail.int64(1)), !fail.is_null(2), fail.optional_uuid(3), failure.error});
  }
}

void PostgresCore::bind_failure_rule(Query& query, std::int64_t now, bool dead_letter,
                                     FailureReason reason,
                                     const std::optional<RetryDecision>& retry) const {
  query.bind_int(5, now);
  query.bind_bool(6, dead_letter);
  query.bind_int(7, retry && retry->max_attempts > 0 ? retry->max_attempts : options.max_attempts);
  query.bind_int(8, static_cast<std::int64_t>(reason));
  query.bind_int(9, retry ? retry->wait.count() : -1);
}

absl::StatusOr<std::vector<WorkItem>> PostgresCoordination::process_work_batch(
    const WorkBatchRequest& request) {
  // A cycle that only claims and renews needs no WAL flush: undone by a server crash, its rows
  // are claimable again, as when a lease lapses (TransactionBackend::backend_begin_unsynced).
  if (store_internal::claims_only(request)) {
    return core_.gate.run_unsynced([&] { return core_.process(request); });
  }
  return core_.gate.run([&] { return core_.process(request); });
}

absl::Status PostgresCoordination::complete_work(std::span<const WorkCompletion> completions,
                                                 std::span<const WorkFailure> failures) {
  return core_.gate.run([&]() -> absl::Status {
    postgres::Pipeline pipeline(*core_.connection);
    pipeline.surround(postgres::sql::kPlanByIndexes, postgres::sql::kAfterPlanByIndexes);
    const PostgresCore::Queries failing =
        core_.add_completions(pipeline, completions, failures, false);
    WB_RETURN_IF_ERROR(pipeline.run());
    core_.report_failures(failures, failing);
    return absl::OkStatus();
  });
}

absl::Status PostgresCoordination::defer_work(std::span<const WorkDeferral> deferrals) {
  if (deferrals.empty()) return absl::OkStatus();
  return core_.gate.run([&]() -> absl::Status {
    const std::int64_t now = core_.now_micros();
    postgres::Pipeline pipeline(*core_.connection);
    pipeline.surround(postgres::sql::kPlanByIndexes, postgres::sql::kAfterPlanByIndexes);
    for (const WorkDeferral& deferral : deferrals) {
      Query& defer = pipeline.add(postgres::sql::defer_row(deferral.source));
      defer.bind_uuid(1, deferral.message_id.uuid());
      defer.bind_uuid(2, core_.options.instance.instance_id);
      defer.bind_int(3, now + std::max<std::int64_t>(deferral.wait.count(), 0));
    }
    return pipeline.run();
  });
}

absl::Status PostgresCoordination::record_receptor_invocations(
    const MessageId& message_id, std::span<const ReceptorInvocationRecord> records) {
  return core_.gate.run([&]() -> absl::Status {
    postgres::Pipeline pipeline(*core_.connection);
    for (const ReceptorInvocationRecord& record : records) {
      Query& insert = pipeline.add(postgres::sql::kInsertInvocation);
      insert.bind_uuid(1, message_id.uuid());
      insert.bind_text(2, record.receptor_id.view());
      insert.bind_text(3, record.service_name);
      insert.bind_text(4, record.perspective);
      insert.bind_int(5, static_cast<std::int64_t>(record.stage));
      insert.bind_int(6, to_unix_micros(record.completed_at));
      insert.bind_int(7, record.duration.count());
    }
    return pipeline.run();
  });
}

absl::StatusOr<std::vector<ReceptorInvocationRecord>>
PostgresCoordination::find_receptor_invocations(const MessageId& message_id,
                                                std::string_view receptor_id) {
  return core_.gate.run_read([&]() -> absl::StatusOr<std::vector<ReceptorInvocationRecord>> {
    Query query(*core_.connection, postgres::sql::kFindInvocations);
    query.bind_uuid(1, message_id.uuid());
    query.bind_text(2, receptor_id);
    return store_internal::collect_rows<ReceptorInvocationRecord>(
        query, store_internal::decode_invocation_record<postgres::Query>);
  });
}

}  // namespace whizbang

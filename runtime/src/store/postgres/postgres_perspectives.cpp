// PostgresPerspectives: the perspective role (perspective events, models, associations) on
// PostgreSQL.
#include "postgres/postgres_perspectives.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>

#include "fmt/format.h"
#include "postgres/binary_array.hpp"
#include "postgres/migrations.hpp"
#include "postgres/postgres_core.hpp"
#include "postgres/sql.hpp"
#include "row_decoding.hpp"

namespace whizbang {

using postgres::Query;

absl::Status PostgresCore::fail_keyed(const std::string& sql, std::string_view table,
                                      const MessageId& id, std::string_view error, bool dead_letter,
                                      const std::optional<RetryDecision>& retry) {
  Query query(*connection, sql);
  query.bind_uuid(1, id.uuid());
  query.bind_uuid(2, options.instance.instance_id);
  query.bind_text(4, error);
  bind_failure_rule(query, now_micros(), dead_letter, FailureReason::Unknown, retry);
  WB_ASSIGN_OR_RETURN(bool row, query.step());
  if (!row) return absl::OkStatus();  // gone, or another instance's now
  store_internal::report_failure(
      options, {table, id, query.text(0), static_cast<int>(query.int64(1)), !query.is_null(2),
                query.optional_uuid(3), error});
  return absl::OkStatus();
}

absl::StatusOr<std::vector<PerspectiveWork>> PostgresPerspectives::claim_perspective_work(
    std::size_t max_items) {
  // Only leases: lost to a power loss, the rows are claimable again (as when a lease
  // lapses), so the commit need not wait for a sync (backend_begin_unsynced).
  return core_.gate.run_unsynced([&]() -> absl::StatusOr<std::vector<PerspectiveWork>> {
    const std::int64_t now = core_.now_micros();
    postgres::Pipeline pipeline(*core_.connection);
    pipeline.surround(postgres::sql::kPlanByIndexes, postgres::sql::kAfterPlanByIndexes);
    Query& turn = pipeline.add(postgres::sql::kClaimLock);
    turn.bind_int(1, static_cast<std::int64_t>(postgres::sql::ClaimLock::Perspectives));
    Query& claim = pipeline.add(postgres::sql::kClaimPerspectiveWork);
    claim.bind_int(1, now);
    claim.bind_uuid(2, core_.options.instance.instance_id);
    claim.bind_int(3, static_cast<std::int64_t>(max_items));
    claim.bind_int(4, now + core_.lease_micros());
    WB_RETURN_IF_ERROR(pipeline.run());
    std::vector<PerspectiveWork> work;
    WB_ASSIGN_OR_RETURN(work, store_internal::collect_rows<PerspectiveWork>(
                                  claim, store_internal::decode_perspective_work<postgres::Query>));
    std::sort(work.begin(), work.end(), [](const PerspectiveWork& a, const PerspectiveWork& b) {
      return std::tie(a.stream_id, a.version, a.perspective_name) <
             std::tie(b.stream_id, b.version, b.perspective_name);
    });
    return work;
  });
}

absl::StatusOr<PerspectiveCompletion> PostgresPerspectives::complete_perspective_work(
    std::span<const MessageId> event_work_ids) {
  return core_.gate.run([&]() -> absl::StatusOr<PerspectiveCompletion> {
    postgres::Connection& db = *core_.connection;
    const Uuid& self = core_.options.instance.instance_id;
    // The events these perspective events belong to (those this instance may complete).
    postgres::Pipeline finding(db);
    finding.surround(postgres::sql::kPlanByIndexes, postgres::sql::kAfterPlanByIndexes);
    std::vector<Query*> finds;
    for (const MessageId& work_id : event_work_ids) {
      Query& find = finding.add(postgres::sql::kPerspectiveWorkEvent);
      find.bind_uuid(1, work_id.uuid());
      find.bind_uuid(2, self);
      finds.push_back(&find);
    }
    WB_RETURN_IF_ERROR(finding.run());
    std::vector<std::pair<MessageId, MessageId>> owned;  // (work id, event)
    std::map<MessageId, Uuid> streams;                   // event -> stream, in event order
    for (std::size_t i = 0; i < finds.size(); ++i) {
      WB_ASSIGN_OR_RETURN(bool found, finds[i]->step());
      // Already completed (by this or another worker), or claimed by another instance after
      // this one's lease lapsed: not ours to complete.
      if (!found) continue;
      const MessageId event_id = MessageId::from_trusted(finds[i]->uuid(0));
      owned.emplace_back(event_work_ids[i], event_id);
      streams.emplace(event_id, finds[i]->uuid(1));
    }
    // Completions of one event's perspective events take turns, in event order (no deadlock
    // between two batches), so exactly one of them sees the last perspective event gone.
    postgres::Pipeline deleting(db);
    deleting.surround(postgres::sql::kPlanByIndexes, postgres::sql::kAfterPlanByIndexes);
    for (const auto& [event_id, stream_id] : streams) {
      Query& lock = deleting.add(postgres::sql::kLockEvent);
      lock.bind_uuid(1, event_id.uuid());
    }
    std::vector<Query*> deletes;
    for (const auto& [work_id, event_id] : owned) {
      Query& erase = deleting.add(postgres::sql::kDeletePerspectiveWork);
      erase.bind_uuid(1, work_id.uuid());
      erase.bind_uuid(2, self);
      deletes.push_back(&erase);
    }
    WB_RETURN_IF_ERROR(deleting.run());
    PerspectiveCompletion completion;
    std::vector<MessageId> touched;
    for (std::size_t i = 0; i < owned.size(); ++i) {
      if (deletes[i]->changes() == 0) continue;  // completed meanwhile by another transaction
      const auto& [work_id, event_id] = owned[i];
      completion.work_completed.push_back(work_id);
      if (std::find(touched.begin(), touched.end(), event_id) == touched.end()) {
        touched.push_back(event_id);
      }
    }
    postgres::Pipeline counting(db);
    counting.surround(postgres::sql::kPlanByIndexes, postgres::sql::kAfterPlanByIndexes);
    std::vector<Query*> counts;
    for (const MessageId& event_id : touched) {
      Query& remaining = counting.add(postgres::sql::kPerspectiveWorkRemaining);
      remaining.bind_uuid(1, event_id.uuid());
      counts.push_back(&remaining);
    }
    WB_RETURN_IF_ERROR(counting.run());
    const std::int64_t now = core_.now_micros();
    postgres::Pipeline recording(db);
    for (std::size_t i = 0; i < touched.size(); ++i) {
      WB_ASSIGN_OR_RETURN(bool row, counts[i]->step());
      if (!row || counts[i]->int64(0) != 0) continue;
      // The gate opened: its stages are owed until they succeed (claim_lifecycle_work).
      const MessageId& event_id = touched[i];
      Query& lifecycle = recording.add(postgres::sql::kInsertLifecycleCompletion);
      lifecycle.bind_uuid(1, event_id.uuid());
      lifecycle.bind_uuid(2, streams.at(event_id));
      lifecycle.bind_uuid(3, self);
      lifecycle.bind_int(4, now + core_.lease_micros());
      lifecycle.bind_int(5, now);
      completion.events_completed.push_back(event_id);
    }
    WB_RETURN_IF_ERROR(recording.run());
    // Read-your-writes waits wake on it (here and, on PostgreSQL, in other processes).
    if (!completion.work_completed.empty()) core_.gate.note({.perspectives_written = true});
    return completion;
  });
}

absl::Status PostgresPerspectives::fail_perspective_work(
    const MessageId& event_work_id, std::string_view error, bool dead_letter,
    const std::optional<RetryDecision>& retry) {
  return core_.gate.run([&]() -> absl::Status {
    core_.gate.note({.perspectives_written = true});  // a dead letter ends a wait
    return core_.fail_keyed(postgres::sql::kFailPerspectiveWork, "wh_perspective_events",
                            event_work_id, error, dead_letter, retry);
  });
}

absl::StatusOr<std::optional<PerspectiveModelRow>> PostgresPerspectives::load_perspective_model(
    std::string_view perspective, const Uuid& stream_id) {
  return core_.gate.run_read([&]() -> absl::StatusOr<std::optional<PerspectiveModelRow>> {
    postgres::Pipeline pipeline(*core_.connection);
    Query& lock = pipeline.add(postgres::sql::kLockPerspectiveModel);
    lock.bind_text(1, perspective);
    lock.bind_uuid(2, stream_id);
    Query& query = pipeline.add(postgres::sql::kLoadPerspectiveModel);
    query.bind_text(1, perspective);
    query.bind_uuid(2, stream_id);
    WB_RETURN_IF_ERROR(pipeline.run());
    WB_ASSIGN_OR_RETURN(bool found, query.step());
    if (!found) return std::optional<PerspectiveModelRow>();
    return std::optional<PerspectiveModelRow>(PerspectiveModelRow{
        query.text(0), MessageId::from_trusted(query.uuid(1)), from_unix_micros(query.int64(2))});
  });
}

absl::Status PostgresPerspectives::save_perspective_model(std::string_view perspective,
                                                          const Uuid& stream_id,
                                                          std::string_view model_json,
                                                          const MessageId& last_event_id) {
  return core_.gate.run([&]() -> absl::Status {
    Query query(*core_.connection, postgres::sql::kSavePerspectiveModel);
    query.bind_text(1, perspective);
    query.bind_uuid(2, stream_id);
    query.bind_text(3, model_json);
    query.bind_uuid(4, last_event_id.uuid());
    query.bind_int(5, core_.now_micros());
    return query.run();
  });
}

absl::Status PostgresPerspectives::add_perspective_association(std::string_view message_type,
                                                               std::string_view perspective) {
  return core_.gate.run([&]() -> absl::Status {
    Query query(*core_.connection, postgres::sql::kInsertAssociation);
    query.bind_text(1, message_type);
    query.bind_text(2, perspective);
    return query.run();
  });
}

}  // namespace whizbang

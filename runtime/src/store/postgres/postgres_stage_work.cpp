// PostgresStageWork: the stage-work role (lifecycle completions, detached work) on PostgreSQL.
#include "postgres/postgres_stage_work.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "postgres/postgres_core.hpp"
#include "postgres/sql.hpp"
#include "row_decoding.hpp"

namespace whizbang {

using postgres::Query;

namespace {

// A stage-work claim (?1 now ?2 instance ?3 limit ?4 lease expiry), planned to walk the table's
// key in claim order whatever its statistics say, as the other claims are (sql/
// coordination_sql.hpp, kPlanByIndexes). Left to them, an analyzed table was read and sorted
// whole, and the generic plan a connection adopts hashed the whole table to update the rows it
// had locked (a million detached-work rows: 512 to 749 ms a claim of 100, 7.4 to 8.5 ms planned
// by index; docs/guide/20-capacity.md).
template <class Row, class Decode>
absl::StatusOr<std::vector<Row>> claim_stage_work(PostgresCore& core, const std::string& sql,
                                                  std::size_t max_items, Decode decode) {
  const std::int64_t now = core.now_micros();
  postgres::Pipeline claiming(*core.connection);
  claiming.surround(postgres::sql::kPlanByIndexes, postgres::sql::kAfterPlanByIndexes);
  Query& claim = claiming.add(sql);
  claim.bind_int(1, now);
  claim.bind_uuid(2, core.options.instance.instance_id);
  claim.bind_int(3, static_cast<std::int64_t>(max_items));
  claim.bind_int(4, now + core.lease_micros());
  WB_RETURN_IF_ERROR(claiming.run());
  return store_internal::collect_rows<Row>(claim, decode);
}

}  // namespace

absl::Status PostgresStageWork::store_detached_work(const DetachedWork& work) {
  return core_.gate.run([&]() -> absl::Status {
    const std::int64_t now = core_.now_micros();
    Query query(*core_.connection, postgres::sql::kInsertDetachedWork);
    query.bind_uuid(1, work.work_id.uuid());
    query.bind_uuid(2, work.message_id.uuid());
    query.bind_text(3, std::string_view(work.receptor_id));
    query.bind_int(4, static_cast<std::int64_t>(work.stage));
    query.bind_text(5, std::string_view(work.perspective));
    query.bind_text(6, std::string_view(work.envelope_json));
    query.bind_uuid(7, core_.options.instance.instance_id);
    query.bind_int(8, now + core_.lease_micros());
    query.bind_int(9, now);
    query.bind_text(10, std::string_view(work.message_type));
    return query.run();
  });
}

absl::StatusOr<std::vector<DetachedWork>> PostgresStageWork::claim_detached_work(
    std::size_t max_items) {
  // Only leases: lost to a power loss, the rows are claimable again (as when a lease
  // lapses), so the commit need not wait for a sync (backend_begin_unsynced).
  return core_.gate.run_unsynced([&]() -> absl::StatusOr<std::vector<DetachedWork>> {
    std::vector<DetachedWork> work;
    WB_ASSIGN_OR_RETURN(
        work, claim_stage_work<DetachedWork>(core_, postgres::sql::kClaimDetachedWork, max_items,
                                             store_internal::decode_detached_work<Query>));
    std::sort(work.begin(), work.end(),
              [](const DetachedWork& a, const DetachedWork& b) { return a.work_id < b.work_id; });
    return work;
  });
}

absl::StatusOr<bool> PostgresStageWork::complete_detached_work(const MessageId& work_id) {
  return core_.gate.run([&]() -> absl::StatusOr<bool> {
    Query query(*core_.connection, postgres::sql::kDeleteDetachedWork);
    query.bind_uuid(1, work_id.uuid());
    query.bind_uuid(2, core_.options.instance.instance_id);
    WB_RETURN_IF_ERROR(query.run());
    return query.changes() == 1;
  });
}

absl::Status PostgresStageWork::fail_detached_work(const MessageId& work_id, std::string_view error,
                                                   bool dead_letter,
                                                   const std::optional<RetryDecision>& retry) {
  return core_.gate.run([&]() -> absl::Status {
    return core_.fail_keyed(postgres::sql::kFailDetachedWork, "wh_detached_work", work_id, error,
                            dead_letter, retry);
  });
}

absl::StatusOr<std::vector<LifecycleWork>> PostgresStageWork::claim_lifecycle_work(
    std::size_t max_items) {
  // Only leases: lost to a power loss, the rows are claimable again (as when a lease
  // lapses), so the commit need not wait for a sync (backend_begin_unsynced).
  return core_.gate.run_unsynced([&]() -> absl::StatusOr<std::vector<LifecycleWork>> {
    std::vector<LifecycleWork> work;
    WB_ASSIGN_OR_RETURN(
        work, claim_stage_work<LifecycleWork>(core_, postgres::sql::kClaimLifecycleWork, max_items,
                                              store_internal::decode_lifecycle_work<Query>));
    std::sort(work.begin(), work.end(), [](const LifecycleWork& a, const LifecycleWork& b) {
      return a.event_id < b.event_id;
    });
    return work;
  });
}

absl::StatusOr<bool> PostgresStageWork::renew_lifecycle_work(const MessageId& event_id) {
  return core_.gate.run_unsynced([&]() -> absl::StatusOr<bool> {
    Query query(*core_.connection, postgres::sql::kRenewLifecycleWork);
    query.bind_uuid(1, event_id.uuid());
    query.bind_uuid(2, core_.options.instance.instance_id);
    query.bind_int(3, core_.now_micros() + core_.lease_micros());
    WB_RETURN_IF_ERROR(query.run());
    return query.changes() == 1;
  });
}

absl::Status PostgresStageWork::complete_lifecycle_work(const MessageId& event_id) {
  return core_.gate.run([&]() -> absl::Status {
    Query query(*core_.connection, postgres::sql::kDeleteLifecycleWork);
    query.bind_uuid(1, event_id.uuid());
    query.bind_uuid(2, core_.options.instance.instance_id);
    return query.run();
  });
}

absl::Status PostgresStageWork::fail_lifecycle_work(const MessageId& event_id,
                                                    std::string_view error, bool dead_letter,
                                                    const std::optional<RetryDecision>& retry) {
  return core_.gate.run([&]() -> absl::Status {
    return core_.fail_keyed(postgres::sql::kFailLifecycleWork, "wh_lifecycle_completions", event_id,
                            error, dead_letter, retry);
  });
}

}  // namespace whizbang

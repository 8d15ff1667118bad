// SqliteStageWork: the stage-work role (lifecycle completions, detached work) on SQLite.
#include "sqlite/sqlite_stage_work.hpp"

#include <algorithm>

#include "row_decoding.hpp"
#include "sqlite/sql.hpp"
#include "sqlite/sqlite_core.hpp"

namespace whizbang {

using sqlite::Use;

absl::Status SqliteStageWork::store_detached_work(const DetachedWork& work) {
  return core_.gate.run([&]() -> absl::Status {
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                        core_.connection->prepare(sqlite::sql::kInsertDetachedWork));
    const std::int64_t now = core_.now_micros();
    Use use(*core_.connection, stmt);
    use.bind_uuid(1, work.work_id.uuid());
    use.bind_uuid(2, work.message_id.uuid());
    use.bind_text(3, std::string_view(work.receptor_id));
    use.bind_int(4, static_cast<std::int64_t>(work.stage));
    use.bind_text(5, std::string_view(work.perspective));
    use.bind_text(6, std::string_view(work.envelope_json));
    use.bind_uuid(7, core_.options.instance.instance_id);
    use.bind_int(8, now + core_.lease_micros());
    use.bind_int(9, now);
    use.bind_text(10, std::string_view(work.message_type));
    return use.run();
  });
}

absl::StatusOr<std::vector<DetachedWork>> SqliteStageWork::claim_detached_work(
    std::size_t max_items) {
  // An idle poll reads only (see process_work_batch).
  WB_ASSIGN_OR_RETURN(bool idle, core_.nothing_claimable(sqlite::sql::kClaimableDetachedWork));
  if (idle) return std::vector<DetachedWork>();
  // Only leases: lost to a power loss, the rows are claimable again (as when a lease
  // lapses), so the commit need not wait for a sync (backend_begin_unsynced).
  return core_.gate.run_unsynced([&]() -> absl::StatusOr<std::vector<DetachedWork>> {
    sqlite::Connection& db = *core_.connection;
    const std::int64_t now = core_.now_micros();
    const Uuid& self = core_.options.instance.instance_id;
    std::vector<DetachedWork> work;
    {
      WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, db.prepare(sqlite::sql::kClaimableDetachedWork));
      Use use(db, stmt);
      use.bind_int(1, now);
      use.bind_int(3, static_cast<std::int64_t>(max_items));
      WB_ASSIGN_OR_RETURN(work, store_internal::collect_rows<DetachedWork>(
                                    use, store_internal::decode_detached_work<sqlite::Use>));
    }
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * lease, db.prepare(sqlite::sql::kLeaseDetachedWork));
    for (const DetachedWork& item : work) {
      Use use(db, lease);
      use.bind_uuid(1, item.work_id.uuid());
      use.bind_uuid(2, self);
      use.bind_int(3, now + core_.lease_micros());
      WB_RETURN_IF_ERROR(use.run());
    }
    return work;
  });
}

absl::StatusOr<bool> SqliteStageWork::complete_detached_work(const MessageId& work_id) {
  return core_.gate.run([&]() -> absl::StatusOr<bool> {
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                        core_.connection->prepare(sqlite::sql::kDeleteDetachedWork));
    Use use(*core_.connection, stmt);
    use.bind_uuid(1, work_id.uuid());
    use.bind_uuid(2, core_.options.instance.instance_id);
    WB_RETURN_IF_ERROR(use.run());
    return use.changes() == 1;
  });
}

absl::Status SqliteStageWork::fail_detached_work(const MessageId& work_id, std::string_view error,
                                                 bool dead_letter,
                                                 const std::optional<RetryDecision>& retry) {
  return core_.gate.run([&]() -> absl::Status {
    return core_.fail_keyed(sqlite::sql::kFailDetachedWork, "wh_detached_work", work_id, error,
                            dead_letter, retry);
  });
}

absl::StatusOr<std::vector<LifecycleWork>> SqliteStageWork::claim_lifecycle_work(
    std::size_t max_items) {
  // An idle poll reads only (see process_work_batch).
  WB_ASSIGN_OR_RETURN(bool idle, core_.nothing_claimable(sqlite::sql::kClaimableLifecycleWork));
  if (idle) return std::vector<LifecycleWork>();
  // Only leases: lost to a power loss, the rows are claimable again (as when a lease
  // lapses), so the commit need not wait for a sync (backend_begin_unsynced).
  return core_.gate.run_unsynced([&]() -> absl::StatusOr<std::vector<LifecycleWork>> {
    sqlite::Connection& db = *core_.connection;
    const std::int64_t now = core_.now_micros();
    const Uuid& self = core_.options.instance.instance_id;
    std::vector<LifecycleWork> work;
    {
      WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, db.prepare(sqlite::sql::kClaimableLifecycleWork));
      Use use(db, stmt);
      use.bind_int(1, now);
      use.bind_uuid(2, self);
      use.bind_int(3, static_cast<std::int64_t>(max_items));
      WB_ASSIGN_OR_RETURN(work, store_internal::collect_rows<LifecycleWork>(
                                    use, store_internal::decode_lifecycle_work<sqlite::Use>));
    }
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * lease, db.prepare(sqlite::sql::kLeaseLifecycleWork));
    for (const LifecycleWork& item : work) {
      Use use(db, lease);
      use.bind_uuid(1, item.event_id.uuid());
      use.bind_uuid(2, self);
      use.bind_int(3, now + core_.lease_micros());
      WB_RETURN_IF_ERROR(use.run());
    }
    return work;
  });
}

absl::StatusOr<bool> SqliteStageWork::renew_lifecycle_work(const MessageId& event_id) {
  return core_.gate.run_unsynced([&]() -> absl::StatusOr<bool> {
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                        core_.connection->prepare(sqlite::sql::kRenewLifecycleWork));
    Use use(*core_.connection, stmt);
    use.bind_uuid(1, event_id.uuid());
    use.bind_uuid(2, core_.options.instance.instance_id);
    use.bind_int(3, core_.now_micros() + core_.lease_micros());
    WB_RETURN_IF_ERROR(use.run());
    return use.changes() == 1;
  });
}

absl::Status SqliteStageWork::complete_lifecycle_work(const MessageId& event_id) {
  return core_.gate.run([&]() -> absl::Status {
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                        core_.connection->prepare(sqlite::sql::kDeleteLifecycleWork));
    Use use(*core_.connection, stmt);
    use.bind_uuid(1, event_id.uuid());
    use.bind_uuid(2, core_.options.instance.instance_id);
    return use.run();
  });
}

absl::Status SqliteStageWork::fail_lifecycle_work(const MessageId& event_id, std::string_view error,
                                                  bool dead_letter,
                                                  const std::optional<RetryDecision>& retry) {
  return core_.gate.run([&]() -> absl::Status {
    return core_.fail_keyed(sqlite::sql::kFailLifecycleWork, "wh_lifecycle_completions", event_id,
                            error, dead_letter, retry);
  });
}

}  // namespace whizbang

// SqlitePerspectives: the perspective role (perspective events, models, associations) on SQLite.
#include "sqlite/sqlite_perspectives.hpp"

#include <algorithm>

#include "absl/time/clock.h"
#include "fmt/format.h"
#include "row_decoding.hpp"
#include "sqlite/migrations.hpp"
#include "sqlite/sql.hpp"
#include "sqlite/sqlite_core.hpp"

namespace whizbang {

using sqlite::Use;

absl::Status SqliteCore::fail_keyed(const std::string& sql, std::string_view table,
                                    const MessageId& id, std::string_view error, bool dead_letter,
                                    const std::optional<RetryDecision>& retry) {
  WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, connection->prepare(sql));
  Use use(*connection, stmt);
  use.bind_uuid(1, id.uuid());
  use.bind_uuid(2, options.instance.instance_id);
  use.bind_text(4, error);
  bind_failure_rule(use, now_micros(), dead_letter, FailureReason::Unknown, retry);
  WB_ASSIGN_OR_RETURN(bool row, use.step());
  if (!row) return absl::OkStatus();  // gone, or another instance's now
  store_internal::report_failure(options, {table, id, use.text(0), static_cast<int>(use.int64(1)),
                                           !use.is_null(2), use.optional_uuid(3), error});
  return absl::OkStatus();
}

absl::StatusOr<std::vector<PerspectiveWork>> SqlitePerspectives::claim_perspective_work(
    std::size_t max_items) {
  // An idle poll reads only (see process_work_batch).
  WB_ASSIGN_OR_RETURN(bool idle, core_.nothing_claimable(sqlite::sql::kClaimablePerspectiveWork));
  if (idle) return std::vector<PerspectiveWork>();
  // Only leases: lost to a power loss, the rows are claimable again (as when a lease
  // lapses), so the commit need not wait for a sync (backend_begin_unsynced).
  return core_.gate.run_unsynced([&]() -> absl::StatusOr<std::vector<PerspectiveWork>> {
    sqlite::Connection& db = *core_.connection;
    const std::int64_t now = core_.now_micros();
    const Uuid& self = core_.options.instance.instance_id;
    std::vector<PerspectiveWork> work;
    {
      WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, db.prepare(sqlite::sql::kClaimablePerspectiveWork));
      Use use(db, stmt);
      use.bind_int(1, now);
      use.bind_uuid(2, self);
      use.bind_int(3, static_cast<std::int64_t>(max_items));
      WB_ASSIGN_OR_RETURN(work, store_internal::collect_rows<PerspectiveWork>(
                                    use, store_internal::decode_perspective_work<sqlite::Use>));
    }
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * lease, db.prepare(sqlite::sql::kLeasePerspectiveWork));
    for (const PerspectiveWork& item : work) {
      Use use(db, lease);
      use.bind_uuid(1, item.event_work_id.uuid());
      use.bind_uuid(2, self);
      use.bind_int(3, now + core_.lease_micros());
      use.bind_int(4, now);
      WB_RETURN_IF_ERROR(use.run());
    }
    return work;
  });
}

absl::StatusOr<PerspectiveCompletion> SqlitePerspectives::complete_perspective_work(
    std::span<const MessageId> event_work_ids) {
  return core_.gate.run([&]() -> absl::StatusOr<PerspectiveCompletion> {
    sqlite::Connection& db = *core_.connection;
    const Uuid& self = core_.options.instance.instance_id;
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * find, db.prepare(sqlite::sql::kPerspectiveWorkEvent));
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * erase, db.prepare(sqlite::sql::kDeletePerspectiveWork));
    std::vector<std::pair<MessageId, Uuid>> touched;  // (event, stream)
    std::vector<MessageId> completed;
    for (const MessageId& work_id : event_work_ids) {
      {
        Use use(db, find);
        use.bind_uuid(1, work_id.uuid());
        use.bind_uuid(2, self);
        WB_ASSIGN_OR_RETURN(bool found, use.step());
        // Already completed (by this or another worker), or claimed by another instance after
        // this one's lease lapsed: not ours to complete.
        if (!found) continue;
        touched.emplace_back(MessageId::from_trusted(use.uuid(0)), use.uuid(1));
      }
      Use use(db, erase);
      use.bind_uuid(1, work_id.uuid());
      WB_RETURN_IF_ERROR(use.run());
      completed.push_back(work_id);
    }
    PerspectiveCompletion completion;
    completion.work_completed = std::move(completed);
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * remaining,
                        db.prepare(sqlite::sql::kPerspectiveWorkRemaining));
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * lifecycle,
                        db.prepare(sqlite::sql::kInsertLifecycleCompletion));
    const std::int64_t now = core_.now_micros();
    for (const auto& [event_id, stream_id] : touched) {
      if (std::find(completion.events_completed.begin(), completion.events_completed.end(),
                    event_id) != completion.events_completed.end()) {
        continue;
      }
      {
        Use use(db, remaining);
        use.bind_uuid(1, event_id.uuid());
        WB_ASSIGN_OR_RETURN(bool row, use.step());
        if (!row || use.int64(0) != 0) continue;
      }
      // The gate opened: its stages are owed until they succeed (claim_lifecycle_work).
      Use use(db, lifecycle);
      use.bind_uuid(1, event_id.uuid());
      use.bind_uuid(2, stream_id);
      use.bind_uuid(3, self);
      use.bind_int(4, now + core_.lease_micros());
      use.bind_int(5, now);
      WB_RETURN_IF_ERROR(use.run());
      completion.events_completed.push_back(event_id);
    }
    // Read-your-writes waits wake on it (here and, on PostgreSQL, in other processes).
    if (!completion.work_completed.empty()) core_.gate.note({.perspectives_written = true});
    return completion;
  });
}

absl::Status SqlitePerspectives::fail_perspective_work(const MessageId& event_work_id,
                                                       std::string_view error, bool dead_letter,
                                                       const std::optional<RetryDecision>& retry) {
  return core_.gate.run([&]() -> absl::Status {
    core_.gate.note({.perspectives_written = true});  // a dead letter ends a wait
    return core_.fail_keyed(sqlite::sql::kFailPerspectiveWork, "wh_perspective_events",
                            event_work_id, error, dead_letter, retry);
  });
}

absl::StatusOr<std::optional<PerspectiveModelRow>> SqlitePerspectives::load_perspective_model(
    std::string_view perspective, const Uuid& stream_id) {
  return core_.gate.run_read([&]() -> absl::StatusOr<std::optional<PerspectiveModelRow>> {
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                        core_.connection->prepare(sqlite::sql::kLoadPerspectiveModel));
    Use use(*core_.connection, stmt);
    use.bind_text(1, perspective);
    use.bind_uuid(2, stream_id);
    WB_ASSIGN_OR_RETURN(bool found, use.step());
    if (!found) return std::optional<PerspectiveModelRow>();
    return std::optional<PerspectiveModelRow>(PerspectiveModelRow{
        use.text(0), MessageId::from_trusted(use.uuid(1)), from_unix_micros(use.int64(2))});
  });
}

absl::Status SqlitePerspectives::save_perspective_model(std::string_view perspective,
                                                        const Uuid& stream_id,
                                                        std::string_view model_json,
                                                        const MessageId& last_event_id) {
  return core_.gate.run([&]() -> absl::Status {
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                        core_.connection->prepare(sqlite::sql::kSavePerspectiveModel));
    Use use(*core_.connection, stmt);
    use.bind_text(1, perspective);
    use.bind_uuid(2, stream_id);
    use.bind_text(3, model_json);
    use.bind_uuid(4, last_event_id.uuid());
    use.bind_int(5, core_.now_micros());
    return use.run();
  });
}

absl::Status SqlitePerspectives::add_perspective_association(std::string_view message_type,
                                                             std::string_view perspective) {
  return core_.gate.run([&]() -> absl::Status {
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                        core_.connection->prepare(sqlite::sql::kInsertAssociation));
    Use use(*core_.connection, stmt);
    use.bind_text(1, message_type);
    use.bind_text(2, perspective);
    return use.run();
  });
}

}  // namespace whizbang

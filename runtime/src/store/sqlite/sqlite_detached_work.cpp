// SqliteWorkStore: detached work (wh_detached_work, migration 5) — Detached stages scheduled on
// an executor, kept until they ran.
#include "row_decoding.hpp"
#include "sqlite/sql.hpp"
#include "sqlite/sqlite_store_impl.hpp"

namespace whizbang {

using sqlite::Use;

absl::Status SqliteWorkStore::store_detached_work(const DetachedWork& work) {
  return impl_->gate.run([&]() -> absl::Status {
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                        impl_->connection->prepare(sqlite::sql::kInsertDetachedWork));
    const std::int64_t now = impl_->now_micros();
    Use use(*impl_->connection, stmt);
    use.bind_uuid(1, work.work_id.uuid());
    use.bind_uuid(2, work.message_id.uuid());
    use.bind_text(3, std::string_view(work.receptor_id));
    use.bind_int(4, static_cast<std::int64_t>(work.stage));
    use.bind_text(5, std::string_view(work.perspective));
    use.bind_text(6, std::string_view(work.envelope_json));
    use.bind_uuid(7, impl_->options.instance.instance_id);
    use.bind_int(8, now + impl_->lease_micros());
    use.bind_int(9, now);
    use.bind_text(10, std::string_view(work.message_type));
    return use.run();
  });
}

absl::StatusOr<std::vector<DetachedWork>> SqliteWorkStore::claim_detached_work(
    std::size_t max_items) {
  // An idle poll reads only (see process_work_batch).
  WB_ASSIGN_OR_RETURN(bool idle, impl_->nothing_claimable(sqlite::sql::kClaimableDetachedWork));
  if (idle) return std::vector<DetachedWork>();
  return impl_->gate.run([&]() -> absl::StatusOr<std::vector<DetachedWork>> {
    sqlite::Connection& db = *impl_->connection;
    const std::int64_t now = impl_->now_micros();
    const Uuid& self = impl_->options.instance.instance_id;
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
      use.bind_int(3, now + impl_->lease_micros());
      WB_RETURN_IF_ERROR(use.run());
    }
    return work;
  });
}

absl::StatusOr<bool> SqliteWorkStore::complete_detached_work(const MessageId& work_id) {
  return impl_->gate.run([&]() -> absl::StatusOr<bool> {
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                        impl_->connection->prepare(sqlite::sql::kDeleteDetachedWork));
    Use use(*impl_->connection, stmt);
    use.bind_uuid(1, work_id.uuid());
    use.bind_uuid(2, impl_->options.instance.instance_id);
    WB_RETURN_IF_ERROR(use.run());
    return use.changes() == 1;
  });
}

absl::Status SqliteWorkStore::fail_detached_work(const MessageId& work_id, std::string_view error,
                                                 bool dead_letter) {
  return impl_->gate.run([&]() -> absl::Status {
    return impl_->fail_keyed(sqlite::sql::kFailDetachedWork, "wh_detached_work", work_id, error,
                             dead_letter);
  });
}

}  // namespace whizbang

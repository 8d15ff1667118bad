// PostgresWorkStore: detached work — Detached stages scheduled on an executor, kept until they
// ran.
#include <algorithm>

#include "postgres/postgres_store_impl.hpp"
#include "postgres/sql.hpp"
#include "row_decoding.hpp"

namespace whizbang {

using postgres::Query;

absl::Status PostgresWorkStore::store_detached_work(const DetachedWork& work) {
  return impl_->gate.run([&]() -> absl::Status {
    const std::int64_t now = impl_->now_micros();
    Query query(*impl_->connection, postgres::sql::kInsertDetachedWork);
    query.bind_uuid(1, work.work_id.uuid());
    query.bind_uuid(2, work.message_id.uuid());
    query.bind_text(3, std::string_view(work.receptor_id));
    query.bind_int(4, static_cast<std::int64_t>(work.stage));
    query.bind_text(5, std::string_view(work.perspective));
    query.bind_text(6, std::string_view(work.envelope_json));
    query.bind_uuid(7, impl_->options.instance.instance_id);
    query.bind_int(8, now + impl_->lease_micros());
    query.bind_int(9, now);
    query.bind_text(10, std::string_view(work.message_type));
    return query.run();
  });
}

absl::StatusOr<std::vector<DetachedWork>> PostgresWorkStore::claim_detached_work(
    std::size_t max_items) {
  return impl_->gate.run([&]() -> absl::StatusOr<std::vector<DetachedWork>> {
    const std::int64_t now = impl_->now_micros();
    Query claim(*impl_->connection, postgres::sql::kClaimDetachedWork);
    claim.bind_int(1, now);
    claim.bind_uuid(2, impl_->options.instance.instance_id);
    claim.bind_int(3, static_cast<std::int64_t>(max_items));
    claim.bind_int(4, now + impl_->lease_micros());
    std::vector<DetachedWork> work;
    WB_ASSIGN_OR_RETURN(work, store_internal::collect_rows<DetachedWork>(
                                  claim, store_internal::decode_detached_work<postgres::Query>));
    std::sort(work.begin(), work.end(),
              [](const DetachedWork& a, const DetachedWork& b) { return a.work_id < b.work_id; });
    return work;
  });
}

absl::StatusOr<bool> PostgresWorkStore::complete_detached_work(const MessageId& work_id) {
  return impl_->gate.run([&]() -> absl::StatusOr<bool> {
    Query query(*impl_->connection, postgres::sql::kDeleteDetachedWork);
    query.bind_uuid(1, work_id.uuid());
    query.bind_uuid(2, impl_->options.instance.instance_id);
    WB_RETURN_IF_ERROR(query.run());
    return query.changes() == 1;
  });
}

absl::Status PostgresWorkStore::fail_detached_work(const MessageId& work_id, std::string_view error,
                                                   bool dead_letter) {
  return impl_->gate.run([&]() -> absl::Status {
    return impl_->fail_keyed(postgres::sql::kFailDetachedWork, "wh_detached_work", work_id, error,
                             dead_letter);
  });
}

}  // namespace whizbang

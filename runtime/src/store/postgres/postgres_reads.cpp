// PostgresWorkStore's reads of single rows (StoreReader), decoded by row_decoding.hpp.
#include "postgres/postgres_store_impl.hpp"
#include "postgres/sql.hpp"
#include "row_decoding.hpp"

namespace whizbang {

absl::StatusOr<std::optional<OutboxRow>> PostgresWorkStore::find_outbox_row(const MessageId& id) {
  return impl_->gate.run_read([&] {
    return postgres::read_row<OutboxRow>(*impl_->connection, postgres::sql::kFindOutbox, id.uuid(),
                                         store_internal::decode_outbox_row<postgres::Query>);
  });
}

absl::StatusOr<std::optional<InboxRow>> PostgresWorkStore::find_inbox_row(const MessageId& id) {
  return impl_->gate.run_read([&] {
    return postgres::read_row<InboxRow>(*impl_->connection, postgres::sql::kFindInbox, id.uuid(),
                                        store_internal::decode_inbox_row<postgres::Query>);
  });
}

absl::StatusOr<std::vector<PerspectiveEventRow>> PostgresWorkStore::perspective_events(
    const Uuid& stream_id) {
  return impl_->gate.run_read([&] {
    return postgres::read_rows<PerspectiveEventRow>(
        *impl_->connection, postgres::sql::kPerspectiveEvents, stream_id,
        store_internal::decode_perspective_event_row<postgres::Query>);
  });
}

}  // namespace whizbang

// SqliteWorkStore's reads of single rows (StoreReader), decoded by row_decoding.hpp.
#include "row_decoding.hpp"
#include "sqlite/sql.hpp"
#include "sqlite/sqlite_store_impl.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"

namespace whizbang {

absl::StatusOr<std::optional<OutboxRow>> SqliteWorkStore::find_outbox_row(const MessageId& id) {
  return impl_->gate.run_read([&] {
    return sqlite::read_row<OutboxRow>(*impl_->connection, sqlite::sql::kFindOutbox, id.uuid(),
                                       store_internal::decode_outbox_row<sqlite::Use>);
  });
}

absl::StatusOr<std::optional<InboxRow>> SqliteWorkStore::find_inbox_row(const MessageId& id) {
  return impl_->gate.run_read([&] {
    return sqlite::read_row<InboxRow>(*impl_->connection, sqlite::sql::kFindInbox, id.uuid(),
                                      store_internal::decode_inbox_row<sqlite::Use>);
  });
}

absl::StatusOr<std::vector<PerspectiveEventRow>> SqliteWorkStore::perspective_events(
    const Uuid& stream_id) {
  return impl_->gate.run_read([&] {
    return sqlite::read_rows<PerspectiveEventRow>(
        *impl_->connection, sqlite::sql::kPerspectiveEvents, stream_id,
        store_internal::decode_perspective_event_row<sqlite::Use>);
  });
}

}  // namespace whizbang

// SqliteWorkStore's reads of single rows and streams, decoded by row_decoding.hpp.
#include "row_decoding.hpp"
#include "sqlite/sql.hpp"
#include "sqlite/sqlite_store_impl.hpp"
#include "whizbang/store/sqlite/sqlite_work_store.hpp"

namespace whizbang {

namespace {

// Every row `sql` (with ?1 = `key`) selects, decoded.
template <class Row, class Decode>
absl::StatusOr<std::vector<Row>> read_rows(sqlite::Connection& connection, const std::string& sql,
                                           const Uuid& key, Decode decode) {
  WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt, connection.prepare(sql));
  sqlite::Use use(connection, stmt);
  use.bind_uuid(1, key);
  return store_internal::collect_rows<Row>(use, decode);
}

template <class Row, class Decode>
absl::StatusOr<std::optional<Row>> read_row(sqlite::Connection& connection, const std::string& sql,
                                            const Uuid& key, Decode decode) {
  WB_ASSIGN_OR_RETURN(std::vector<Row> rows, read_rows<Row>(connection, sql, key, decode));
  if (rows.empty()) return std::optional<Row>();
  return std::optional<Row>(std::move(rows.front()));
}

}  // namespace

absl::StatusOr<std::optional<OutboxRow>> SqliteWorkStore::find_outbox_row(const MessageId& id) {
  return impl_->gate.run_read([&] {
    return read_row<OutboxRow>(*impl_->connection, sqlite::sql::kFindOutbox, id.uuid(),
                               store_internal::decode_outbox_row<sqlite::Use>);
  });
}

absl::StatusOr<std::optional<InboxRow>> SqliteWorkStore::find_inbox_row(const MessageId& id) {
  return impl_->gate.run_read([&] {
    return read_row<InboxRow>(*impl_->connection, sqlite::sql::kFindInbox, id.uuid(),
                              store_internal::decode_inbox_row<sqlite::Use>);
  });
}

absl::StatusOr<std::vector<StoredEvent>> SqliteWorkStore::read_stream(const Uuid& stream_id) {
  return impl_->gate.run_read([&] {
    return read_rows<StoredEvent>(*impl_->connection, sqlite::sql::kReadStream, stream_id,
                                  store_internal::decode_event_row<sqlite::Use>);
  });
}

absl::StatusOr<std::vector<PerspectiveEventRow>> SqliteWorkStore::perspective_events(
    const Uuid& stream_id) {
  return impl_->gate.run_read([&] {
    return read_rows<PerspectiveEventRow>(
        *impl_->connection, sqlite::sql::kPerspectiveEvents, stream_id,
        store_internal::decode_perspective_event_row<sqlite::Use>);
  });
}

}  // namespace whizbang

// SqliteEventStore: the event-store role (reading a stream) on SQLite.
#include "sqlite/sqlite_event_store.hpp"

#include "row_decoding.hpp"
#include "sqlite/sql.hpp"
#include "sqlite/sqlite_core.hpp"

namespace whizbang {

absl::StatusOr<std::vector<StoredEvent>> SqliteEventStore::read_stream(const Uuid& stream_id) {
  return core_.gate.run_read([&] {
    return sqlite::read_rows<StoredEvent>(*core_.connection, sqlite::sql::kReadStream, stream_id,
                                          store_internal::decode_event_row<sqlite::Use>);
  });
}

}  // namespace whizbang

// PostgresEventStore: the event-store role (reading a stream) on PostgreSQL.
#include "postgres/postgres_event_store.hpp"

#include "postgres/postgres_core.hpp"
#include "postgres/sql.hpp"
#include "row_decoding.hpp"

namespace whizbang {

absl::StatusOr<std::vector<StoredEvent>> PostgresEventStore::read_stream(const Uuid& stream_id) {
  return core_.gate.run_read([&] {
    return postgres::read_rows<StoredEvent>(*core_.connection, postgres::sql::kReadStream,
                                            stream_id,
                                            store_internal::decode_event_row<postgres::Query>);
  });
}

}  // namespace whizbang

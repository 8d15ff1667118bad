#include "whizbang/store/postgres/postgres_store_inspector.hpp"

#include <cstdlib>

#include "fmt/format.h"
#include "postgres/connection.hpp"
#include "postgres/sql.hpp"
#include "row_decoding.hpp"
#include "store_support.hpp"
#include "whizbang/store/postgres/postgres_work_store.hpp"

namespace whizbang {

using postgres::Query;

struct PostgresStoreInspector::Impl {
  std::unique_ptr<postgres::Connection> connection;
  std::string location;
  int schema_version = 0;

  // Every row `sql` selects with ?1 = `limit` (negative: no limit), decoded.
  template <class Row, class Decode>
  absl::StatusOr<std::vector<Row>> recent(const std::string& sql, int limit, Decode decode) {
    Query query(*connection, sql);
    if (limit >= 0) query.bind_int(1, limit);
    return store_internal::collect_rows<Row>(query, decode);
  }
};

absl::StatusOr<std::unique_ptr<PostgresStoreInspector>> PostgresStoreInspector::open(
    std::string conninfo) {
  if (conninfo.empty()) {
    if (const char* from_environment = std::getenv(PostgresWorkStore::kConninfoVariable)) {
      conninfo = from_environment;
    }
  }
  if (conninfo.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("PostgreSQL store: no conninfo given and {} is not set",
                    PostgresWorkStore::kConninfoVariable));
  }
  WB_ASSIGN_OR_RETURN(std::unique_ptr<postgres::Connection> connection,
                      postgres::Connection::open(conninfo));
  WB_RETURN_IF_ERROR(connection->configure_session("SET default_transaction_read_only = on"));
  WB_RETURN_IF_ERROR(connection->configure_session("SET jit = off"));
  auto impl = std::make_unique<Impl>();
  impl->location = connection->describe();
  {
    Query has_store(*connection,
                    "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() "
                    "AND tablename IN ('wh_schema_version', 'wh_outbox')");
    WB_ASSIGN_OR_RETURN(bool row, has_store.step());
    if (!row || has_store.int64(0) != 2) {
      return absl::FailedPreconditionError(
          fmt::format("{}: the schema holds no Whizbang store (no wh_schema_version and wh_outbox "
                      "tables; is search_path the store's schema?)",
                      impl->location));
    }
  }
  Query version(*connection, "SELECT COALESCE(MAX(version), 0) FROM wh_schema_version");
  WB_ASSIGN_OR_RETURN(bool row, version.step());
  impl->schema_version = row ? static_cast<int>(version.int64(0)) : 0;
  impl->connection = std::move(connection);
  return std::unique_ptr<PostgresStoreInspector>(new PostgresStoreInspector(std::move(impl)));
}

PostgresStoreInspector::PostgresStoreInspector(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}
PostgresStoreInspector::~PostgresStoreInspector() = default;

const std::string& PostgresStoreInspector::location() const { return impl_->location; }
int PostgresStoreInspector::schema_version() const { return impl_->schema_version; }
int PostgresStoreInspector::known_schema_version() const {
  return PostgresWorkStore::latest_schema_version();
}

absl::StatusOr<StoreCounts> PostgresStoreInspector::counts() {
  Query query(*impl_->connection, postgres::sql::kCounts);
  WB_ASSIGN_OR_RETURN(bool row, query.step());
  StoreCounts counts;
  if (!row) return counts;
  counts.outbox = query.int64(0);
  counts.outbox_tombstones = query.int64(1);
  counts.inbox = query.int64(2);
  counts.event_store = query.int64(3);
  counts.perspective_events = query.int64(4);
  counts.receptor_invocations = query.int64(5);
  int column = 6;
  for (const char* table : postgres::sql::kDeadLetterTables) {
    counts.dead_lettered[table] = query.int64(column++);
  }
  return counts;
}

absl::StatusOr<std::vector<OutboxRow>> PostgresStoreInspector::recent_outbox(int limit) {
  return impl_->recent<OutboxRow>(postgres::sql::kRecentOutbox, limit,
                                  store_internal::decode_outbox_row<postgres::Query>);
}
absl::StatusOr<std::vector<InboxRow>> PostgresStoreInspector::recent_inbox(int limit) {
  return impl_->recent<InboxRow>(postgres::sql::kRecentInbox, limit,
                                 store_internal::decode_inbox_row<postgres::Query>);
}
absl::StatusOr<std::vector<StoredEvent>> PostgresStoreInspector::recent_events(int limit) {
  return impl_->recent<StoredEvent>(postgres::sql::kRecentEvents, limit,
                                    store_internal::decode_event_row<postgres::Query>);
}
absl::StatusOr<std::vector<PerspectiveEventRow>> PostgresStoreInspector::recent_perspective_events(
    int limit) {
  return impl_->recent<PerspectiveEventRow>(
      postgres::sql::kRecentPerspectiveEvents, limit,
      store_internal::decode_perspective_event_row<postgres::Query>);
}
absl::StatusOr<std::vector<StoredReceptorInvocation>>
PostgresStoreInspector::recent_receptor_invocations(int limit) {
  return impl_->recent<StoredReceptorInvocation>(
      postgres::sql::kRecentInvocations, limit,
      store_internal::decode_receptor_invocation_row<postgres::Query>);
}

absl::StatusOr<std::vector<StoredEvent>> PostgresStoreInspector::read_stream(
    const Uuid& stream_id) {
  Query query(*impl_->connection, postgres::sql::kReadStream);
  query.bind_uuid(1, stream_id);
  return store_internal::collect_rows<StoredEvent>(
      query, store_internal::decode_event_row<postgres::Query>);
}

absl::StatusOr<std::vector<DeadLetter>> PostgresStoreInspector::dead_letters(int limit) {
  return impl_->recent<DeadLetter>(postgres::sql::kDeadLetters, limit,
                                   store_internal::decode_dead_letter<postgres::Query>);
}

}  // namespace whizbang

// PostgresWorkStore: connecting, migrating and composing its role objects.
#include "whizbang/store/postgres/postgres_work_store.hpp"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "fmt/format.h"
#include "postgres/binary_array.hpp"
#include "postgres/migrations.hpp"
#include "postgres/postgres_store_impl.hpp"
#include "postgres/sql.hpp"
#include "row_decoding.hpp"

namespace whizbang {

using postgres::Query;

absl::StatusOr<std::unique_ptr<PostgresWorkStore>> PostgresWorkStore::open(std::string conninfo,
                                                                           StoreOptions options) {
  if (conninfo.empty()) {
    if (const char* from_environment = std::getenv(kConninfoVariable)) conninfo = from_environment;
  }
  if (conninfo.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("PostgreSQL store: no conninfo given and {} is not set", kConninfoVariable));
  }
  WB_ASSIGN_OR_RETURN(std::unique_ptr<postgres::Connection> connection,
                      postgres::Connection::open(conninfo));
  // Short statements only: compiling one with JIT costs more than running it (tens of ms).
  WB_RETURN_IF_ERROR(connection->configure_session("SET jit = off"));
  WB_ASSIGN_OR_RETURN(int version, postgres::migrate(*connection));
  if (options.durability == Durability::Normal) {
    WB_RETURN_IF_ERROR(connection->configure_session("SET synchronous_commit = off"));
  }
  // One channel per schema: the instances of one store, and no other store, hear each other.
  std::string schema;
  {
    Query query(*connection, "SELECT current_schema()");
    WB_ASSIGN_OR_RETURN(bool row, query.step());
    if (row) schema = query.text(0);
  }
  auto impl = std::make_unique<Impl>(std::move(connection), std::move(options));
  impl->schema_version = version;
  impl->conninfo = std::move(conninfo);
  impl->channel = "wh_work_" + schema.substr(0, 50);
  return std::unique_ptr<PostgresWorkStore>(new PostgresWorkStore(std::move(impl)));
}

int PostgresWorkStore::latest_schema_version() { return postgres::latest_schema_version(); }

PostgresWorkStore::PostgresWorkStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {
  compose(impl_->roles());
}

PostgresWorkStore::~PostgresWorkStore() = default;

int PostgresWorkStore::schema_version() const { return impl_->schema_version; }

const StoreOptions& PostgresWorkStore::options() const { return impl_->options; }

}  // namespace whizbang

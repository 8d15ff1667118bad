// open_work_store: picks the backend from a store location, so a host switches between SQLite
// and PostgreSQL by configuration alone (docs/guide/06-stores-and-workers.md).
//
//   "orders.db", "sqlite:orders.db"            SqliteWorkStore on that file
//   "postgresql://orders@db/orders", "postgres://…", "host=db dbname=orders"
//                                              PostgresWorkStore on that database
//   "postgresql:" (nothing after the colon)    PostgresWorkStore on WHIZBANG_PG_CONNINFO
//   "memory:"                                  MemoryWorkStore (nothing kept)
//
//   auto store = whizbang::open_work_store(config.store, options);
//   if (!store.ok()) return store.status();
#pragma once

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "whizbang/store/store_options.hpp"
#include "whizbang/store/work_store.hpp"

namespace whizbang {

enum class StoreBackend { Memory, Sqlite, Postgres };

// The backend `location` names, and what that backend opens (a path or a conninfo).
struct StoreLocation {
  StoreBackend backend = StoreBackend::Sqlite;
  std::string target;
};
StoreLocation parse_store_location(std::string_view location);

// Opens the store `location` names (see above), with the backend's own errors.
absl::StatusOr<std::unique_ptr<WorkStore>> open_work_store(std::string_view location,
                                                           StoreOptions options = {});

}  // namespace whizbang

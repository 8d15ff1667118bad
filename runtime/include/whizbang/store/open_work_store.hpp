// open_work_store: picks the backend from a store location, so a host switches between SQLite
// and PostgreSQL by configuration alone (docs/guide/06-stores-and-workers.md, "Store locations").
//
//   "memory:"                                  MemoryWorkStore (nothing kept)
//   "sqlite:PATH"                              SqliteWorkStore on PATH, whatever it looks like
//   "postgresql:" / "postgres:" (alone)        PostgresWorkStore on WHIZBANG_PG_CONNINFO
//   "postgresql://orders@db/orders", "postgres://…"
//                                              PostgresWorkStore on that database
//   an existing file ("orders.db", "/srv/a=b/orders.db")
//                                              SqliteWorkStore on that file
//   libpq key=value pairs ("host=db dbname=orders", "host=/run/postgresql dbname=orders")
//                                              PostgresWorkStore: at least one keyword is
//                                              libpq's own (host, dbname, user, port, ...)
//   anything else ("orders.db", "a=b/orders.db", "orders=1.db")
//                                              SqliteWorkStore on that path (created if missing)
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

// The backend `location` names (the rule above), and what that backend opens (a path or a
// conninfo). Looks at the file system only to see whether `location` names an existing file.
struct StoreLocation {
  StoreBackend backend = StoreBackend::Sqlite;
  std::string target;
};
StoreLocation parse_store_location(std::string_view location);

// Opens the store `location` names (see above), with the backend's own errors.
absl::StatusOr<std::unique_ptr<WorkStore>> open_work_store(std::string_view location,
                                                           StoreOptions options = {});

}  // namespace whizbang

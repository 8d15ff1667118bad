// The PostgreSQL schema as numbered migrations, applied in order at open.
//
// wh_schema_version holds one row per applied migration, as in the SQLite backend. The schema
// lives in the connection's current schema (search_path), so one database can hold several
// stores. Never edit a migration that has shipped: add the next one.
#pragma once

#include <span>
#include <string_view>

#include "absl/status/statusor.h"
#include "postgres/connection.hpp"

namespace whizbang::postgres {

struct Migration {
  int version;
  std::string_view name;
  std::string_view sql;
};

std::span<const Migration> migrations();
int latest_schema_version();

// Applies the missing migrations in one transaction under an advisory lock, so many instances
// starting at once against a new database take turns and each finds the schema the previous one
// left. Returns the resulting version. FailedPrecondition when the schema is newer than this
// runtime, or holds Whizbang tables without wh_schema_version.
absl::StatusOr<int> migrate(Connection& connection);

}  // namespace whizbang::postgres

// The SQLite schema as numbered migrations, applied in order at open.
//
// wh_schema_version holds one row per applied migration. A fresh file gets all of them; an
// older file gets the ones it lacks; a newer file (from a later runtime) is refused. Never edit
// a migration that has shipped: add the next one.
#pragma once

#include <span>
#include <string_view>

#include "absl/status/statusor.h"
#include "sqlite/statement.hpp"

namespace whizbang::sqlite {

struct Migration {
  int version;
  std::string_view name;
  std::string_view sql;
};

std::span<const Migration> migrations();
int latest_schema_version();

// Checks that `connection` is an SQLite file that is empty or a Whizbang store, then applies
// the missing migrations, all in one write transaction (BEGIN IMMEDIATE: concurrent first opens
// of one file take turns). Returns the resulting version.
// FailedPrecondition for a database that is not a Whizbang store or is newer than this runtime;
// DataLoss for a file that is not SQLite.
absl::StatusOr<int> migrate(Connection& connection);

}  // namespace whizbang::sqlite

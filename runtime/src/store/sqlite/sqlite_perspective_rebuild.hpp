// SqlitePerspectiveRebuild: the perspective-rebuild role on SQLite: the shared SQL implementation
// (sql_perspective_rebuild.hpp) with SQLite's statements.
#pragma once

#include "sql_perspective_rebuild.hpp"

namespace whizbang {

// SQLite's statements of the rebuild role.
const RebuildDialect& sqlite_rebuild_dialect();

}  // namespace whizbang

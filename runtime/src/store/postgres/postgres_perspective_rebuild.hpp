// PostgresPerspectiveRebuild: the perspective-rebuild role on PostgreSQL: the shared SQL
// implementation (sql_perspective_rebuild.hpp) with PostgreSQL's statements.
#pragma once

#include "sql_perspective_rebuild.hpp"

namespace whizbang {

// PostgreSQL's statements of the rebuild role.
const RebuildDialect& postgres_rebuild_dialect();

}  // namespace whizbang

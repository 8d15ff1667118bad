// The SQL of the SQLite backend, one header per role under sql/ (the shapes both backends share:
// store/sql_shapes.hpp; how this backend spells them: sql/dialect.hpp).
#pragma once

#include "sqlite/sql/coordination_sql.hpp"
#include "sqlite/sql/dialect.hpp"
#include "sqlite/sql/operations_sql.hpp"
#include "sqlite/sql/perspectives_sql.hpp"
#include "sqlite/sql/reads_sql.hpp"
#include "sqlite/sql/stage_work_sql.hpp"
#include "sqlite/sql/storage_sql.hpp"

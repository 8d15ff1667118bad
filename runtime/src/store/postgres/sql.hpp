// The SQL of the PostgreSQL backend, one header per role under sql/ (the shapes both backends
// share: store/sql_shapes.hpp; how this backend spells them: sql/dialect.hpp).
#pragma once

#include "store/postgres/sql/coordination_sql.hpp"
#include "store/postgres/sql/dialect.hpp"
#include "store/postgres/sql/operations_sql.hpp"
#include "store/postgres/sql/perspectives_sql.hpp"
#include "store/postgres/sql/reads_sql.hpp"
#include "store/postgres/sql/stage_work_sql.hpp"
#include "store/postgres/sql/storage_sql.hpp"

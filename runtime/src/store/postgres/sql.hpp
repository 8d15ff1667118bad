// The SQL of the PostgreSQL backend, one header per role under sql/ (the shapes both backends
// share: store/sql_shapes.hpp; how this backend spells them: sql/dialect.hpp).
#pragma once

#include "postgres/sql/coordination_sql.hpp"
#include "postgres/sql/dialect.hpp"
#include "postgres/sql/operations_sql.hpp"
#include "postgres/sql/perspectives_sql.hpp"
#include "postgres/sql/reads_sql.hpp"
#include "postgres/sql/stage_work_sql.hpp"
#include "postgres/sql/storage_sql.hpp"

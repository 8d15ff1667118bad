// PostgreSQL SQL: reading a perspective's models page by page (list_perspective_models), as the
// text their codec wrote (model_data; `model` is its jsonb twin for users' SQL, migration 7).
#pragma once

#include <string>

namespace whizbang::postgres::sql {

// $1 perspective $2 limit; the primary key (perspective_name, stream_id) serves both.
inline const std::string kListPerspectiveModelsFirst =
    "SELECT stream_id, model_data, last_event_id, updated_at FROM wh_perspective_models "
    "WHERE perspective_name = $1::text ORDER BY stream_id LIMIT $2::bigint";
// $1 perspective $2 after this stream $3 limit
inline const std::string kListPerspectiveModelsAfter =
    "SELECT stream_id, model_data, last_event_id, updated_at FROM wh_perspective_models "
    "WHERE perspective_name = $1::text AND stream_id > $2::uuid ORDER BY stream_id "
    "LIMIT $3::bigint";

}  // namespace whizbang::postgres::sql

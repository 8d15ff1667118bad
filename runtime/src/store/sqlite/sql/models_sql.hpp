// SQLite SQL: reading a perspective's models page by page (list_perspective_models).
#pragma once

#include <string>

namespace whizbang::sqlite::sql {

// ?1 perspective ?2 limit; the primary key (perspective_name, stream_id) serves both.
inline const std::string kListPerspectiveModelsFirst =
    "SELECT stream_id, model_data, last_event_id, updated_at FROM wh_perspective_models "
    "WHERE perspective_name = ?1 ORDER BY stream_id LIMIT ?2";
// ?1 perspective ?2 after this stream ?3 limit
inline const std::string kListPerspectiveModelsAfter =
    "SELECT stream_id, model_data, last_event_id, updated_at FROM wh_perspective_models "
    "WHERE perspective_name = ?1 AND stream_id > ?2 ORDER BY stream_id LIMIT ?3";

}  // namespace whizbang::sqlite::sql

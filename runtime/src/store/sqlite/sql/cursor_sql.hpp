// SQLite SQL: perspective cursors (rewind detection; docs/perspectives.md, "Rewind").
#pragma once

#include <string>

namespace whizbang::sqlite::sql {

// ?1 perspective ?2 stream
inline const std::string kLoadPerspectiveCursor =
    "SELECT last_event_id, last_stream_version, last_occurred_at, rewind_count, updated_at "
    "FROM wh_perspective_cursors WHERE perspective_name = ?1 AND stream_id = ?2";
// ?1 perspective ?2 stream ?3 last event ?4 version ?5 occurred at ?6 rewinds ?7 now
inline const std::string kSavePerspectiveCursor =
    "INSERT INTO wh_perspective_cursors (perspective_name, stream_id, last_event_id, "
    "last_stream_version, last_occurred_at, rewind_count, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, "
    "?6, ?7) ON CONFLICT (perspective_name, stream_id) DO UPDATE SET last_event_id = "
    "excluded.last_event_id, last_stream_version = excluded.last_stream_version, "
    "last_occurred_at = excluded.last_occurred_at, rewind_count = excluded.rewind_count, "
    "updated_at = excluded.updated_at";

}  // namespace whizbang::sqlite::sql

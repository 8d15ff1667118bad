// SQLite SQL: where events stand with the perspectives (read-your-writes; docs/perspectives.md,
// "Read-your-writes").
#pragma once

#include <string>

namespace whizbang::sqlite::sql {

// ?1 event
inline const std::string kEventStored = "SELECT 1 FROM wh_event_store WHERE event_id = ?1";
// ?1 event: its perspective events not yet applied (a completed one is deleted).
inline const std::string kEventPendingPerspectives =
    "SELECT perspective_name, dead_lettered_at IS NOT NULL, COALESCE(error, '') "
    "FROM wh_perspective_events WHERE event_id = ?1 AND processed_at IS NULL "
    "ORDER BY perspective_name";

}  // namespace whizbang::sqlite::sql

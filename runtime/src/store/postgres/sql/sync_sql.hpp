// PostgreSQL SQL: where events stand with the perspectives (read-your-writes;
// docs/perspectives.md, "Read-your-writes").
#pragma once

#include <string>

namespace whizbang::postgres::sql {

// $1 the events, a uuid[] literal
inline const std::string kEventsStored =
    "SELECT event_id FROM wh_event_store WHERE event_id = ANY($1::uuid[])";
// $1 the events: their perspective events not yet applied (a completed one is deleted), in no
// order (the caller sorts the few it gets). Ordered by perspective name here, the statement let a
// planner that believed the table empty walk the lane index, whose first column that is, past
// every row of the table instead of looking the events up.
inline const std::string kEventsPendingPerspectives =
    "SELECT event_id, perspective_name, dead_lettered_at IS NOT NULL, COALESCE(error, '') "
    "FROM wh_perspective_events WHERE event_id = ANY($1::uuid[]) AND processed_at IS NULL";

}  // namespace whizbang::postgres::sql

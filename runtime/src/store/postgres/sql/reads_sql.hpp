// PostgreSQL SQL: reads of single rows and streams, and the inspector's listings.
#pragma once

#include <string>
#include <string_view>

#include "postgres/sql/dialect.hpp"
#include "postgres/sql/operations_sql.hpp"

namespace whizbang::postgres::sql {

// ---- row reads (decoded by row_decoding.hpp, in these column orders) --------------------------
// The columns of `list` (sql_shapes.hpp, in the decoder's order), a NULL typed as a bigint.
inline std::string columns(shapes::ColumnList list) {
  std::string sql;
  for (std::string_view column : list) {
    if (!sql.empty()) sql += ", ";
    sql += column == "NULL" ? Dialect::kNullBigint : column;
  }
  return sql;
}
// ?1 id
inline const std::string kFindOutbox =
    "SELECT " + columns(shapes::kOutboxRowColumns) + " FROM wh_outbox WHERE message_id = $1::uuid";
inline const std::string kFindInbox =
    "SELECT " + columns(shapes::kInboxRowColumns) + " FROM wh_inbox WHERE message_id = $1::uuid";
// ?1 stream
inline const std::string kReadStream = "SELECT " + columns(shapes::kEventRowColumns) +
                                       " FROM wh_event_store WHERE stream_id = $1::uuid "
                                       "ORDER BY version";
inline const std::string kPerspectiveEvents =
    "SELECT " + columns(shapes::kPerspectiveEventRowColumns) +
    " FROM wh_perspective_events WHERE stream_id = $1::uuid "
    "ORDER BY stream_version, perspective_name COLLATE \"C\"";

// ---- the inspector's listings: the row reads above, newest first, ?1 limit (NULL: all) -------
// The SELECT of `list` from `table`, newest first.
inline std::string recent_rows(shapes::ColumnList list, std::string_view table,
                               std::string_view newest_first) {
  return "SELECT " + columns(list) + " FROM " + std::string(table) + " ORDER BY " +
         std::string(newest_first) + " LIMIT $1::bigint";
}
inline const std::string kRecentOutbox =
    recent_rows(shapes::kOutboxRowColumns, "wh_outbox", "created_at DESC, message_id DESC");
inline const std::string kRecentInbox =
    recent_rows(shapes::kInboxRowColumns, "wh_inbox", "received_at DESC, message_id DESC");
inline const std::string kRecentEvents =
    recent_rows(shapes::kEventRowColumns, "wh_event_store", "created_at DESC, event_id DESC");
inline const std::string kRecentPerspectiveEvents =
    recent_rows(shapes::kPerspectiveEventRowColumns, "wh_perspective_events",
                "created_at DESC, event_work_id DESC");
inline const std::string kRecentInvocations =
    recent_rows(shapes::kReceptorInvocationRowColumns, "wh_receptor_invocations",
                "completed_at DESC, message_id DESC");
// Row counts (StoreCounts), in its order; the ids of published rows count as the outbox's
// tombstones.
inline const std::string kCounts =
    std::string(
        "SELECT (SELECT count(*) FROM wh_outbox), (SELECT count(*) FROM wh_outbox_ids AS "
        "ids WHERE ") +
    kRowPublished +
    "), "
    "(SELECT count(*) FROM wh_inbox), (SELECT count(*) FROM wh_event_store), "
    "(SELECT count(*) FROM wh_perspective_events), (SELECT count(*) FROM wh_receptor_invocations), "
    "(SELECT count(*) FROM wh_outbox WHERE dead_lettered_at IS NOT NULL), "
    "(SELECT count(*) FROM wh_inbox WHERE dead_lettered_at IS NOT NULL), "
    "(SELECT count(*) FROM wh_perspective_events WHERE dead_lettered_at IS NOT NULL), "
    "(SELECT count(*) FROM wh_lifecycle_completions WHERE dead_lettered_at IS NOT NULL), "
    "(SELECT count(*) FROM wh_detached_work WHERE dead_lettered_at IS NOT NULL)";
// The tables of kCounts' dead-letter columns (6..10).
inline constexpr const char* kDeadLetterTables[] = {"wh_outbox", "wh_inbox",
                                                    "wh_perspective_events",
                                                    "wh_lifecycle_completions", "wh_detached_work"};

}  // namespace whizbang::postgres::sql

// SQLite SQL: reads of single rows and streams, and the inspector's listings.
#pragma once

#include <string>
#include <string_view>

#include "sqlite/sql/dialect.hpp"

namespace whizbang::sqlite::sql {

// ---- row reads --------------------------------------------------------------------------------
// The row column lists both backends read (sql_shapes.hpp).
using shapes::ColumnList;
using shapes::kEventRowColumns;
using shapes::kInboxRowColumns;
using shapes::kOutboxRowColumns;
using shapes::kPerspectiveEventRowColumns;
using shapes::kReceptorInvocationRowColumns;

// "a, b, c" for a SELECT of `table`; a column for which `present` answers false is selected as
// NULL. An outbox or inbox row's status is selected as it reads (status_read).
template <class Present>
std::string select_columns(std::string_view table, ColumnList columns, Present present) {
  const bool work_row = table == "wh_outbox" || table == "wh_inbox";
  std::string list;
  for (std::string_view column : columns) {
    if (!list.empty()) list += ", ";
    if (column != "NULL" && !present(column)) {
      list += "NULL";
    } else if (work_row && column == "status") {
      list += status_read(table);
    } else {
      list += column;
    }
  }
  return list;
}
inline std::string select_columns(std::string_view table, ColumnList columns) {
  return select_columns(table, columns, [](std::string_view) { return true; });
}

// ?1 id
inline const std::string kFindOutbox = "SELECT " + select_columns("wh_outbox", kOutboxRowColumns) +
                                       " FROM wh_outbox WHERE message_id = ?1";
inline const std::string kFindInbox = "SELECT " + select_columns("wh_inbox", kInboxRowColumns) +
                                      " FROM wh_inbox WHERE message_id = ?1";
// ?1 stream
inline const std::string kReadStream = "SELECT " +
                                       select_columns("wh_event_store", kEventRowColumns) +
                                       " FROM wh_event_store WHERE stream_id = ?1 ORDER BY version";
inline const std::string kPerspectiveEvents =
    "SELECT " + select_columns("wh_perspective_events", kPerspectiveEventRowColumns) +
    " FROM wh_perspective_events WHERE stream_id = ?1 ORDER BY stream_version, perspective_name";

// The inspector's newest-first listings: a table's row columns, newest first, ?1 limit
// (negative: all).
struct RecentListing {
  std::string_view table;
  ColumnList columns;
  std::string_view newest_first;  // ORDER BY
};
inline constexpr RecentListing kRecentOutbox{"wh_outbox", kOutboxRowColumns,
                                             "created_at DESC, message_id DESC"};
inline constexpr RecentListing kRecentInbox{"wh_inbox", kInboxRowColumns,
                                            "received_at DESC, message_id DESC"};
inline constexpr RecentListing kRecentEvents{"wh_event_store", kEventRowColumns,
                                             "created_at DESC, event_id DESC"};
inline constexpr RecentListing kRecentPerspectiveEvents{
    "wh_perspective_events", kPerspectiveEventRowColumns, "created_at DESC, event_work_id DESC"};
inline constexpr RecentListing kRecentInvocations{
    "wh_receptor_invocations", kReceptorInvocationRowColumns, "completed_at DESC, message_id DESC"};
// The SELECT of `listing`, given which columns the file's table has.
template <class Present>
std::string recent_rows(const RecentListing& listing, Present present) {
  return "SELECT " + select_columns(listing.table, listing.columns, present) + " FROM " +
         std::string(listing.table) + " ORDER BY " + std::string(listing.newest_first) +
         " LIMIT ?1";
}

// The inspector's look at a file: its tables, a table's columns, the tables that keep dead
// letters (those with a dead_lettered_at column).
inline const std::string kTables = "SELECT name FROM sqlite_master WHERE type = 'table'";
inline const std::string kTableColumns = "SELECT name FROM pragma_table_info(?1)";
inline const std::string kDeadLetterTables =
    "SELECT m.name FROM sqlite_master AS m JOIN pragma_table_info(m.name) AS c "
    "WHERE m.type = 'table' AND m.name LIKE 'wh\\_%' ESCAPE '\\' "
    "AND c.name = 'dead_lettered_at' ORDER BY m.name";

}  // namespace whizbang::sqlite::sql

// The SQLite dialect: how its SQL spells what both backends share (sql_shapes.hpp), and the
// shapes only it has. The SQL of the SQLite backend. Statements are cache keys
// (Connection::prepare), so each is one constant string. Outbox and inbox share their lease/retry
// columns; `table(source)` picks one.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "sql_shapes.hpp"
#include "whizbang/store/store_rows.hpp"
#include "whizbang/store/work_item.hpp"

namespace whizbang::sqlite::sql {

// ?n: SQLite binds by number and takes each value's own type; an untyped NULL is any type.
struct Dialect {
  static std::string param(int n, std::string_view /*type*/) {
    std::string spelled = "?";  // appended, not `"?" + …`: GCC 12 warns falsely on that
    spelled += std::to_string(n);
    return spelled;
  }
  static constexpr std::string_view kNullUuid = "NULL";
  static constexpr std::string_view kNullBigint = "NULL";
};

namespace shapes = store_internal::sql_shapes;
using shapes::number;
using shapes::table;

// The lease and retry rules every failing table shares (sql_shapes.hpp), in this dialect.
inline const std::string kOwnedBy2 = shapes::owned_by_2<Dialect>();
inline std::string failure_columns() { return shapes::failure_columns<Dialect>(); }
inline std::string failure_reason_columns() { return shapes::failure_reason_columns<Dialect>(); }

// An outbox or inbox row's status as it reads: the stored bits, plus EventStored when the row is
// an event on a stream whose event is in the event store. On SQLite the event's presence is the
// mark, so the claim that appends it does not rewrite the row (envelope and all) to say so
// (docs/guide/06-stores-and-workers.md, "What a claim writes"). `row`: the table or its alias.
inline std::string status_read(std::string_view row) {
  const std::string r(row);
  return "(" + r + ".status | CASE WHEN " + r + ".is_event <> 0 AND " + r +
         ".stream_id IS NOT NULL AND EXISTS (SELECT 1 FROM wh_event_store AS stored "
         "WHERE stored.event_id = " +
         r + ".message_id) THEN " + number(MessageStatus::EventStored) + " ELSE 0 END)";
}

}  // namespace whizbang::sqlite::sql

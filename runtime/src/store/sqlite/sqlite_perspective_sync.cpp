// SqlitePerspectiveSync: the perspective-sync role (cursors per stream, events still pending) on
// SQLite.
#include "sqlite/sqlite_perspective_sync.hpp"

#include "row_decoding.hpp"
#include "sqlite/sql/cursor_sql.hpp"
#include "sqlite/sql/sync_sql.hpp"
#include "sqlite/sqlite_core.hpp"

namespace whizbang {

using sqlite::Use;

absl::StatusOr<std::optional<PerspectiveCursor>> SqlitePerspectiveSync::load_perspective_cursor(
    std::string_view perspective, const Uuid& stream_id) {
  return core_.gate.run_read([&]() -> absl::StatusOr<std::optional<PerspectiveCursor>> {
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                        core_.connection->prepare(sqlite::sql::kLoadPerspectiveCursor));
    Use use(*core_.connection, stmt);
    use.bind_text(1, perspective);
    use.bind_uuid(2, stream_id);
    WB_ASSIGN_OR_RETURN(bool found, use.step());
    if (!found) return std::optional<PerspectiveCursor>();
    PerspectiveCursor cursor;
    cursor.perspective_name = std::string(perspective);
    cursor.stream_id = stream_id;
    cursor.last_event_id = MessageId::from_trusted(use.uuid(0));
    cursor.last_stream_version = use.int64(1);
    cursor.last_occurred_at_us = use.int64(2);
    cursor.rewind_count = use.int64(3);
    cursor.updated_at = from_unix_micros(use.int64(4));
    return std::optional<PerspectiveCursor>(std::move(cursor));
  });
}

absl::Status SqlitePerspectiveSync::save_perspective_cursor(const PerspectiveCursor& cursor) {
  return core_.gate.run([&]() -> absl::Status {
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stmt,
                        core_.connection->prepare(sqlite::sql::kSavePerspectiveCursor));
    Use use(*core_.connection, stmt);
    use.bind_text(1, std::string_view(cursor.perspective_name));
    use.bind_uuid(2, cursor.stream_id);
    use.bind_uuid(3, cursor.last_event_id.uuid());
    use.bind_int(4, cursor.last_stream_version);
    use.bind_int(5, cursor.last_occurred_at_us);
    use.bind_int(6, cursor.rewind_count);
    use.bind_int(7, core_.now_micros());
    return use.run();
  });
}

absl::StatusOr<std::vector<EventSyncState>> SqlitePerspectiveSync::event_sync_states(
    std::span<const MessageId> event_ids) {
  return core_.gate.run_read([&]() -> absl::StatusOr<std::vector<EventSyncState>> {
    sqlite::Connection& db = *core_.connection;
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * stored, db.prepare(sqlite::sql::kEventStored));
    WB_ASSIGN_OR_RETURN(sqlite3_stmt * pending, db.prepare(sqlite::sql::kEventPendingPerspectives));
    std::vector<EventSyncState> states;
    states.reserve(event_ids.size());
    for (const MessageId& id : event_ids) {
      EventSyncState state;
      state.event_id = id;
      {
        Use use(db, stored);
        use.bind_uuid(1, id.uuid());
        WB_ASSIGN_OR_RETURN(state.stored, use.step());
      }
      Use use(db, pending);
      use.bind_uuid(1, id.uuid());
      while (true) {
        WB_ASSIGN_OR_RETURN(bool row, use.step());
        if (!row) break;
        state.pending.push_back({use.text(0), use.int64(1) != 0, use.text(2)});
      }
      states.push_back(std::move(state));
    }
    return states;
  });
}

}  // namespace whizbang

// PostgresPerspectiveSync: the perspective-sync role (cursors per stream, events still pending)
// on PostgreSQL.
#include "postgres/postgres_perspective_sync.hpp"

#include <algorithm>
#include <map>

#include "postgres/postgres_core.hpp"
#include "postgres/sql/cursor_sql.hpp"
#include "postgres/sql/sync_sql.hpp"
#include "row_decoding.hpp"

namespace whizbang {

using postgres::Query;

absl::StatusOr<std::optional<PerspectiveCursor>> PostgresPerspectiveSync::load_perspective_cursor(
    std::string_view perspective, const Uuid& stream_id) {
  return core_.gate.run_read([&]() -> absl::StatusOr<std::optional<PerspectiveCursor>> {
    Query query(*core_.connection, postgres::sql::kLoadPerspectiveCursor);
    query.bind_text(1, perspective);
    query.bind_uuid(2, stream_id);
    WB_ASSIGN_OR_RETURN(bool found, query.step());
    if (!found) return std::optional<PerspectiveCursor>();
    PerspectiveCursor cursor;
    cursor.perspective_name = std::string(perspective);
    cursor.stream_id = stream_id;
    cursor.last_event_id = MessageId::from_trusted(query.uuid(0));
    cursor.last_stream_version = query.int64(1);
    cursor.last_occurred_at_us = query.int64(2);
    cursor.rewind_count = query.int64(3);
    cursor.updated_at = from_unix_micros(query.int64(4));
    return std::optional<PerspectiveCursor>(std::move(cursor));
  });
}

absl::Status PostgresPerspectiveSync::save_perspective_cursor(const PerspectiveCursor& cursor) {
  return core_.gate.run([&]() -> absl::Status {
    Query query(*core_.connection, postgres::sql::kSavePerspectiveCursor);
    query.bind_text(1, cursor.perspective_name);
    query.bind_uuid(2, cursor.stream_id);
    query.bind_uuid(3, cursor.last_event_id.uuid());
    query.bind_int(4, cursor.last_stream_version);
    query.bind_int(5, cursor.last_occurred_at_us);
    query.bind_int(6, cursor.rewind_count);
    query.bind_int(7, core_.now_micros());
    return query.run();
  });
}

absl::StatusOr<std::vector<EventSyncState>> PostgresPerspectiveSync::event_sync_states(
    std::span<const MessageId> event_ids) {
  std::vector<EventSyncState> states;
  states.reserve(event_ids.size());
  if (event_ids.empty()) return states;
  // One uuid[] literal for both statements: a token holds a handful of events.
  std::string ids = "{";
  std::map<MessageId, std::size_t> index;
  for (const MessageId& id : event_ids) {
    if (ids.size() > 1) ids += ',';
    ids += id.to_string();
    index.emplace(id, states.size());
    states.push_back({id, false, {}});
  }
  ids += '}';
  absl::Status status = core_.gate.run_read([&]() -> absl::Status {
    postgres::Pipeline pipeline(*core_.connection);
    Query& stored = pipeline.add(postgres::sql::kEventsStored);
    stored.bind_text(1, ids);
    Query& pending = pipeline.add(postgres::sql::kEventsPendingPerspectives);
    pending.bind_text(1, ids);
    WB_RETURN_IF_ERROR(pipeline.run());
    while (true) {
      WB_ASSIGN_OR_RETURN(bool row, stored.step());
      if (!row) break;
      states[index.at(MessageId::from_trusted(stored.uuid(0)))].stored = true;
    }
    while (true) {
      WB_ASSIGN_OR_RETURN(bool row, pending.step());
      if (!row) break;
      states[index.at(MessageId::from_trusted(pending.uuid(0)))].pending.push_back(
          {pending.text(1), pending.boolean(2), pending.text(3)});
    }
    // By perspective name, as the other stores give them (the statement leaves them unordered).
    for (EventSyncState& state : states) {
      std::sort(state.pending.begin(), state.pending.end(),
                [](const PendingPerspective& a, const PendingPerspective& b) {
                  return a.perspective_name < b.perspective_name;
                });
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return states;
}

}  // namespace whizbang

// MemoryPerspectiveSync: the perspective-sync role (cursors per stream, events still pending) in
// memory.
#include "memory/memory_perspective_sync.hpp"

#include "memory/memory_core.hpp"

namespace whizbang {

absl::StatusOr<std::optional<PerspectiveCursor>> MemoryPerspectiveSync::load_perspective_cursor(
    std::string_view perspective, const Uuid& stream_id) {
  return core_.gate.run_read([&]() -> absl::StatusOr<std::optional<PerspectiveCursor>> {
    auto found = core_.state.perspective_cursors.find({std::string(perspective), stream_id});
    if (found == core_.state.perspective_cursors.end()) return std::optional<PerspectiveCursor>();
    return std::optional<PerspectiveCursor>(found->second);
  });
}

absl::Status MemoryPerspectiveSync::save_perspective_cursor(const PerspectiveCursor& cursor) {
  return core_.gate.run([&]() -> absl::Status {
    PerspectiveCursor saved = cursor;
    saved.updated_at = core_.now();
    core_.state.perspective_cursors[{cursor.perspective_name, cursor.stream_id}] = std::move(saved);
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<EventSyncState>> MemoryPerspectiveSync::event_sync_states(
    std::span<const MessageId> event_ids) {
  return core_.gate.run_read([&]() -> absl::StatusOr<std::vector<EventSyncState>> {
    std::vector<EventSyncState> states;
    states.reserve(event_ids.size());
    for (const MessageId& id : event_ids) {
      EventSyncState state;
      state.event_id = id;
      state.stored = core_.state.events.contains(id);
      for (const auto& [key, row] : core_.state.perspective_events) {
        if (row.event_id != id) continue;
        state.pending.push_back(
            {row.perspective_name, row.dead_lettered_at.has_value(), row.error});
      }
      states.push_back(std::move(state));
    }
    return states;
  });
}

}  // namespace whizbang

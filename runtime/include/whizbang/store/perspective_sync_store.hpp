// PerspectiveSyncStore: where each perspective stands — per stream, the cursor of what it applied
// last (rewind detection), and per event, which perspectives still have it to apply
// (read-your-writes). docs/perspectives.md, "Rewind" and "Read-your-writes".
//
// The perspective runner reads and writes the cursor in the transaction that saves the model;
// PerspectiveSync (whizbang/workers/perspective_sync.hpp) asks event_sync_states() until the
// events a dispatch emitted are applied.
//
//   auto cursor = store.load_perspective_cursor("shop::OrderSummary", stream);
//   auto states = store.event_sync_states(event_ids);   // one per id, in order
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "whizbang/ids/message_id.hpp"
#include "whizbang/ids/uuid.hpp"
#include "whizbang/message/envelope.hpp"

namespace whizbang {

// One wh_perspective_cursors row: the furthest event (in perspective order: occurred-at, then
// stream version; whizbang/workers/perspective_order.hpp) a perspective applied to a stream.
struct PerspectiveCursor {
  std::string perspective_name;
  Uuid stream_id;
  MessageId last_event_id;
  std::int64_t last_stream_version = 0;
  std::int64_t last_occurred_at_us = 0;  // microseconds since the Unix epoch
  // How often an event arriving behind the cursor made the stream's model be re-applied.
  std::int64_t rewind_count = 0;
  TimePoint updated_at{};
};

// A perspective that has not applied an event yet (its wh_perspective_events row remains).
struct PendingPerspective {
  std::string perspective_name;
  // Dead-lettered: it will not apply the event until the row is requeued.
  bool dead_lettered = false;
  std::string error;  // the last failure, if any
};

// Where one event stands (PerspectiveSyncStore::event_sync_states).
struct EventSyncState {
  MessageId event_id;
  // In the event store: its perspective events exist (they are written with it).
  bool stored = false;
  std::vector<PendingPerspective> pending;
};

class PerspectiveSyncStore {
 public:
  virtual ~PerspectiveSyncStore() = default;

  // nullopt when the perspective applied nothing to the stream since cursors exist.
  virtual absl::StatusOr<std::optional<PerspectiveCursor>> load_perspective_cursor(
      std::string_view perspective, const Uuid& stream_id) = 0;
  // Inserts or replaces the cursor (upsert on (perspective, stream)); updated_at is the store's
  // now.
  virtual absl::Status save_perspective_cursor(const PerspectiveCursor& cursor) = 0;

  // One state per id, in the order given: whether the event is stored, and which perspectives
  // still have it to apply. Reads only.
  virtual absl::StatusOr<std::vector<EventSyncState>> event_sync_states(
      std::span<const MessageId> event_ids) = 0;
};

}  // namespace whizbang

// SqlitePerspectiveSync: the perspective-sync role (cursors per stream, events still pending) on
// SQLite.
#pragma once

#include "sqlite/sqlite_core.hpp"
#include "whizbang/store/perspective_sync_store.hpp"

namespace whizbang {

class SqlitePerspectiveSync final : public PerspectiveSyncStore {
 public:
  explicit SqlitePerspectiveSync(SqliteCore& core) : core_(core) {}

  absl::StatusOr<std::optional<PerspectiveCursor>> load_perspective_cursor(
      std::string_view perspective, const Uuid& stream_id) override;
  absl::Status save_perspective_cursor(const PerspectiveCursor& cursor) override;
  absl::StatusOr<std::vector<EventSyncState>> event_sync_states(
      std::span<const MessageId> event_ids) override;

 private:
  SqliteCore& core_;
};

}  // namespace whizbang

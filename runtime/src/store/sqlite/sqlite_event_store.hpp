// SqliteEventStore: the event-store role (reading a stream) on SQLite.
#pragma once

#include "sqlite/sqlite_core.hpp"
#include "whizbang/store/event_store.hpp"

namespace whizbang {

class SqliteEventStore final : public EventStore {
 public:
  explicit SqliteEventStore(SqliteCore& core) : core_(core) {}

  absl::StatusOr<std::vector<StoredEvent>> read_stream(const Uuid& stream_id) override;

 private:
  SqliteCore& core_;
};

}  // namespace whizbang

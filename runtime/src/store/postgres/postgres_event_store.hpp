// PostgresEventStore: the event-store role (reading a stream) on PostgreSQL.
#pragma once

#include "postgres/postgres_core.hpp"
#include "whizbang/store/event_store.hpp"

namespace whizbang {

class PostgresEventStore final : public EventStore {
 public:
  explicit PostgresEventStore(PostgresCore& core) : core_(core) {}

  absl::StatusOr<std::vector<StoredEvent>> read_stream(const Uuid& stream_id) override;

 private:
  PostgresCore& core_;
};

}  // namespace whizbang

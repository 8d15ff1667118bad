// MemoryEventStore: the event-store role (reading a stream) on memory.
#pragma once

#include "memory/memory_core.hpp"
#include "whizbang/store/event_store.hpp"

namespace whizbang {

class MemoryEventStore final : public EventStore {
 public:
  explicit MemoryEventStore(MemoryCore& core) : core_(core) {}

  absl::StatusOr<std::vector<StoredEvent>> read_stream(const Uuid& stream_id) override;

 private:
  MemoryCore& core_;
};

}  // namespace whizbang

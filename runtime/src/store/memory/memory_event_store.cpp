// MemoryEventStore: the event-store role (reading a stream) on memory.
#include "memory/memory_event_store.hpp"

#include <algorithm>
#include <cctype>

#include "memory/memory_core.hpp"

namespace whizbang {

absl::StatusOr<std::vector<StoredEvent>> MemoryEventStore::read_stream(const Uuid& stream_id) {
  return core_.gate.run([&]() -> absl::StatusOr<std::vector<StoredEvent>> {
    std::vector<StoredEvent> events;
    auto stream = core_.state.streams.find(stream_id);
    if (stream == core_.state.streams.end()) return events;
    for (const auto& [version, id] : stream->second) events.push_back(core_.state.events.at(id));
    return events;
  });
}

}  // namespace whizbang

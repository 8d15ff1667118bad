#include "perspective_replay.hpp"

#include <algorithm>

#include "fmt/format.h"
#include "whizbang/observability/logging.hpp"
#include "whizbang/retry/failure.hpp"
#include "whizbang/workers/perspective_order.hpp"
#include "whizbang/workers/perspective_worker.hpp"

namespace whizbang {

absl::StatusOr<ReplayEvent> decode_for_replay(const StoredEvent& event, const Registry& registry,
                                              const PerspectiveInfo& perspective,
                                              const Uuid& stream_id) {
  absl::StatusOr<Envelope> envelope = envelope_from_stored_event(
      event.event_id, event.event_type, event.event_data, event.metadata, registry);
  if (!envelope.ok()) {
    return absl::DataLossError(fmt::format("replaying stream {} into perspective {}: event {}: {}",
                                           stream_id, perspective.name, event.event_id,
                                           envelope.status().message()));
  }
  return ReplayEvent{*std::move(envelope), event.version};
}

absl::StatusOr<std::vector<ReplayEvent>> load_stream_for_perspective(
    EventStore& events, const Registry& registry, const PerspectiveInfo& perspective,
    const Uuid& stream_id, std::int64_t up_to_version) {
  absl::StatusOr<std::vector<StoredEvent>> stored = events.read_stream(stream_id);
  if (!stored.ok()) return stored.status();
  std::vector<ReplayEvent> replay;
  for (const StoredEvent& event : *stored) {
    if (up_to_version > 0 && event.version > up_to_version) break;  // version order
    const MessageTypeInfo* type = registry.find_message(event.event_type);
    if (type == nullptr || !perspective.handles(*type)) continue;
    absl::StatusOr<ReplayEvent> decoded =
        decode_for_replay(event, registry, perspective, stream_id);
    if (!decoded.ok()) return decoded.status();
    replay.push_back(*std::move(decoded));
  }
  return replay;
}

void sort_into_perspective_order(std::vector<ReplayEvent>& events) {
  std::stable_sort(events.begin(), events.end(), [](const ReplayEvent& a, const ReplayEvent& b) {
    return perspective_order_key(a.envelope, a.stream_version) <
           perspective_order_key(b.envelope, b.stream_version);
  });
}

absl::StatusOr<std::shared_ptr<void>> replay_into_fresh_model(const PerspectiveInfo& perspective,
                                                              void* instance,
                                                              std::vector<ReplayEvent>& events) {
  sort_into_perspective_order(events);
  std::shared_ptr<void> model = perspective.new_model();
  for (const ReplayEvent& event : events) {
    // Perspectives fail by throwing, like receptors.
    absl::Status status = status_of_call(fmt::format("perspective {}", perspective.name), [&] {
      return perspective.apply(instance, model.get(), event.envelope.payload);
    });
    if (!status.ok()) {
      return absl::Status(status.code(), fmt::format("replaying event {} into perspective {}: {}",
                                                     event.envelope.message_id, perspective.name,
                                                     status.message()));
    }
  }
  return model;
}

}  // namespace whizbang

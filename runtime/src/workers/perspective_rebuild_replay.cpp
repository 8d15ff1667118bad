#include "perspective_rebuild_replay.hpp"

#include <algorithm>
#include <vector>

#include "fmt/format.h"
#include "whizbang/retry/failure.hpp"
#include "whizbang/workers/perspective_order.hpp"
#include "whizbang/workers/perspective_worker.hpp"

namespace whizbang::rebuild_internal {

absl::StatusOr<ReplayedStream> replay_stream(const Registry& registry,
                                             const PerspectiveInfo& perspective, void* instance,
                                             WorkStore& store, std::string_view target,
                                             const Uuid& stream,
                                             std::span<const StoredEvent> events) {
  struct Decoded {
    PerspectiveOrderKey key;
    Envelope envelope;
  };
  std::vector<Decoded> decoded;
  decoded.reserve(events.size());
  ReplayedStream replayed;
  for (const StoredEvent& event : events) {
    // The live path's decoder: what it upcasts, a rebuild sees upcast too.
    absl::StatusOr<Envelope> envelope = envelope_from_stored_event(
        event.event_id, event.event_type, event.event_data, event.metadata, registry);
    if (!envelope.ok()) {
      return absl::DataLossError(fmt::format("rebuild of {}: stream {} event {}: {}",
                                             perspective.name, stream, event.event_id,
                                             envelope.status().message()));
    }
    decoded.push_back({perspective_order_key(*envelope, event.version), *std::move(envelope)});
    replayed.through_version = std::max(replayed.through_version, event.version);
  }
  std::stable_sort(decoded.begin(), decoded.end(),
                   [](const Decoded& a, const Decoded& b) { return a.key < b.key; });
  std::shared_ptr<void> model = perspective.new_model();
  for (const Decoded& item : decoded) {
    // Perspectives fail by throwing, like receptors.
    absl::Status applied = status_of_call(perspective.name, [&] {
      return perspective.apply(instance, model.get(), item.envelope.payload);
    });
    if (!applied.ok()) {
      return absl::Status(applied.code(),
                          fmt::format("rebuild of {}: stream {} event {}: {}", perspective.name,
                                      stream, item.envelope.message_id, applied.message()));
    }
    ++replayed.events;
  }
  if (decoded.empty()) return replayed;
  if (absl::Status status =
          store.save_perspective_model(target, stream, perspective.model_to_json(model.get()),
                                       decoded.back().envelope.message_id);
      !status.ok()) {
    return status;
  }
  return replayed;
}

}  // namespace whizbang::rebuild_internal

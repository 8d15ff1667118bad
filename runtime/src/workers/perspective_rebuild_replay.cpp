// replay_stream: one stream of a rebuild, through the replay the runner's rewind uses too.
#include "perspective_rebuild_replay.hpp"

#include <algorithm>
#include <vector>

#include "fmt/format.h"
#include "perspective_replay.hpp"
#include "whizbang/internal/absl_view.hpp"

namespace whizbang::rebuild_internal {

absl::StatusOr<ReplayedStream> replay_stream(const Registry& registry,
                                             const PerspectiveInfo& perspective, void* instance,
                                             WorkStore& store, std::string_view target,
                                             const Uuid& stream,
                                             std::span<const StoredEvent> events) {
  std::vector<ReplayEvent> replay;
  replay.reserve(events.size());
  ReplayedStream replayed;
  for (const StoredEvent& event : events) {
    // The live path's decoder: what it upcasts, a rebuild sees upcast too.
    absl::StatusOr<ReplayEvent> decoded = decode_for_replay(event, registry, perspective, stream);
    if (!decoded.ok()) {
      return absl::Status(
          decoded.status().code(),
          fmt::format("rebuild: {}", internal::std_view(decoded.status().message())));
    }
    replay.push_back(*std::move(decoded));
    replayed.through_version = std::max(replayed.through_version, event.version);
  }
  if (replay.empty()) return replayed;
  // Sorted into perspective order: the last event applied is the model's last event.
  absl::StatusOr<std::shared_ptr<void>> model =
      replay_into_fresh_model(perspective, instance, replay);
  if (!model.ok()) {
    return absl::Status(model.status().code(),
                        fmt::format("rebuild: {}", internal::std_view(model.status().message())));
  }
  replayed.events = static_cast<std::int64_t>(replay.size());
  if (absl::Status status =
          store.save_perspective_model(target, stream, perspective.model_to_json(model->get()),
                                       replay.back().envelope.message_id);
      !status.ok()) {
    return status;
  }
  return replayed;
}

}  // namespace whizbang::rebuild_internal

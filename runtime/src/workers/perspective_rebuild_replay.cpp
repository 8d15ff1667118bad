// replay_stream: one stream of a rebuild, through the replay the runner's rewind uses too.
#include "perspective_rebuild_replay.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "fmt/format.h"
#include "perspective_replay.hpp"
#include "whizbang/internal/absl_view.hpp"
#include "whizbang/observability/logging.hpp"  // formats MessageId

namespace whizbang::rebuild_internal {
namespace {

constexpr std::array kPreStages{Stage::PrePerspectiveDetached, Stage::PrePerspectiveInline};
constexpr std::array kPostStages{Stage::PostPerspectiveDetached, Stage::PostPerspectiveInline};

// The receptors at `stage_list` that opted in to rebuilds, per event in order. Only such
// receptors fire in ProcessingMode::Rebuild (the invoker's filter, EventId 14 otherwise).
absl::Status fire_stages(ReceptorInvoker* stages, const PerspectiveInfo& perspective,
                         std::vector<ReplayEvent>& replay, std::span<const Stage> stage_list) {
  if (stages == nullptr) return absl::OkStatus();
  const LifecycleContext context{.mode = ProcessingMode::Rebuild,
                                 .perspective = std::string(perspective.name)};
  for (ReplayEvent& event : replay) {
    for (const Stage stage : stage_list) {
      absl::StatusOr<InvokeReport> report = stages->invoke(event.envelope, stage, context);
      if (!report.ok()) {
        return absl::Status(
            report.status().code(),
            fmt::format("rebuild: {} at {} for event {}: {}", perspective.name, to_string(stage),
                        event.envelope.message_id, internal::std_view(report.status().message())));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ReplayedStream> replay_stream(const Registry& registry,
                                             const PerspectiveInfo& perspective, void* instance,
                                             WorkStore& store, std::string_view target,
                                             const Uuid& stream,
                                             std::span<const StoredEvent> events,
                                             ReceptorInvoker* stages) {
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
  if (stages != nullptr) {
    // The Pre stages fire in perspective order, before the fold (which sorts the same way).
    sort_into_perspective_order(replay);
    if (absl::Status status = fire_stages(stages, perspective, replay, kPreStages); !status.ok()) {
      return status;
    }
  }
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
  if (absl::Status status = fire_stages(stages, perspective, replay, kPostStages); !status.ok()) {
    return status;
  }
  return replayed;
}

}  // namespace whizbang::rebuild_internal

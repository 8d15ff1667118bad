// Replaying stored events into a fresh model of one perspective, in perspective order
// (whizbang/workers/perspective_order.hpp: occurred-at, then stream version). The runner rewinds
// a stream's model with it when an event arrives behind what was applied (docs/perspectives.md,
// "Rewind"); a rebuild replays streams the same way. No lifecycle stage runs and nothing is
// emitted: only the perspective's apply thunk.
//
//   auto events = load_stream_for_perspective(store, registry, perspective, stream, version);
//   auto model = replay_into_fresh_model(perspective, instance, *events);
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "whizbang/message/envelope.hpp"
#include "whizbang/registry/registry.hpp"
#include "whizbang/store/event_store.hpp"

namespace whizbang {

// One stored event to replay, with its version in its stream.
struct ReplayEvent {
  Envelope envelope;
  std::int64_t stream_version = 0;
};

// One stored event of `stream_id`, decoded as the live path decodes it (envelope_from_stored_event:
// upcast included); DataLoss naming the event when it does not decode.
absl::StatusOr<ReplayEvent> decode_for_replay(const StoredEvent& event, const Registry& registry,
                                              const PerspectiveInfo& perspective,
                                              const Uuid& stream_id);

// The events of `stream_id` that `perspective` applies, up to and including `up_to_version` (0:
// all), decoded from the event store in version order. Events of types `registry` does not know
// are skipped (another service's: no perspective here applies them); a stored event of a type the
// perspective applies that cannot be decoded is DataLoss naming it.
absl::StatusOr<std::vector<ReplayEvent>> load_stream_for_perspective(
    EventStore& events, const Registry& registry, const PerspectiveInfo& perspective,
    const Uuid& stream_id, std::int64_t up_to_version = 0);

// Sorts `events` into perspective order (stable: a sorted list stays as it is).
void sort_into_perspective_order(std::vector<ReplayEvent>& events);

// Sorts `events` into perspective order and applies each, with `perspective`'s apply thunk on
// `instance`, to a fresh model; returns the model. The first failing apply (an error or a throw)
// is the answer, naming the event.
absl::StatusOr<std::shared_ptr<void>> replay_into_fresh_model(const PerspectiveInfo& perspective,
                                                              void* instance,
                                                              std::vector<ReplayEvent>& events);

}  // namespace whizbang

// Replaying one stream into a perspective's model, as a rebuild does: the stream's events of the
// perspective's types decoded like the live path decodes them (envelope_from_stored_event),
// ordered by perspective_order_key, applied to a fresh model with the perspective's apply thunk
// (no stages, no receptors), saved with the store's model statement. With `stages`, the receptors
// of the perspective-scoped stages that opted in to rebuilds fire in ProcessingMode::Rebuild:
// Pre stages for each event before the apply, Post stages after the model is saved.
#pragma once

#include <span>
#include <string_view>

#include "absl/status/statusor.h"
#include "whizbang/lifecycle/receptor_invoker.hpp"
#include "whizbang/registry/registry.hpp"
#include "whizbang/store/work_store.hpp"

namespace whizbang::rebuild_internal {

struct ReplayedStream {
  std::int64_t events = 0;
  std::int64_t through_version = 0;  // the highest stream version replayed
};

// `events` are the stream's events (any order). Saves the model under `target` (the perspective's
// name, or its shadow's).
absl::StatusOr<ReplayedStream> replay_stream(const Registry& registry,
                                             const PerspectiveInfo& perspective, void* instance,
                                             WorkStore& store, std::string_view target,
                                             const Uuid& stream,
                                             std::span<const StoredEvent> events,
                                             ReceptorInvoker* stages = nullptr);

}  // namespace whizbang::rebuild_internal

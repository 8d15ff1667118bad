// Lifecycle: the order in which a message's stages fire on each path.
//
//   inbox (a message received from another service):
//     PreInboxDetached, PreInboxInline, PostInboxDetached, PostInboxInline,
//     then the perspective stages when perspectives handle the event (the perspective worker
//     fires PostAllPerspectives and PostLifecycle once every perspective completed),
//     else PostLifecycleDetached, PostLifecycleInline
//   outbox (OutboxDrainWorkerOptions::lifecycle):
//     PreOutboxDetached, PreOutboxInline before publishing, PostOutbox* after
//
// Receptors without fire_at are registered at LocalImmediateDetached and PostInboxDetached:
// they run in the producing service on the local path of the cascade, and in every other
// service when the message reaches its inbox.
#pragma once

#include <functional>

#include "absl/status/status.h"
#include "whizbang/lifecycle/receptor_invoker.hpp"

namespace whizbang {

class Lifecycle {
 public:
  // `has_perspectives` tells whether perspectives will process the event (their worker then
  // owns PostAllPerspectives and PostLifecycle). Null: none do.
  explicit Lifecycle(ReceptorInvoker& invoker,
                     std::function<bool(const Envelope&)> has_perspectives = nullptr)
      : invoker_(invoker), has_perspectives_(std::move(has_perspectives)) {}

  // Fires the inbox path's stages in order; the first error stops it.
  absl::Status process_inbox(Envelope& envelope, const LifecycleContext& context = {});
  // One stage, for OutboxDrainWorkerOptions::lifecycle.
  absl::Status run_stage(Envelope& envelope, Stage stage, const LifecycleContext& context = {});

 private:
  ReceptorInvoker& invoker_;
  std::function<bool(const Envelope&)> has_perspectives_;
};

}  // namespace whizbang

#include "whizbang/lifecycle/lifecycle.hpp"

#include <initializer_list>

#include "fmt/format.h"
#include "whizbang/observability/logging.hpp"
#include "whizbang/retry/failure.hpp"

namespace whizbang {

absl::Status Lifecycle::run_stage(Envelope& envelope, Stage stage,
                                  const LifecycleContext& context) {
  // The invoker throws DuplicateReceptorFireException under OnDoubleFire::Throw: here it becomes
  // a permanent failure of the handling, so the worker dead-letters the row once instead of
  // retrying (and re-firing the receptors before it) every cycle.
  try {
    return invoker_.invoke(envelope, stage, context).status();
  } catch (...) {
    return status_from_current_exception(
        fmt::format("{} at {}", envelope.message_id, to_string(stage)));
  }
}

absl::Status Lifecycle::process_inbox(Envelope& envelope, const LifecycleContext& context) {
  for (Stage stage : {Stage::PreInboxDetached, Stage::PreInboxInline, Stage::PostInboxDetached,
                      Stage::PostInboxInline}) {
    if (absl::Status status = run_stage(envelope, stage, context); !status.ok()) return status;
  }
  if (has_perspectives_ && has_perspectives_(envelope)) return absl::OkStatus();
  for (Stage stage : {Stage::PostLifecycleDetached, Stage::PostLifecycleInline}) {
    if (absl::Status status = run_stage(envelope, stage, context); !status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace whizbang

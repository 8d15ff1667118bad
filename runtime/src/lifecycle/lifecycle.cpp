#include "whizbang/lifecycle.hpp"

#include <initializer_list>

namespace whizbang {

absl::Status Lifecycle::run_stage(Envelope& envelope, Stage stage,
                                  const LifecycleContext& context) {
  return invoker_.invoke(envelope, stage, context).status();
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

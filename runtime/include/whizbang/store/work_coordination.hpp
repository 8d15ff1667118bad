// WorkCoordination: the coordination role of the durable store — one work cycle
// (process_work_batch: heartbeat, completions, failures, renewals, claims), completions and
// failures on their own, lease renewal, and the receptor invocation records. The outbox, inbox
// and perspective workers call it through WorkStore (work_store.hpp).
//
//   auto items = store.process_work_batch(request);   // outbox rows first, then inbox rows
//   ... handle them ...
//   store.complete_work(completions, failures);       // or in the next cycle's request
#pragma once

#include <chrono>
#include <span>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "whizbang/ids/message_id.hpp"
#include "whizbang/store/store_rows.hpp"
#include "whizbang/store/work_item.hpp"

namespace whizbang {

// "Not now, and no attempt": a claimed row handed back with a later due time. Its lease is
// released and it is offered again `wait` after the store's now; its attempts, status, error and
// reason stay as they were (a circuit breaker that is open, docs/guide/11-failures.md, "Circuit
// breakers"). Like a retry's wait, it holds back the later rows of its stream. Applies only to a
// row leased to this instance (or to nobody) that is neither processed nor dead-lettered.
struct WorkDeferral {
  WorkSource source = WorkSource::Outbox;
  MessageId message_id;
  std::chrono::microseconds wait{0};
};

class WorkCoordination {
 public:
  virtual ~WorkCoordination() = default;

  // One coordination cycle (see WorkBatchRequest). Returns the work leased to this instance:
  // outbox rows first, then inbox rows, each in message-id order.
  virtual absl::StatusOr<std::vector<WorkItem>> process_work_batch(
      const WorkBatchRequest& request) = 0;

  // The completion and failure phases of process_work_batch on their own, so a handling can
  // complete its inbox row in the transaction that stores its emissions. Every failure adds one
  // to `whizbang.work_coordinator.failed{message_type}`; a dead-lettering one also to
  // `…dead_lettered{message_type}` and logs a Warning (EventId 141).
  virtual absl::Status complete_work(std::span<const WorkCompletion> completions,
                                     std::span<const WorkFailure> failures) = 0;

  // Hands claimed rows back for later without counting an attempt (WorkDeferral). Joins the
  // caller's transaction when one is open.
  virtual absl::Status defer_work(std::span<const WorkDeferral> deferrals) = 0;

  // Extends the leases this instance holds on `leases` by the store's lease duration. Returns the
  // ids it still held (and renewed); a row missing from the answer was completed or claimed by
  // another instance after its lease lapsed: its handling must not commit. Workers call it for
  // long batches, and inside a handling's transaction just before it commits.
  virtual absl::StatusOr<std::vector<MessageId>> renew_leases(
      std::span<const WorkLease> leases) = 0;

  // Records that the receptors fired for `message_id` (insert-or-ignore on (message_id,
  // receptor_id, service_name, perspective)).
  virtual absl::Status record_receptor_invocations(
      const MessageId& message_id, std::span<const ReceptorInvocationRecord> records) = 0;
  // Every record of `receptor_id` for `message_id`, any service or perspective, oldest first.
  virtual absl::StatusOr<std::vector<ReceptorInvocationRecord>> find_receptor_invocations(
      const MessageId& message_id, std::string_view receptor_id) = 0;
};

}  // namespace whizbang

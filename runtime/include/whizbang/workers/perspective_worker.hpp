// PerspectiveWorker: the durable side of perspectives. Claims the perspective events the store
// created for stored events (one per (event, associated perspective), wh_perspective_events) and
// applies each through a PerspectiveRunner.
//
// Each perspective event is applied in its own transaction that loads and saves the model and
// deletes the row; the completion that removes an event's last row also records a lifecycle
// completion (wh_lifecycle_completions), and only that event's PostAllPerspectives and
// PostLifecycle stages run — once per event, whichever worker, batch or retry completes the last
// perspective. The lifecycle completion is deleted when those stages succeed; when they fail, or
// the process dies before they run, a later cycle claims it and runs them again (receptors that
// already fired are skipped by the guardrail, from records kept in wh_receptor_invocations).
//
// A failed apply (or a perspective or receptor that throws) is retried with backoff and
// dead-lettered after StoreOptions::max_attempts; the later events of the same stream and
// perspective wait for it. A row whose event cannot be decoded (unknown type, corrupt payload)
// or whose perspective this registry does not know is dead-lettered at once (EventId 122).
//
// A claim leases its batch for StoreOptions::lease_duration, and nothing renews those leases. So
// a cycle applies its batch for at most `max_batch_time` after the claim, then leaves the rest
// (still leased to this instance) to the next cycle, which it starts at once and whose claim
// leases them again: a slow batch never outlives its leases and is never handed to another
// instance half-applied.
//
//   whizbang::PerspectiveWorker worker(store, *runner, {.poll_interval = 200ms});
//   worker.start();            // or worker.run_once() in tests
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "absl/status/statusor.h"
#include "spdlog/logger.h"
#include "whizbang/store/retry_policies.hpp"
#include "whizbang/store/work_store.hpp"
#include "whizbang/workers/perspective_runner.hpp"
#include "whizbang/workers/worker_loop.hpp"

namespace whizbang {

struct PerspectiveWorkerOptions {
  std::size_t max_batch = 100;
  std::chrono::milliseconds poll_interval{1000};
  // How long a cycle applies what one claim took, from the claim (the first item always); keep
  // it well below the store's lease duration. ServiceHost uses its lease_renewal_interval.
  std::chrono::milliseconds max_batch_time{60'000};
  // Live, or Replay/Rebuild (only idempotent(OnReplay::AlwaysFire) receptors fire).
  ProcessingMode mode = ProcessingMode::Live;
  std::shared_ptr<spdlog::logger> logger;
  // Which retry policy a failed apply of an event to a perspective, or failed
  // PostAllPerspectives/PostLifecycle stages, get: by the perspective's or receptor's exception
  // type, or its status code (docs/guide/11-failures.md, "Retry policies"); default: the store's
  // schedule.
  RetryPolicies retry_policies{};
};

struct PerspectiveCycleResult {
  std::size_t applied = 0;
  std::size_t already_applied = 0;
  std::size_t failed = 0;
  std::size_t held_back = 0;            // an earlier event of their stream and perspective failed
  std::size_t left_for_next_cycle = 0;  // claimed, not reached within max_batch_time
  std::size_t events_completed = 0;     // WhenAll gates passed in this cycle
  std::size_t lifecycle_completed = 0;  // PostAllPerspectives/PostLifecycle stages that succeeded
  std::size_t lifecycle_failed = 0;
  // Lifecycle completions another instance took over after this one's lease lapsed.
  std::size_t lease_lost = 0;
};

class PerspectiveWorker {
 public:
  PerspectiveWorker(WorkStore& store, PerspectiveRunner& runner,
                    PerspectiveWorkerOptions options = {});
  ~PerspectiveWorker();
  PerspectiveWorker(const PerspectiveWorker&) = delete;
  PerspectiveWorker& operator=(const PerspectiveWorker&) = delete;

  absl::StatusOr<PerspectiveCycleResult> run_once();
  void start();
  void stop();
  void notify() { loop_.notify(); }
  // The loop start() runs: cycles completed, wait_for_cycles() (readiness checks, tests).
  const WorkerLoop& loop() const { return loop_; }

 private:
  // Runs an event's PostAllPerspectives and PostLifecycle stages and records the outcome on its
  // lifecycle completion.
  // `attempts`: the lifecycle completion's failures before (0 when its gate opened this cycle).
  absl::Status finish(Envelope& envelope, int attempts, PerspectiveCycleResult& result);

  WorkStore& store_;
  PerspectiveRunner& runner_;
  PerspectiveWorkerOptions options_;
  WorkerLoop loop_;
};

// The envelope of a stored event as the event store keeps it (id, payload, hops); InvalidArgument
// for a corrupt row, NotFound for a type `registry` does not know.
absl::StatusOr<Envelope> envelope_from_stored_event(const MessageId& event_id,
                                                    std::string_view event_type,
                                                    std::string_view event_data,
                                                    std::string_view metadata,
                                                    const Registry& registry);
inline absl::StatusOr<Envelope> envelope_from_stored_event(const PerspectiveWork& work,
                                                           const Registry& registry) {
  return envelope_from_stored_event(work.event_id, work.event_type, work.event_data, work.metadata,
                                    registry);
}

}  // namespace whizbang

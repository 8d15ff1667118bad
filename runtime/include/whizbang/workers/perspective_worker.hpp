// PerspectiveWorker: the durable side of perspectives. Claims the perspective events the store
// created for stored events (one per (event, associated perspective), wh_perspective_events) and
// applies each through a PerspectiveRunner.
//
// Each perspective event is applied in its own transaction that saves the model and deletes the
// row; the store reports the completion that removed an event's last row, and only that one
// fires PostAllPerspectives and PostLifecycle — once per event, whichever worker, batch or retry
// completes the last perspective. A failed apply is retried with backoff; a row whose event
// cannot be decoded (unknown type, corrupt payload) is failed with the reason (EventId 122).
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
#include "whizbang/store/work_store.hpp"
#include "whizbang/workers/perspective_runner.hpp"
#include "whizbang/workers/worker_loop.hpp"

namespace whizbang {

struct PerspectiveWorkerOptions {
  std::size_t max_batch = 100;
  std::chrono::milliseconds poll_interval{1000};
  // Live, or Replay/Rebuild (only idempotent(OnReplay::AlwaysFire) receptors fire).
  ProcessingMode mode = ProcessingMode::Live;
  std::shared_ptr<spdlog::logger> logger;
};

struct PerspectiveCycleResult {
  std::size_t applied = 0;
  std::size_t already_applied = 0;
  std::size_t failed = 0;
  std::size_t events_completed = 0;  // WhenAll gates passed in this cycle
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

 private:
  WorkStore& store_;
  PerspectiveRunner& runner_;
  PerspectiveWorkerOptions options_;
  WorkerLoop loop_;
};

// The envelope of a stored event as the event store keeps it (id, payload, hops); InvalidArgument
// for a corrupt row, NotFound for a type `registry` does not know.
absl::StatusOr<Envelope> envelope_from_stored_event(const PerspectiveWork& work,
                                                    const Registry& registry);

}  // namespace whizbang

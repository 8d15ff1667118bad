// DetachedWorker: runs the Detached stages a process scheduled on its executor and did not run
// (it died, or the run failed and is due for a retry): the detached work the store keeps
// (WorkStore::claim_detached_work, ReceptorInvoker::run_detached_work).
//
//   whizbang::DetachedWorker detached(store, invoker, {.poll_interval = 1s});
//   detached.start();   // or detached.run_once() in tests
#pragma once

#include <chrono>
#include <memory>

#include "absl/status/statusor.h"
#include "spdlog/logger.h"
#include "whizbang/lifecycle/receptor_invoker.hpp"
#include "whizbang/store/work_store.hpp"
#include "whizbang/workers/worker_loop.hpp"

namespace whizbang {

struct DetachedWorkerOptions {
  std::size_t max_batch = 100;
  std::chrono::milliseconds poll_interval{1000};
  std::shared_ptr<spdlog::logger> logger;
};

struct DetachedCycleResult {
  std::size_t ran = 0;
  std::size_t failed = 0;  // retried later, or dead-lettered
};

class DetachedWorker {
 public:
  DetachedWorker(WorkStore& store, ReceptorInvoker& invoker, DetachedWorkerOptions options = {})
      : store_(store), invoker_(invoker), options_(std::move(options)) {}
  ~DetachedWorker() { stop(); }
  DetachedWorker(const DetachedWorker&) = delete;
  DetachedWorker& operator=(const DetachedWorker&) = delete;

  absl::StatusOr<DetachedCycleResult> run_once();
  void start();
  void stop() { loop_.stop(); }
  // The loop start() runs: cycles completed, wait_for_cycles() (readiness checks, tests).
  const WorkerLoop& loop() const { return loop_; }

 private:
  WorkStore& store_;
  ReceptorInvoker& invoker_;
  DetachedWorkerOptions options_;
  WorkerLoop loop_;
};

}  // namespace whizbang

// RetentionWorker: purges the store's duplicate-guarding bookkeeping past its retention
// (WorkStore::purge, RetentionOptions) on a thread, once at start and then every `interval`.
//
//   whizbang::RetentionWorker retention(store, {.interval = std::chrono::hours(1)});
//   retention.start();   // ... retention.stop();
#pragma once

#include <chrono>
#include <memory>

#include "spdlog/logger.h"
#include "whizbang/store/work_store.hpp"
#include "whizbang/workers/worker_loop.hpp"

namespace whizbang {

struct RetentionWorkerOptions {
  RetentionOptions retention;
  std::chrono::milliseconds interval = std::chrono::hours(1);
  std::shared_ptr<spdlog::logger> logger;
};

class RetentionWorker {
 public:
  RetentionWorker(WorkStore& store, RetentionWorkerOptions options)
      : store_(store), options_(std::move(options)) {}
  ~RetentionWorker() { stop(); }
  RetentionWorker(const RetentionWorker&) = delete;
  RetentionWorker& operator=(const RetentionWorker&) = delete;

  absl::StatusOr<PurgeCounts> run_once() { return store_.purge(options_.retention); }
  void start() {
    loop_.start([this] { return run_once().status(); }, "retention", options_.interval,
                options_.logger);
  }
  void stop() { loop_.stop(); }

 private:
  WorkStore& store_;
  RetentionWorkerOptions options_;
  WorkerLoop loop_;
};

}  // namespace whizbang

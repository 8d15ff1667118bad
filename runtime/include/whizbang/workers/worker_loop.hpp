// WorkerLoop: the thread every worker runs its cycles on.
//
// start() runs `cycle` repeatedly on a new thread; between cycles it sleeps until notify() or the
// poll interval, whichever comes first. A cycle that claimed a full batch and moved something
// notifies its own loop, so a backlog drains batch after batch rather than one batch per poll
// (a cycle that moved nothing, such as rows held back while the transport is down, waits). stop()
// wakes the thread and joins it. A failed cycle is logged (EventId 54) and the next one retries; so
// is a cycle that throws, so that nothing a worker runs can take the process down. Failures that
// repeat (a database outage fails every cycle alike) are rate-limited: the first is logged, then
// at most one line of the same message per 10 s saying how many were held back, and one line
// when a cycle succeeds again (EventId 144; docs/guide/09-diagnostics.md).
// cycles()/wait_for_cycles() tell a readiness check (or a test) that the loop has run: after one
// completed cycle it has taken up a first batch of what was stored before start(), and waits for a
// wake-up or its poll when there was no more.
//
//   loop_.start([this] { return run_once().status(); }, "inbox", options_.poll_interval, logger);
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "spdlog/logger.h"
#include "whizbang/observability/logging.hpp"
#include "whizbang/retry/failure.hpp"
#include "whizbang/workers/wake_signal.hpp"

namespace whizbang {

class WorkerLoop {
 public:
  WorkerLoop() = default;
  ~WorkerLoop() { stop(); }
  WorkerLoop(const WorkerLoop&) = delete;
  WorkerLoop& operator=(const WorkerLoop&) = delete;

  // Does nothing when already running.
  void start(std::function<absl::Status()> cycle, std::string name,
             std::chrono::milliseconds poll_interval, std::shared_ptr<spdlog::logger> logger);

  void stop() {
    if (!running_.exchange(false)) return;
    wake_.notify();
    if (thread_.joinable()) thread_.join();
  }

  // Wakes the thread for a cycle now (or makes the next wait return at once).
  void notify() { wake_.notify(); }

  // Cycles completed on the thread (failed ones included) since construction.
  std::uint64_t cycles() const {
    std::lock_guard lock(cycles_mutex_);
    return cycles_;
  }
  // Waits until `count` cycles have completed; false when `timeout` passed first.
  bool wait_for_cycles(std::uint64_t count, std::chrono::milliseconds timeout) const {
    std::unique_lock lock(cycles_mutex_);
    return cycle_done_.wait_for(lock, timeout, [&] { return cycles_ >= count; });
  }

  // Since when every cycle has failed (a store that is down fails them all), and the last error;
  // unset while cycles succeed (ServiceHost::failing_worker, a readiness probe).
  struct Failing {
    std::chrono::steady_clock::time_point since;
    std::string last_error;
  };
  std::optional<Failing> failing() const {
    std::lock_guard lock(cycles_mutex_);
    return failing_;
  }

 private:
  WakeSignal wake_;
  std::atomic<bool> running_{false};
  std::thread thread_;
  mutable std::mutex cycles_mutex_;
  mutable std::condition_variable cycle_done_;
  std::uint64_t cycles_ = 0;
  std::optional<Failing> failing_;  // guarded by cycles_mutex_
};

}  // namespace whizbang

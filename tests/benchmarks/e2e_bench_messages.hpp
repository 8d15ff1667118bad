// The end-to-end benchmark's consumer side: the Tick's receptor counts it and records its
// latency in a Tally that the benchmark thread waits on (the receptor runs on the consumer's
// worker thread).
#pragma once

#include <whizbang/whizbang.hpp>

#include "e2e_bench_tick.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

namespace bench {

class Tally {
 public:
  void add(std::int64_t latency_ns) {
    std::lock_guard lock(mutex_);
    ++count_;
    latencies_ns_.push_back(latency_ns);
    // Only the Tick the waiter waits for wakes it: a wake-up per Tick would put a futex call
    // and a context switch per message into the figures, which the raw baselines do not pay.
    if (count_ == awaited_) changed_.notify_all();
  }
  // True once `count` Ticks were handled, false after `timeout`. One waiter at a time.
  bool wait_for(std::int64_t count, std::chrono::seconds timeout) {
    std::unique_lock lock(mutex_);
    awaited_ = count;
    return changed_.wait_for(lock, timeout, [&] { return count_ >= count; });
  }
  std::int64_t count() {
    std::lock_guard lock(mutex_);
    return count_;
  }
  std::vector<std::int64_t> take_latencies() {
    std::lock_guard lock(mutex_);
    return std::move(latencies_ns_);
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::int64_t count_ = 0;
  std::int64_t awaited_ = 0;  // the count wait_for() waits for
  std::vector<std::int64_t> latencies_ns_;
};

class TickReceptor : public whizbang::Receptor<Tick> {
 public:
  explicit TickReceptor(Tally& tally) : tally_(tally) {}
  void handle(const Tick& tick) { tally_.add(steady_now_ns() - tick.sent_at_ns); }

 private:
  Tally& tally_;
};

}  // namespace bench

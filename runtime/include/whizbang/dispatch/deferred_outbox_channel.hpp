// DeferredOutboxChannel: outbox messages published outside any transaction (for example from a
// PostPerspective receptor), written to the outbox by the drain worker's next cycle.
//
// Process-wide and thread-safe: any number of threads queue while the worker drains; FIFO order
// is kept and every message is returned by exactly one drain_all(). Queuing signals the worker
// (set_wake), so the write happens promptly instead of at the next poll.
//
//   whizbang::DeferredOutboxChannel channel;
//   channel.queue(message);                      // from any thread
//   std::vector<OutboxMessage> batch = channel.drain_all();   // worker, start of each cycle
#pragma once

#include <functional>
#include <mutex>
#include <utility>
#include <vector>

#include "whizbang/store/outbox_message.hpp"

namespace whizbang {

class DeferredOutboxChannel {
 public:
  // Queues a message for the next cycle and signals the wake-up.
  void queue(OutboxMessage message) {
    std::function<void()> wake;
    {
      std::lock_guard lock(mutex_);
      pending_.push_back(std::move(message));
      wake = wake_;
    }
    if (wake) wake();
  }

  // Everything queued so far, oldest first; the channel is empty afterwards.
  std::vector<OutboxMessage> drain_all() {
    std::vector<OutboxMessage> drained;
    std::lock_guard lock(mutex_);
    drained.swap(pending_);
    return drained;
  }

  bool has_pending() const {
    std::lock_guard lock(mutex_);
    return !pending_.empty();
  }

  // Called (outside the channel's lock) after every queue(). Empty to clear.
  void set_wake(std::function<void()> wake) {
    std::lock_guard lock(mutex_);
    wake_ = std::move(wake);
  }

 private:
  mutable std::mutex mutex_;
  std::vector<OutboxMessage> pending_;
  std::function<void()> wake_;
};

}  // namespace whizbang

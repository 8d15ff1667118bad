// WakeSignal: "there is work" for a worker that otherwise sleeps until its poll interval.
//
// notify() may be called from any thread any number of times; one wait returns for all the
// notifications made before it, so a burst of commits wakes the worker once.
//
//   whizbang::WakeSignal wake;
//   store.add_commit_listener([&](const whizbang::CommitInfo&) { wake.notify(); });
//   while (running) { wake.wait_for(std::chrono::seconds(1)); run_once(); }
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace whizbang {

class WakeSignal {
 public:
  void notify() {
    {
      std::lock_guard lock(mutex_);
      signalled_ = true;
    }
    condition_.notify_all();
  }

  // True when woken by notify(), false on timeout. Clears the signal.
  template <class Rep, class Period>
  bool wait_for(std::chrono::duration<Rep, Period> timeout) {
    std::unique_lock lock(mutex_);
    const bool woken = condition_.wait_for(lock, timeout, [&] { return signalled_; });
    signalled_ = false;
    return woken;
  }

  bool pending() const {
    std::lock_guard lock(mutex_);
    return signalled_;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable condition_;
  bool signalled_ = false;
};

}  // namespace whizbang

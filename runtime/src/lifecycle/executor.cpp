#include "whizbang/lifecycle/executor.hpp"

#include "whizbang/observability/logging.hpp"
#include "whizbang/retry/failure.hpp"

namespace whizbang {

ThreadPoolExecutor::ThreadPoolExecutor(int threads, std::shared_ptr<spdlog::logger> logger)
    : logger_(std::move(logger)) {
  for (int i = 0; i < (threads < 1 ? 1 : threads); ++i) threads_.emplace_back([this] { run(); });
}

ThreadPoolExecutor::~ThreadPoolExecutor() {
  drain();
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

void ThreadPoolExecutor::submit(std::function<void()> work) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(work));
  }
  wake_.notify_one();
}

void ThreadPoolExecutor::drain() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [this] { return queue_.empty() && running_ == 0; });
}

void ThreadPoolExecutor::run() {
  for (;;) {
    std::function<void()> work;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and nothing left
      work = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
    }
    // Detached work reports its own errors (the invoker logs EventId 17); this catches what
    // escapes anyway, so the pool keeps its thread and drain() still returns.
    if (absl::Status status = status_of_call("detached work",
                                             [&] {
                                               work();
                                               return absl::OkStatus();
                                             });
        !status.ok()) {
      log(logger_, spdlog::level::err, log_events::kExecutorWorkFailed, "{}", status.message());
    }
    {
      std::lock_guard lock(mutex_);
      --running_;
      if (queue_.empty() && running_ == 0) idle_.notify_all();
    }
  }
}

}  // namespace whizbang

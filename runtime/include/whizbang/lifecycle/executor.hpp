// Executor: where Detached lifecycle stages run.
//
// Detached work gets its own copy of everything it reads (envelope, security context); nothing is
// shared with the caller. InlineExecutor runs work on the caller's thread (deterministic tests);
// ThreadPoolExecutor runs it on background threads and drains on destruction. Work that throws
// is logged (EventId 140) and the thread goes on with the next item.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "spdlog/logger.h"

namespace whizbang {

class Executor {
 public:
  virtual ~Executor() = default;
  virtual void submit(std::function<void()> work) = 0;
  // Blocks until every submitted work item has finished.
  virtual void drain() = 0;
};

class InlineExecutor final : public Executor {
 public:
  void submit(std::function<void()> work) override { work(); }
  void drain() override {}
};

class ThreadPoolExecutor final : public Executor {
 public:
  explicit ThreadPoolExecutor(int threads = 1, std::shared_ptr<spdlog::logger> logger = nullptr);
  ~ThreadPoolExecutor() override;
  ThreadPoolExecutor(const ThreadPoolExecutor&) = delete;
  ThreadPoolExecutor& operator=(const ThreadPoolExecutor&) = delete;

  void submit(std::function<void()> work) override;
  void drain() override;

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  std::deque<std::function<void()>> queue_;
  int running_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
  std::shared_ptr<spdlog::logger> logger_;
};

}  // namespace whizbang

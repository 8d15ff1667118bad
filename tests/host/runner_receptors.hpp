// A one-receptor service for the runner's tests.
#pragma once

#include <whizbang/whizbang.hpp>

#include <atomic>
#include <string>

namespace runner_test {

struct Ping : whizbang::Command {
  std::string text;
};

struct Pinged : whizbang::Event {
  std::string text;
};

// Counts what it handled, for the tests.
struct PingCounter {
  std::atomic<int> handled{0};
};

class PingReceptor : public whizbang::Receptor<Ping, Pinged> {
 public:
  explicit PingReceptor(PingCounter& counter) : counter_(counter) {}
  Pinged handle(const Ping& ping);

 private:
  PingCounter& counter_;
};

}  // namespace runner_test

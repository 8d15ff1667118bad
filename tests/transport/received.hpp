// Collects what a subscription's handler was given, and lets a test wait for it: the handler
// signals a condition variable, the test waits on it (no sleeps).
#pragma once

#include <whizbang/transport/transport.hpp>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <vector>

namespace whizbang::test {

class Received {
 public:
  // Called before a delivery is recorded; a non-OK result fails the handling (not recorded).
  using Hook = std::function<absl::Status(const TransportMessage&)>;

  Transport::DeliveryHandler handler(Hook hook = {}) {
    return [this, hook = std::move(hook)](const TransportDestination& destination,
                                          std::span<const TransportMessage> batch) {
      for (const TransportMessage& message : batch) {
        if (hook) {
          if (absl::Status status = hook(message); !status.ok()) return status;
        }
      }
      std::lock_guard lock(mutex_);
      for (const TransportMessage& message : batch) {
        messages_.push_back(message);
        destinations_.push_back(destination);
      }
      ++batches_;
      arrived_.notify_all();
      return absl::OkStatus();
    };
  }

  // True once at least `count` messages arrived, false after `timeout`.
  bool wait_for(std::size_t count, std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    std::unique_lock lock(mutex_);
    return arrived_.wait_for(lock, timeout, [&] { return messages_.size() >= count; });
  }

  std::vector<TransportMessage> messages() const {
    std::lock_guard lock(mutex_);
    return messages_;
  }
  std::vector<TransportDestination> destinations() const {
    std::lock_guard lock(mutex_);
    return destinations_;
  }
  std::size_t count() const {
    std::lock_guard lock(mutex_);
    return messages_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable arrived_;
  std::vector<TransportMessage> messages_;
  std::vector<TransportDestination> destinations_;
  std::size_t batches_ = 0;
};

inline TransportMessage test_message(std::string type, bool is_event,
                                     std::optional<Uuid> stream = std::nullopt) {
  TransportMessage message;
  message.message_id = MessageId::mint();
  message.message_type = std::move(type);
  message.envelope_json = R"({"id":")" + message.message_id.to_string() + R"(","p":{"n":1}})";
  message.stream_id = stream;
  message.is_event = is_event;
  return message;
}

}  // namespace whizbang::test

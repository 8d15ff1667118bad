// RabbitMqTransport: services in separate processes (or machines) joined by a RabbitMQ broker,
// with the topology a Whizbang .NET service uses (rabbitmq_topology.hpp;
// docs/guide/13-rabbitmq.md).
//
// - publish() returns OK only when the broker confirmed every message of the batch (publisher
//   confirms, `mandatory`, persistent messages). A command no queue is bound for fails the
//   batch, so the outbox keeps the row; an event nobody subscribes to is dropped.
// - subscribe() declares the service's queues before it returns (a command sent while the
//   service is down waits in its queue) and consumes them on a thread of its own, acknowledging
//   each delivery after the handler (the inbox) stored it. Redeliveries and republished
//   messages are normal: the inbox deduplicates them.
// - Connections are re-established with backoff, the topology redeclared, consumers resumed;
//   is_ready() is false while the publishing connection is down. Idle connections are kept
//   alive (heartbeats) by a background thread.
//
//   auto options = whizbang::rabbitmq_options_from_url("");   // WHIZBANG_AMQP_URL
//   whizbang::RabbitMqTransport transport(*options);
//   host_options.transport = &transport;
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "whizbang/transport/rabbitmq/rabbitmq_options.hpp"
#include "whizbang/transport/rabbitmq/rabbitmq_topology.hpp"
#include "whizbang/transport/transport.hpp"

namespace whizbang {

namespace rabbitmq {
class ConfirmedPublisher;
}

class RabbitMqTransport final : public Transport {
 public:
  // Connects at once; when the broker is not reachable yet, keeps trying in the background.
  explicit RabbitMqTransport(RabbitMqOptions options);
  ~RabbitMqTransport() override;
  RabbitMqTransport(const RabbitMqTransport&) = delete;
  RabbitMqTransport& operator=(const RabbitMqTransport&) = delete;

  absl::Status publish(const TransportDestination& destination,
                       std::span<const TransportMessage> batch) override;
  absl::StatusOr<std::unique_ptr<TransportSubscription>> subscribe(
      std::string_view service_name, std::vector<TransportBinding> bindings,
      DeliveryHandler handler) override;
  bool is_ready() const override { return ready_.load(); }
  bool delivers_on_own_threads() const override { return true; }
  std::string_view messaging_system() const override { return "rabbitmq"; }
  // Refused deliveries are rejected without requeue into the queue's `{queue}.dlq`.
  bool dead_letters_refused() const override { return options_.dead_letter_exchanges; }

  const RabbitMqOptions& options() const { return options_; }

 private:
  // Keeps the publishing connection alive while idle, and reconnects it after a failure.
  void keep_alive();
  void set_ready(bool ready, const absl::Status& why);

  const RabbitMqOptions options_;
  std::mutex publisher_mutex_;  // rabbitmq-c connections are not thread-safe
  std::unique_ptr<rabbitmq::ConfirmedPublisher> publisher_;
  std::atomic<bool> ready_{false};

  std::mutex keeper_mutex_;
  std::condition_variable keeper_wake_;
  bool stopping_ = false;  // guarded by keeper_mutex_
  std::thread keeper_;
};

}  // namespace whizbang

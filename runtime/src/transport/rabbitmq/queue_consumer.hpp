// QueueConsumer: one subscription of the RabbitMQ transport. Its own thread and connection
// (rabbitmq-c connections belong to one thread) consume the service's queues, hand deliveries to
// the handler in batches and acknowledge them only after the handler returned OK, i.e. after the
// inbox committed them (docs/guide/13-rabbitmq.md, "Delivery guarantees").
//
// - A failed handler: its deliveries and the rest of the batch go back to the queue (nack with
//   requeue) and the consumer waits a backoff before taking more, so stream order holds and a
//   failing store is not hammered.
// - A delivery that cannot become a message (no id or type, or a .NET claim check whose body is
//   not an envelope), or one the handler refuses
//   (DeliveryOutcome::refused: invalid text, an id that is not the envelope's, …): rejected
//   without requeue, into the queue's dead letters ({queue}.dlq); the rest of its batch is
//   acknowledged as usual.
// - A delivery a widened binding let through (rabbitmq_binding_key): acknowledged, not handled.
// - A lost connection: reconnect with backoff, redeclare, consume again; what was not yet
//   acknowledged is redelivered and the inbox deduplicates it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "rabbitmq/amqp_connection.hpp"
#include "rabbitmq/amqp_message.hpp"
#include "whizbang/observability/log_rate_limiter.hpp"
#include "whizbang/retry/backoff.hpp"
#include "whizbang/transport/transport.hpp"

namespace whizbang::rabbitmq {

class QueueConsumer final : public TransportSubscription {
 public:
  // Declares the queues and starts consuming. When the broker cannot be reached, the consumer
  // keeps trying in the background; a refusal (access, a queue declared with other arguments)
  // is returned.
  static absl::StatusOr<std::unique_ptr<QueueConsumer>> start(
      const RabbitMqOptions& options, std::string service_name,
      std::vector<TransportBinding> bindings, Transport::DeliveryHandler handler);
  ~QueueConsumer() override;

  bool connected() const { return connected_.load(); }

 private:
  struct Queue {
    std::string exchange;
    std::string name;
    std::vector<std::string> patterns;  // Whizbang patterns, for the client-side filter
  };
  struct Delivery {
    std::uint64_t tag;
    IncomingMessage incoming;
  };

  QueueConsumer(const RabbitMqOptions& options, std::string service_name, std::vector<Queue> queues,
                Transport::DeliveryHandler handler);

  absl::Status connect();
  void run();
  // Reads one delivery (or times out); not OK when the connection failed.
  absl::Status consume_one(bool wait);
  void accept(const amqp_envelope_t& envelope);
  // Hands the pending deliveries to the handler; not OK when acks could not be sent.
  absl::Status flush();
  // Settles a run the handler took: its refused deliveries rejected to the dead letters (no
  // requeue), the others acknowledged. `batch` holds the run's messages (moved out of `run`).
  absl::Status settle_run(const DeliveryOutcome& outcome, std::span<const TransportMessage> batch,
                          std::span<const Delivery> run);
  // The rejects of `refusals` and one ack for the rest of the run.
  absl::Status settle_deliveries(std::span<const TransportMessage> batch,
                                 std::span<const Delivery> run,
                                 const std::vector<const RefusedDelivery*>& refusals,
                                 const std::vector<bool>& refused, amqp_connection_state_t state);
  void disconnect(const absl::Status& why);
  // Sleeps up to `delay`, or until the consumer stops; false when stopping.
  bool pause(Backoff::Duration delay);

  const RabbitMqOptions options_;  // a copy: a subscription may outlive its transport
  std::string service_name_;
  std::vector<Queue> queues_;
  Transport::DeliveryHandler handler_;
  std::unique_ptr<AmqpConnection> connection_;
  std::vector<Delivery> pending_;
  BackoffSequence handler_backoff_;  // grows while the handler keeps failing
  // Warnings that repeat (a store that is down, a sender's flood of bad deliveries) are logged
  // once, then once per interval with how many were held back (consumer thread only).
  LogRateLimiter requeue_log_;
  LogRateLimiter rejection_log_;
  std::atomic<bool> connected_{false};

  std::mutex mutex_;
  std::condition_variable stop_requested_;
  bool stopping_ = false;  // guarded by mutex_
  std::thread thread_;
};

}  // namespace whizbang::rabbitmq

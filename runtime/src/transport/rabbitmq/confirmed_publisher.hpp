// ConfirmedPublisher: the publishing side of the RabbitMQ transport. One connection in confirm
// mode; publish() sends a batch with `mandatory` set and returns OK only when the broker has
// confirmed every message (docs/guide/13-rabbitmq.md, "Delivery guarantees"):
// - a nack, a returned command (no queue bound for it), a timeout or a lost connection fails
//   the batch, so the outbox keeps its rows and publishes them again (the receivers' inbox
//   deduplicates what had arrived);
// - a command to a namespace inbox no service declared fails with NotFound (a passive declare:
//   the publisher never creates a command inbox);
// - a returned event is dropped: nobody subscribes to it. Except within unrouted_grace of
//   connecting: then any returned message fails the batch as settling
//   (mark_transport_settling), since a restarted broker may not have its bindings back yet.
// Not thread-safe: the transport serializes calls.
#pragma once

#include <chrono>
#include <memory>
#include <set>
#include <span>
#include <string>

#include "absl/status/status.h"
#include "rabbitmq/amqp_connection.hpp"
#include "whizbang/transport/transport.hpp"

namespace whizbang::rabbitmq {

class ConfirmedPublisher {
 public:
  explicit ConfirmedPublisher(const RabbitMqOptions& options) : options_(options) {}

  absl::Status publish(const TransportDestination& destination,
                       std::span<const TransportMessage> batch);

  // Connects when there is no live connection (then true if it worked).
  absl::Status connect();
  bool connected() const { return connection_ != nullptr && !connection_->broken(); }
  // For an idle connection: reads what the broker sent (heartbeats, a close) without blocking,
  // so the broker does not close the connection for missed heartbeats.
  absl::Status service_idle();
  void disconnect() { connection_.reset(); }

 private:
  // Declares the destination's exchange, or (a command inbox: RequireProvisionedEntity) checks
  // that its consumers declared it: NotFound when not, the connection kept.
  absl::Status ensure_exchange(const TransportDestination& destination);
  // Sends a batch's publishes: encoded together and written at once (a plain TCP connection),
  // or one amqp_basic_publish each (TLS).
  absl::Status send_together(const TransportDestination& destination,
                             std::span<const TransportMessage> batch);
  absl::Status send_each(const TransportDestination& destination,
                         std::span<const TransportMessage> batch);
  absl::Status wait_for_confirms(std::span<const TransportMessage> batch, std::uint64_t first_tag);
  // Drops a connection that failed; returns `status`.
  absl::Status drop(absl::Status status);

  const RabbitMqOptions& options_;
  std::unique_ptr<AmqpConnection> connection_;
  std::set<std::string> declared_exchanges_;
  std::uint64_t next_delivery_tag_ = 1;  // confirm tags restart at 1 on every new channel
  std::chrono::steady_clock::time_point connected_at_;
};

}  // namespace whizbang::rabbitmq

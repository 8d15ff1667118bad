// RabbitMqOptions: where the broker is and how the RabbitMQ transport talks to it
// (docs/guide/13-rabbitmq.md).
//
// Most users write one URL, from configuration or the environment:
//   auto options = whizbang::rabbitmq_options_from_url("amqp://app:secret@broker:5672/shop");
//   auto options = whizbang::rabbitmq_options_from_url("");   // WHIZBANG_AMQP_URL
// "amqps://" turns TLS on (verify peer and host name; set tls.ca_cert_file for a private CA).
// The password never appears in describe(), logs or statuses.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "spdlog/logger.h"
#include "whizbang/retry/backoff.hpp"

namespace whizbang {

struct RabbitMqTlsOptions {
  bool enabled = false;
  std::string ca_cert_file;      // PEM; empty: the system's default CA paths are not loaded
  std::string client_cert_file;  // PEM, with client_key_file, for brokers that require one
  std::string client_key_file;
  bool verify_peer = true;
  bool verify_hostname = true;
};

struct RabbitMqOptions {
  std::string host = "localhost";
  int port = 5672;
  std::string vhost = "/";
  std::string user = "guest";
  std::string password = "guest";
  RabbitMqTlsOptions tls;

  // AMQP heartbeat. rabbitmq-c services heartbeats only inside its calls, so the transport polls
  // idle connections; a silent partition is noticed after about two heartbeats. 0 disables it
  // (then a partition can block a consumer until TCP gives up: hours).
  std::chrono::seconds heartbeat{10};
  std::chrono::milliseconds connect_timeout{5000};
  // Login and every synchronous call (declare, bind, qos, consume).
  std::chrono::milliseconds rpc_timeout{10000};
  // How long publish() waits for the broker to confirm a batch before failing it.
  std::chrono::milliseconds confirm_timeout{30000};
  // Reconnect backoff: doubles from the first to the max delay (reconnect_backoff()).
  std::chrono::milliseconds reconnect_initial_delay{100};
  std::chrono::milliseconds reconnect_max_delay{5000};
  // For this long after the publisher connects, a message the broker returns (no queue bound)
  // fails its batch as settling (the outbox offers it again, no attempt counted) instead of an
  // event being dropped: a broker restarted after a crash can come back without bindings made
  // shortly before it, until their subscriptions reconnect and declare them again. Keep it
  // above the subscribers' reconnect_max_delay. 0: a returned event is always dropped.
  std::chrono::milliseconds unrouted_grace{10000};
  // Unacknowledged deliveries a subscription holds at once (basic.qos), and so its largest batch.
  std::uint16_t prefetch = 100;
  // A delivery larger than this goes to the queue's dead letters without being stored (the
  // inbox's EnvelopeLimits::max_bytes, 1 MiB, by default). The broker's own max_message_size
  // (128 MiB by default) is what bounds what the client reads at all.
  std::size_t max_message_bytes = std::size_t{1} << 20;
  // How often an idle consumer wakes to notice shutdown and to service heartbeats.
  std::chrono::milliseconds consume_poll_interval{200};

  // The exchange commands are published to (the shared inbox topic); deliveries from it are
  // commands, from any other exchange events.
  std::string inbox_exchange = "inbox";
  // Each queue dead-letters through "{exchange}.dlx" (fanout) into "{queue}.dlq".
  bool dead_letter_exchanges = true;
  // Shown to the broker's management UI as the connection name.
  std::string connection_name = "whizbang";

  std::shared_ptr<spdlog::logger> logger;

  // "amqp://user@host:port/vhost": for logs and errors, without the password.
  std::string describe() const;

  // The waits between reconnect attempts (and between retries of a failing delivery handler):
  // reconnect_initial_delay, doubling up to reconnect_max_delay, without jitter.
  Backoff reconnect_backoff() const {
    return {.initial = reconnect_initial_delay, .factor = 2.0, .cap = reconnect_max_delay};
  }
};

// Parses "amqp[s]://[user[:password]@]host[:port][/vhost]" (percent-encoded parts decoded, as
// rabbitmq-c does). An empty `url` reads WHIZBANG_AMQP_URL. The status never contains the URL's
// password.
absl::StatusOr<RabbitMqOptions> rabbitmq_options_from_url(std::string_view url);

}  // namespace whizbang

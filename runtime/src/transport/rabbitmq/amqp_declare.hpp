// Declaring the topology (rabbitmq_topology.hpp) on a connection. Declarations are idempotent:
// every (re)connect declares again, so a broker that lost its definitions gets them back.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "rabbitmq/amqp_connection.hpp"

namespace whizbang::rabbitmq {

// A durable topic exchange (the flags .NET declares it with: not auto-delete, no arguments).
absl::Status declare_exchange(AmqpConnection& connection, std::string_view exchange);

// Whether `exchange` exists (a passive declare), for an exchange its consumers declare and a
// publisher must not: NotFound when it does not. The broker closes the channel on NotFound:
// AmqpConnection::reopen_channel() makes the connection usable again.
absl::Status check_exchange_exists(AmqpConnection& connection, std::string_view exchange);

// The durable queue of one service on one exchange, its dead-letter exchange and queue (when
// enabled) and one binding per key.
absl::Status declare_queue(AmqpConnection& connection, std::string_view queue,
                           std::string_view exchange, const std::vector<std::string>& binding_keys,
                           bool dead_letters);

}  // namespace whizbang::rabbitmq

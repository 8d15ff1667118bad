#include "rabbitmq/amqp_declare.hpp"

#include "whizbang/transport/rabbitmq/rabbitmq_topology.hpp"

namespace whizbang::rabbitmq {
namespace {

constexpr amqp_channel_t kChannel = AmqpConnection::kChannel;

absl::Status declare_exchange_of_type(AmqpConnection& connection, std::string_view exchange,
                                      const char* type) {
  amqp_exchange_declare(connection.state(), kChannel, bytes_of(exchange), amqp_cstring_bytes(type),
                        /*passive=*/0, /*durable=*/1, /*auto_delete=*/0, /*internal=*/0,
                        amqp_empty_table);
  return connection.check_rpc("exchange.declare '" + std::string(exchange) + "'");
}

absl::Status declare_durable_queue(AmqpConnection& connection, std::string_view queue,
                                   amqp_table_t arguments) {
  amqp_queue_declare(connection.state(), kChannel, bytes_of(queue), /*passive=*/0, /*durable=*/1,
                     /*exclusive=*/0, /*auto_delete=*/0, arguments);
  return connection.check_rpc("queue.declare '" + std::string(queue) + "'");
}

absl::Status bind_queue(AmqpConnection& connection, std::string_view queue,
                        std::string_view exchange, std::string_view key) {
  amqp_queue_bind(connection.state(), kChannel, bytes_of(queue), bytes_of(exchange), bytes_of(key),
                  amqp_empty_table);
  return connection.check_rpc("queue.bind '" + std::string(queue) + "' to '" +
                              std::string(exchange) + "' with '" + std::string(key) + "'");
}

}  // namespace

absl::Status declare_exchange(AmqpConnection& connection, std::string_view exchange) {
  return declare_exchange_of_type(connection, exchange, "topic");
}

absl::Status check_exchange_exists(AmqpConnection& connection, std::string_view exchange) {
  // The type and flags of a passive declare are not compared: it only asks.
  amqp_exchange_declare(connection.state(), kChannel, bytes_of(exchange),
                        amqp_cstring_bytes("topic"), /*passive=*/1, /*durable=*/1,
                        /*auto_delete=*/0, /*internal=*/0, amqp_empty_table);
  return connection.check_rpc("exchange.declare (passive) '" + std::string(exchange) + "'");
}

absl::Status declare_queue(AmqpConnection& connection, std::string_view queue,
                           std::string_view exchange, const std::vector<std::string>& binding_keys,
                           bool dead_letters) {
  if (absl::Status status = declare_exchange(connection, exchange); !status.ok()) return status;
  const std::string dead_letter_exchange = rabbitmq_dead_letter_exchange(exchange);
  amqp_table_entry_t dead_letter_argument{};
  amqp_table_t arguments = amqp_empty_table;
  if (dead_letters) {
    if (absl::Status status = declare_exchange_of_type(connection, dead_letter_exchange, "fanout");
        !status.ok()) {
      return status;
    }
    const std::string dead_letter_queue = rabbitmq_dead_letter_queue(queue);
    if (absl::Status status =
            declare_durable_queue(connection, dead_letter_queue, amqp_empty_table);
        !status.ok()) {
      return status;
    }
    if (absl::Status status = bind_queue(connection, dead_letter_queue, dead_letter_exchange, "");
        !status.ok()) {
      return status;
    }
    dead_letter_argument.key = amqp_cstring_bytes("x-dead-letter-exchange");
    dead_letter_argument.value.kind = AMQP_FIELD_KIND_UTF8;
    dead_letter_argument.value.value.bytes = bytes_of(dead_letter_exchange);
    arguments = amqp_table_t{1, &dead_letter_argument};
  }
  if (absl::Status status = declare_durable_queue(connection, queue, arguments); !status.ok()) {
    return status;
  }
  for (const std::string& key : binding_keys) {
    if (absl::Status status = bind_queue(connection, queue, exchange, key); !status.ok())
      return status;
  }
  return absl::OkStatus();
}

}  // namespace whizbang::rabbitmq

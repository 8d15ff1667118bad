// A raw rabbitmq-c loop: the baseline RabbitMQ benchmarks compare the library with. One
// connection publishes 800-byte persistent messages (mandatory, publisher confirms, frames read
// until the ack covers the last tag), another consumes them (prefetch 100, an ack per message),
// through a durable topic exchange and queue of their own. With `library_properties`, each
// message also carries what the library's publishes carry besides the body (the type and
// correlation id properties, the EnvelopeType, CausationId and StreamId headers): the broker
// decodes a message's headers, so the same wire shape costs it the same there.
#pragma once

#include <amqp.h>
#include <amqp_tcp_socket.h>

#include <random>
#include <string>

#include "whizbang/ids/message_id.hpp"
#include "whizbang/transport/rabbitmq/rabbitmq_options.hpp"

namespace bench {

inline const std::string kAmqpBody(800, 'x');

inline std::string unique_amqp_name(const char* prefix) {
  static const unsigned run = std::random_device{}();
  static int counter = 0;
  return std::string(prefix) + "-" + std::to_string(run % 100000) + "-" + std::to_string(++counter);
}

inline whizbang::RabbitMqOptions bench_amqp_options() {
  auto options = whizbang::rabbitmq_options_from_url("");
  return options.ok() ? *options : whizbang::RabbitMqOptions{};
}

// A raw rabbitmq-c connection with channel 1 open.
struct RawConnection {
  amqp_connection_state_t state = amqp_new_connection();
  bool ok = false;
  explicit RawConnection(const whizbang::RabbitMqOptions& o) {
    amqp_socket_t* socket = amqp_tcp_socket_new(state);
    ok = amqp_socket_open(socket, o.host.c_str(), o.port) == AMQP_STATUS_OK &&
         amqp_login(state, o.vhost.c_str(), 0, 131072, 0, AMQP_SASL_METHOD_PLAIN, o.user.c_str(),
                    o.password.c_str())
                 .reply_type == AMQP_RESPONSE_NORMAL;
    if (ok) {
      amqp_channel_open(state, 1);
      ok = amqp_get_rpc_reply(state).reply_type == AMQP_RESPONSE_NORMAL;
    }
  }
  ~RawConnection() {
    if (ok) {
      amqp_channel_close(state, 1, AMQP_REPLY_SUCCESS);
      amqp_connection_close(state, AMQP_REPLY_SUCCESS);
    }
    amqp_destroy_connection(state);
  }
};

// The raw loop's side: a durable topic exchange and queue, a confirming publisher, a consumer.
struct RawLoop {
  whizbang::RabbitMqOptions o = bench_amqp_options();
  RawConnection publisher{o};
  RawConnection consumer{o};
  std::string exchange = unique_amqp_name("bench.raw");
  std::string queue = unique_amqp_name("bench-raw");
  std::uint64_t next_tag = 1;
  bool library_properties = false;

  RawLoop() = default;
  RawLoop(const RawLoop&) = delete;
  RawLoop& operator=(const RawLoop&) = delete;
  // The queue and exchange go with the loop: left behind, every run adds two to the broker.
  ~RawLoop() {
    if (!publisher.ok) return;
    amqp_queue_delete(publisher.state, 1, amqp_cstring_bytes(queue.c_str()), 0, 0);
    if (amqp_get_rpc_reply(publisher.state).reply_type != AMQP_RESPONSE_NORMAL) return;
    amqp_exchange_delete(publisher.state, 1, amqp_cstring_bytes(exchange.c_str()), 0);
  }

  bool setup() {
    if (!publisher.ok || !consumer.ok) return false;
    amqp_exchange_declare(publisher.state, 1, amqp_cstring_bytes(exchange.c_str()),
                          amqp_cstring_bytes("topic"), 0, 1, 0, 0, amqp_empty_table);
    amqp_queue_declare(publisher.state, 1, amqp_cstring_bytes(queue.c_str()), 0, 1, 0, 0,
                       amqp_empty_table);
    amqp_queue_bind(publisher.state, 1, amqp_cstring_bytes(queue.c_str()),
                    amqp_cstring_bytes(exchange.c_str()), amqp_cstring_bytes("#"),
                    amqp_empty_table);
    amqp_confirm_select(publisher.state, 1);
    amqp_basic_qos(consumer.state, 1, 0, 100, 0);
    amqp_basic_consume(consumer.state, 1, amqp_cstring_bytes(queue.c_str()), amqp_empty_bytes, 0, 0,
                       0, amqp_empty_table);
    return amqp_get_rpc_reply(consumer.state).reply_type == AMQP_RESPONSE_NORMAL;
  }

  bool publish(int count) {
    for (int i = 0; i < count; ++i) {
      const std::string id = whizbang::MessageId::mint().to_string();
      amqp_basic_properties_t props{};
      props._flags =
          AMQP_BASIC_DELIVERY_MODE_FLAG | AMQP_BASIC_MESSAGE_ID_FLAG | AMQP_BASIC_CONTENT_TYPE_FLAG;
      props.delivery_mode = AMQP_DELIVERY_PERSISTENT;
      props.message_id = amqp_cstring_bytes(id.c_str());
      props.content_type = amqp_cstring_bytes("application/json");
      std::string correlation;
      std::string causation;
      amqp_table_entry_t headers[3];
      if (library_properties) {
        correlation = whizbang::MessageId::mint().to_string();
        causation = whizbang::MessageId::mint().to_string();
        props._flags |=
            AMQP_BASIC_TYPE_FLAG | AMQP_BASIC_CORRELATION_ID_FLAG | AMQP_BASIC_HEADERS_FLAG;
        props.type = amqp_cstring_bytes("bench::Tick");
        props.correlation_id = amqp_cstring_bytes(correlation.c_str());
        const char* names[] = {"EnvelopeType", "CausationId", "StreamId"};
        const char* values[] = {
            "Whizbang.Core.Observability.MessageEnvelope`1[[Bench.Tick, Bench]], Whizbang.Core",
            causation.c_str(), id.c_str()};
        for (int h = 0; h < 3; ++h) {
          headers[h].key = amqp_cstring_bytes(names[h]);
          headers[h].value.kind = AMQP_FIELD_KIND_BYTES;
          headers[h].value.value.bytes = amqp_cstring_bytes(values[h]);
        }
        props.headers = amqp_table_t{3, headers};
      }
      if (amqp_basic_publish(publisher.state, 1, amqp_cstring_bytes(exchange.c_str()),
                             amqp_cstring_bytes("bench.raw"), 1, 0, &props,
                             amqp_cstring_bytes(kAmqpBody.c_str())) != AMQP_STATUS_OK) {
        return false;
      }
    }
    const std::uint64_t last = next_tag + static_cast<std::uint64_t>(count) - 1;
    next_tag = last + 1;
    for (;;) {
      amqp_frame_t frame;
      if (amqp_simple_wait_frame(publisher.state, &frame) != AMQP_STATUS_OK) return false;
      if (frame.frame_type == AMQP_FRAME_METHOD &&
          frame.payload.method.id == AMQP_BASIC_ACK_METHOD) {
        const auto* ack = static_cast<amqp_basic_ack_t*>(frame.payload.method.decoded);
        if (ack->delivery_tag >= last) return true;
      }
    }
  }

  // One delivery acked, or false after `timeout` (nullptr: no limit) or on a failure.
  bool consume_one(timeval* timeout) {
    amqp_envelope_t envelope;
    amqp_maybe_release_buffers(consumer.state);
    if (amqp_consume_message(consumer.state, &envelope, timeout, 0).reply_type !=
        AMQP_RESPONSE_NORMAL) {
      return false;
    }
    amqp_basic_ack(consumer.state, 1, envelope.delivery_tag, 0);
    amqp_destroy_envelope(&envelope);
    return true;
  }

  bool consume(int count) {
    for (int i = 0; i < count; ++i) {
      if (!consume_one(nullptr)) return false;
    }
    return true;
  }
};

}  // namespace bench

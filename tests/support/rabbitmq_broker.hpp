// The run's RabbitMQ broker for tests (the `rabbitmq` CTest fixture sets WHIZBANG_AMQP_URL), and
// a raw rabbitmq-c client to look at what the transport put on the broker, or to put there what
// another client (a .NET service, a crashed consumer) would.
#pragma once

#include <amqp.h>
#include <amqp_tcp_socket.h>
#include <gtest/gtest.h>
#include <sys/time.h>
#include <whizbang/transport/rabbitmq/rabbitmq_options.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace whizbang::test {

// The fixture's broker (or the one at `url`), with test-friendly timings (quick reconnects and
// polls).
inline RabbitMqOptions test_rabbitmq_options(std::string_view url = "") {
  absl::StatusOr<RabbitMqOptions> options = rabbitmq_options_from_url(url);
  EXPECT_TRUE(options.ok()) << options.status() << " (run through ctest: the rabbitmq fixture)";
  RabbitMqOptions result = options.ok() ? *options : RabbitMqOptions{};
  result.reconnect_initial_delay = std::chrono::milliseconds(50);
  result.reconnect_max_delay = std::chrono::milliseconds(500);
  result.consume_poll_interval = std::chrono::milliseconds(50);
  result.connect_timeout = std::chrono::milliseconds(2000);
  return result;
}

// Exchange, queue and service names no other test (or earlier run) uses.
inline std::string unique_name(std::string_view prefix) {
  static std::atomic<int> counter{0};
  static const unsigned run = std::random_device{}();
  return std::string(prefix) + "-" + std::to_string(run % 100000) + "-" + std::to_string(++counter);
}

// What a raw client read from a queue.
struct RawMessage {
  std::string body;
  std::string exchange;
  std::string routing_key;
  std::map<std::string, std::string> properties;  // content_type, message_id, type, …
  std::map<std::string, std::string> headers;     // string-valued headers
  std::map<std::string, char> header_kinds;       // every header's AMQP field type ('S', 't', …)
  std::optional<std::uint64_t> timestamp;         // the timestamp property, when set
  int delivery_mode = 0;
  bool redelivered = false;
};

class RawAmqp {
 public:
  explicit RawAmqp(const RabbitMqOptions& options) : state_(amqp_new_connection()) {
    amqp_socket_t* socket = amqp_tcp_socket_new(state_);
    ok_ = socket != nullptr &&
          amqp_socket_open(socket, options.host.c_str(), options.port) == AMQP_STATUS_OK &&
          amqp_login(state_, options.vhost.c_str(), 0, 131072, 0, AMQP_SASL_METHOD_PLAIN,
                     options.user.c_str(), options.password.c_str())
                  .reply_type == AMQP_RESPONSE_NORMAL;
    if (ok_) {
      amqp_channel_open(state_, 1);
      ok_ = rpc_ok();
    }
    EXPECT_TRUE(ok_) << "raw AMQP client could not connect to " << options.describe();
  }
  ~RawAmqp() {
    if (ok_) {
      amqp_channel_close(state_, 1, AMQP_REPLY_SUCCESS);
      amqp_connection_close(state_, AMQP_REPLY_SUCCESS);
    }
    amqp_destroy_connection(state_);
  }
  RawAmqp(const RawAmqp&) = delete;
  RawAmqp& operator=(const RawAmqp&) = delete;

  // A queue's message count; nullopt when the queue does not exist (that closes the channel,
  // so it is reopened).
  std::optional<std::uint32_t> message_count(const std::string& queue) {
    auto* ok = amqp_queue_declare(state_, 1, amqp_cstring_bytes(queue.c_str()), /*passive=*/1, 0, 0,
                                  0, amqp_empty_table);
    if (ok == nullptr || !rpc_ok()) {
      reopen_channel();
      return std::nullopt;
    }
    return ok->message_count;
  }

  bool exchange_exists(const std::string& exchange) {
    amqp_exchange_declare(state_, 1, amqp_cstring_bytes(exchange.c_str()),
                          amqp_cstring_bytes("topic"), /*passive=*/1, 0, 0, 0, amqp_empty_table);
    if (rpc_ok()) return true;
    reopen_channel();
    return false;
  }

  // Takes one message off `queue` (basic.get, acknowledged); nullopt when it is empty.
  std::optional<RawMessage> get(const std::string& queue) {
    amqp_rpc_reply_t reply = amqp_basic_get(state_, 1, amqp_cstring_bytes(queue.c_str()), 1);
    if (reply.reply_type != AMQP_RESPONSE_NORMAL || reply.reply.id != AMQP_BASIC_GET_OK_METHOD) {
      return std::nullopt;
    }
    const auto* get_ok = static_cast<amqp_basic_get_ok_t*>(reply.reply.decoded);
    RawMessage raw;
    raw.exchange = text(get_ok->exchange);
    raw.routing_key = text(get_ok->routing_key);
    raw.redelivered = get_ok->redelivered != 0;
    amqp_message_t message;
    if (amqp_read_message(state_, 1, &message, 0).reply_type != AMQP_RESPONSE_NORMAL) {
      return std::nullopt;
    }
    read_message(message, raw);
    amqp_destroy_message(&message);
    return raw;
  }

  // Waits up to `timeout` for one delivery from `queue` (consumed, acknowledged).
  std::optional<RawMessage> consume_one(const std::string& queue,
                                        std::chrono::milliseconds timeout) {
    amqp_basic_consume(state_, 1, amqp_cstring_bytes(queue.c_str()), amqp_empty_bytes, 0, 0, 0,
                       amqp_empty_table);
    if (!rpc_ok()) return std::nullopt;
    timeval tv{static_cast<time_t>(timeout.count() / 1000),
               static_cast<suseconds_t>((timeout.count() % 1000) * 1000)};
    amqp_envelope_t envelope;
    amqp_maybe_release_buffers(state_);
    if (amqp_consume_message(state_, &envelope, &tv, 0).reply_type != AMQP_RESPONSE_NORMAL) {
      return std::nullopt;
    }
    RawMessage raw;
    raw.exchange = text(envelope.exchange);
    raw.routing_key = text(envelope.routing_key);
    raw.redelivered = envelope.redelivered != 0;
    read_message(envelope.message, raw);
    amqp_basic_ack(state_, 1, envelope.delivery_tag, 0);
    amqp_destroy_envelope(&envelope);
    return raw;
  }

  // Publishes as another client would: the properties and string headers given (and `extra`
  // headers of any type), nothing else.
  bool publish(const std::string& exchange, const std::string& routing_key, const std::string& body,
               const std::map<std::string, std::string>& properties,
               const std::map<std::string, std::string>& headers,
               const std::vector<amqp_table_entry_t>& extra = {}) {
    amqp_basic_properties_t props{};
    props._flags = AMQP_BASIC_DELIVERY_MODE_FLAG;
    props.delivery_mode = AMQP_DELIVERY_PERSISTENT;
    auto set = [&](const char* name, amqp_flags_t flag, amqp_bytes_t& field) {
      auto found = properties.find(name);
      if (found == properties.end()) return;
      props._flags |= flag;
      field = exact_bytes(found->second);
    };
    set("content_type", AMQP_BASIC_CONTENT_TYPE_FLAG, props.content_type);
    set("message_id", AMQP_BASIC_MESSAGE_ID_FLAG, props.message_id);
    set("correlation_id", AMQP_BASIC_CORRELATION_ID_FLAG, props.correlation_id);
    set("type", AMQP_BASIC_TYPE_FLAG, props.type);
    std::vector<amqp_table_entry_t> entries;
    for (const auto& [key, value] : headers) {
      amqp_table_entry_t entry{};
      entry.key = exact_bytes(key);
      entry.value.kind = AMQP_FIELD_KIND_BYTES;
      entry.value.value.bytes = exact_bytes(value);
      entries.push_back(entry);
    }
    entries.insert(entries.end(), extra.begin(), extra.end());
    if (!entries.empty()) {
      props._flags |= AMQP_BASIC_HEADERS_FLAG;
      props.headers = amqp_table_t{static_cast<int>(entries.size()), entries.data()};
    }
    return amqp_basic_publish(state_, 1, amqp_cstring_bytes(exchange.c_str()),
                              amqp_cstring_bytes(routing_key.c_str()), 0, 0, &props,
                              exact_bytes(body)) == AMQP_STATUS_OK;
  }

  // The bytes of `text` as they are, NULs and all (amqp_cstring_bytes stops at the first NUL).
  static amqp_bytes_t exact_bytes(const std::string& text) {
    return amqp_bytes_t{text.size(), const_cast<char*>(text.data())};
  }

  // A queue bound to `exchange`, as another service (e.g. a .NET one) would declare it.
  bool declare_bound_queue(const std::string& queue, const std::string& exchange,
                           const std::string& binding_key) {
    amqp_exchange_declare(state_, 1, amqp_cstring_bytes(exchange.c_str()),
                          amqp_cstring_bytes("topic"), 0, 1, 0, 0, amqp_empty_table);
    if (!rpc_ok()) return false;
    amqp_queue_declare(state_, 1, amqp_cstring_bytes(queue.c_str()), 0, 1, 0, 0, amqp_empty_table);
    if (!rpc_ok()) return false;
    amqp_queue_bind(state_, 1, amqp_cstring_bytes(queue.c_str()),
                    amqp_cstring_bytes(exchange.c_str()), amqp_cstring_bytes(binding_key.c_str()),
                    amqp_empty_table);
    return rpc_ok();
  }

 private:
  static std::string text(amqp_bytes_t bytes) {
    return {static_cast<const char*>(bytes.bytes), bytes.len};
  }
  static void read_message(const amqp_message_t& message, RawMessage& raw) {
    raw.body = text(message.body);
    const amqp_basic_properties_t& p = message.properties;
    if (p._flags & AMQP_BASIC_CONTENT_TYPE_FLAG)
      raw.properties["content_type"] = text(p.content_type);
    if (p._flags & AMQP_BASIC_MESSAGE_ID_FLAG) raw.properties["message_id"] = text(p.message_id);
    if (p._flags & AMQP_BASIC_TYPE_FLAG) raw.properties["type"] = text(p.type);
    if (p._flags & AMQP_BASIC_CORRELATION_ID_FLAG) {
      raw.properties["correlation_id"] = text(p.correlation_id);
    }
    if (p._flags & AMQP_BASIC_DELIVERY_MODE_FLAG) raw.delivery_mode = p.delivery_mode;
    if (p._flags & AMQP_BASIC_TIMESTAMP_FLAG) raw.timestamp = p.timestamp;
    if (p._flags & AMQP_BASIC_HEADERS_FLAG) {
      for (int i = 0; i < p.headers.num_entries; ++i) {
        const amqp_table_entry_t& entry = p.headers.entries[i];
        raw.header_kinds[text(entry.key)] = static_cast<char>(entry.value.kind);
        if (entry.value.kind == AMQP_FIELD_KIND_BYTES || entry.value.kind == AMQP_FIELD_KIND_UTF8) {
          raw.headers[text(entry.key)] = text(entry.value.value.bytes);
        }
      }
    }
  }
  bool rpc_ok() { return amqp_get_rpc_reply(state_).reply_type == AMQP_RESPONSE_NORMAL; }
  void reopen_channel() {
    // A failed passive declare closed channel 1: confirm the close, open it again.
    amqp_channel_close_ok_t close_ok{};
    amqp_send_method(state_, 1, AMQP_CHANNEL_CLOSE_OK_METHOD, &close_ok);
    amqp_channel_open(state_, 1);
    rpc_ok();
  }

  amqp_connection_state_t state_;
  bool ok_ = false;
};

}  // namespace whizbang::test

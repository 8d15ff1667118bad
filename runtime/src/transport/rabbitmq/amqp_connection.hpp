// AmqpConnection: one rabbitmq-c connection with one open channel, owned by one thread at a time
// (rabbitmq-c connections are not thread-safe). Every failure comes back as a status with
// context, and marks the connection broken: after any error the owner drops it and reconnects
// (rabbitmq-c has no recovery of its own).
#pragma once

#include <amqp.h>
#include <sys/time.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "whizbang/transport/rabbitmq/rabbitmq_options.hpp"

namespace whizbang::rabbitmq {

// A duration as rabbitmq-c's timeouts take it.
timeval to_timeval(std::chrono::milliseconds duration);

inline amqp_bytes_t bytes_of(std::string_view text) {
  return amqp_bytes_t{text.size(), const_cast<char*>(text.data())};
}
inline std::string_view view_of(amqp_bytes_t bytes) {
  return {static_cast<const char*>(bytes.bytes), bytes.len};
}

class AmqpConnection {
 public:
  static constexpr amqp_channel_t kChannel = 1;

  // Connects, logs in and opens the channel, within the options' timeouts.
  static absl::StatusOr<std::unique_ptr<AmqpConnection>> open(const RabbitMqOptions& options);
  ~AmqpConnection();
  AmqpConnection(const AmqpConnection&) = delete;
  AmqpConnection& operator=(const AmqpConnection&) = delete;

  amqp_connection_state_t state() const { return state_; }
  bool broken() const { return broken_; }
  // True for a TLS connection: its socket carries TLS records, written only by rabbitmq-c.
  bool tls() const { return tls_; }
  // Marks the connection unusable (a library call failed, the broker closed it).
  absl::Status fail(absl::Status status);

  // The status of the last synchronous call (declare, bind, qos, consume, confirm.select).
  absl::Status check_rpc(std::string_view what);
  // The status of a library call that returns an amqp_status_enum.
  absl::Status check(int status, std::string_view what);

  // Answers a connection.close or channel.close the broker sent (a frame the owner read), and
  // returns the reason as a status; the connection is broken afterwards.
  absl::Status answer_close(const amqp_frame_t& frame);

  // After a synchronous call the broker refused by closing only the channel (a passive declare
  // of an exchange that does not exist): opens the channel again and makes the connection
  // usable. Not OK (and still broken) otherwise.
  absl::Status reopen_channel();

 private:
  AmqpConnection(amqp_connection_state_t state, std::string endpoint)
      : state_(state), endpoint_(std::move(endpoint)) {}

  amqp_connection_state_t state_;
  std::string endpoint_;  // for messages: without the password
  bool broken_ = false;
  bool channel_closed_ = false;  // the broker closed the channel alone; the connection lives
  bool logged_in_ = false;
  bool tls_ = false;
};

// A close method's reply code and text, e.g. "404 NOT_FOUND - no exchange 'x'".
std::string describe_close(const amqp_method_t& method);

}  // namespace whizbang::rabbitmq

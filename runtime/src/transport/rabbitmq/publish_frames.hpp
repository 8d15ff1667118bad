// PublishFrames: a batch of basic.publish messages encoded into one buffer, byte for byte the
// frames amqp_basic_publish sends (method, content header, body split at the frame size), so a
// batch leaves the process in one write instead of three per message.
//
// rabbitmq-c sends each frame with its own system call: 300 calls for 100 messages, about a
// millisecond of the drain thread's time on these machines, while the broker waits for the
// batch (docs/guide/13-rabbitmq.md, "What it costs"). Writing the encoded batch with
// write_all() is safe between library calls: rabbitmq-c buffers nothing it sends, so no frame of
// its own is ever half-written when a call returns. Only for a plain TCP connection: a TLS
// connection's socket carries TLS records, which only rabbitmq-c can write.
//
//   PublishFrames frames(amqp_get_frame_max(state));
//   for (...) WB_RETURN_IF_ERROR(frames.add(channel, exchange, key, true, properties, body));
//   WB_RETURN_IF_ERROR(write_all(amqp_get_sockfd(state), frames.bytes(), deadline));
#pragma once

#include <amqp.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace whizbang::rabbitmq {

class PublishFrames {
 public:
  // `frame_max`: the connection's negotiated frame size (amqp_get_frame_max).
  explicit PublishFrames(std::size_t frame_max);

  // Appends one message's frames. Fails (and appends nothing) when the exchange or routing key
  // is longer than AMQP allows or the properties do not fit in one frame.
  absl::Status add(amqp_channel_t channel, amqp_bytes_t exchange, amqp_bytes_t routing_key,
                   bool mandatory, const amqp_basic_properties_t& properties, amqp_bytes_t body);

  std::string_view bytes() const { return buffer_; }

 private:
  void append_frame(std::uint8_t type, amqp_channel_t channel, std::string_view payload);

  std::size_t frame_max_;
  std::unique_ptr<std::uint8_t[]> scratch_;  // one frame's payload, encoded before it is framed
  std::string buffer_;
};

// Writes all of `bytes` to the (non-blocking) socket `fd`, waiting for room as needed until
// `deadline`. A failure leaves the stream cut mid-frame: the caller drops the connection.
absl::Status write_all(int fd, std::string_view bytes,
                       std::chrono::steady_clock::time_point deadline);

}  // namespace whizbang::rabbitmq

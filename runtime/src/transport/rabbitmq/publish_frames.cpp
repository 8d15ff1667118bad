#include "rabbitmq/publish_frames.hpp"

#include <amqp_framing.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "fmt/format.h"
#include "rabbitmq/amqp_connection.hpp"

namespace whizbang::rabbitmq {
namespace {

// A frame: type (1 byte), channel (2), payload size (4), payload, frame end (1).
constexpr std::size_t kFrameHeader = 7;
constexpr std::size_t kFrameFooter = 1;
// A content header's payload before its properties: class (2), weight (2), body size (8).
constexpr std::size_t kContentHeaderFields = 12;
constexpr std::size_t kMethodId = 4;

void put_big_endian(std::uint8_t* at, std::uint64_t value, std::size_t width) {
  for (std::size_t i = 0; i < width; ++i) {
    at[i] = static_cast<std::uint8_t>(value >> (8 * (width - 1 - i)));
  }
}

std::string_view view(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace

PublishFrames::PublishFrames(std::size_t frame_max)
    : frame_max_(frame_max), scratch_(std::make_unique_for_overwrite<std::uint8_t[]>(frame_max_)) {}

void PublishFrames::append_frame(std::uint8_t type, amqp_channel_t channel,
                                 std::string_view payload) {
  std::uint8_t header[kFrameHeader];
  header[0] = type;
  put_big_endian(header + 1, channel, 2);
  put_big_endian(header + 3, payload.size(), 4);
  buffer_.append(view(header, kFrameHeader)).append(payload);
  buffer_.push_back(static_cast<char>(AMQP_FRAME_END));
}

absl::Status PublishFrames::add(amqp_channel_t channel, amqp_bytes_t exchange,
                                amqp_bytes_t routing_key, bool mandatory,
                                const amqp_basic_properties_t& properties, amqp_bytes_t body) {
  const std::size_t payload_max = frame_max_ - kFrameHeader - kFrameFooter;
  const std::size_t size_before = buffer_.size();

  amqp_basic_publish_t method{};
  method.exchange = exchange;
  method.routing_key = routing_key;
  method.mandatory = mandatory ? 1 : 0;
  put_big_endian(scratch_.get(), AMQP_BASIC_PUBLISH_METHOD, kMethodId);
  const int arguments =
      amqp_encode_method(AMQP_BASIC_PUBLISH_METHOD, &method,
                         amqp_bytes_t{payload_max - kMethodId, scratch_.get() + kMethodId});
  if (arguments < 0) {
    return absl::InvalidArgumentError(
        fmt::format("cannot encode basic.publish to '{}' with routing key '{}': {}",
                    view_of(exchange), view_of(routing_key), amqp_error_string2(arguments)));
  }
  append_frame(AMQP_FRAME_METHOD, channel,
               view(scratch_.get(), kMethodId + static_cast<std::size_t>(arguments)));

  put_big_endian(scratch_.get(), AMQP_BASIC_CLASS, 2);
  put_big_endian(scratch_.get() + 2, 0, 2);  // weight
  put_big_endian(scratch_.get() + 4, body.len, 8);
  const int encoded = amqp_encode_properties(
      AMQP_BASIC_CLASS, const_cast<amqp_basic_properties_t*>(&properties),
      amqp_bytes_t{payload_max - kContentHeaderFields, scratch_.get() + kContentHeaderFields});
  if (encoded < 0) {
    buffer_.resize(size_before);
    return absl::InvalidArgumentError(fmt::format(
        "cannot encode a message's properties in one frame: {}", amqp_error_string2(encoded)));
  }
  append_frame(AMQP_FRAME_HEADER, channel,
               view(scratch_.get(), kContentHeaderFields + static_cast<std::size_t>(encoded)));

  const auto* data = static_cast<const std::uint8_t*>(body.bytes);
  for (std::size_t offset = 0; offset < body.len; offset += payload_max) {
    append_frame(AMQP_FRAME_BODY, channel,
                 view(data + offset, std::min(payload_max, body.len - offset)));
  }
  return absl::OkStatus();
}

absl::Status write_all(int fd, std::string_view bytes,
                       std::chrono::steady_clock::time_point deadline) {
  while (!bytes.empty()) {
    const ssize_t sent = send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (sent > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(sent));
      continue;
    }
    if (sent < 0 && errno == EINTR) continue;
    if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      return absl::UnavailableError(
          fmt::format("cannot write to the broker: {}", std::strerror(errno)));
    }
    // The socket's buffer is full: wait for the broker to read.
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      return absl::DeadlineExceededError(
          fmt::format("the broker did not read {} bytes of a publish in time", bytes.size()));
    }
    pollfd writable{fd, POLLOUT, 0};
    const int ready =
        poll(&writable, 1, static_cast<int>(std::min<std::int64_t>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) {
      return absl::UnavailableError(
          fmt::format("cannot wait to write to the broker: {}", std::strerror(errno)));
    }
  }
  return absl::OkStatus();
}

}  // namespace whizbang::rabbitmq

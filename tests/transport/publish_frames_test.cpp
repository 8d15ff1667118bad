// PublishFrames and write_all (the RabbitMQ publisher's one write per batch): the frames are the
// bytes amqp_basic_publish sends, and the write gets all of them through a socket that cannot
// hold them at once, or fails with a status.
#include "transport/rabbitmq/publish_frames.hpp"

#include <amqp_tcp_socket.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "transport/rabbitmq/amqp_connection.hpp"
#include "transport/rabbitmq/amqp_message.hpp"
#include "whizbang/ids/message_id.hpp"

namespace {

using whizbang::MessageId;
using whizbang::TransportDestination;
using whizbang::TransportMessage;
using whizbang::rabbitmq::bytes_of;
using whizbang::rabbitmq::PublishFrames;
using whizbang::rabbitmq::write_all;

constexpr amqp_channel_t kChannel = 1;
constexpr int kFrameMax = 4096;  // AMQP's smallest: a body of 10000 bytes takes three frames

void set_nonblocking(int fd) { ASSERT_EQ(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK), 0); }

// Everything readable on `fd` now (a non-blocking socket whose writer has finished).
std::string read_available(int fd) {
  std::string bytes;
  char chunk[8192];
  for (;;) {
    const ssize_t got = read(fd, chunk, sizeof chunk);
    if (got <= 0) return bytes;
    bytes.append(chunk, static_cast<std::size_t>(got));
  }
}

struct Publish {
  TransportDestination destination;
  TransportMessage message;
};

std::vector<Publish> sample_publishes() {
  Publish with_headers;
  with_headers.destination = {"orders.events", "orders.created", {{"Tenant", "acme"}}};
  with_headers.message.message_id = MessageId::mint();
  with_headers.message.message_type = "shop::OrderCreated";
  with_headers.message.envelope_json = std::string(10000, 'x');
  with_headers.message.stream_id = MessageId::mint().uuid();
  with_headers.message.is_event = true;
  with_headers.message.correlation_id = MessageId::mint();
  with_headers.message.causation_id = MessageId::mint();
  Publish plain;
  plain.destination = {"inbox", "", {}};
  plain.message.message_id = MessageId::mint();
  plain.message.message_type = "shop::PlaceOrder";
  plain.message.envelope_json = R"({"id":"x"})";
  Publish empty_body = plain;
  empty_body.message.envelope_json.clear();
  return {with_headers, plain, empty_body};
}

TEST(PublishFramesTests, ABatch_IsTheBytesAmqpBasicPublishSends) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  set_nonblocking(fds[1]);
  amqp_connection_state_t state = amqp_new_connection();
  amqp_socket_t* socket = amqp_tcp_socket_new(state);
  amqp_tcp_socket_set_sockfd(socket, fds[0]);  // the state owns and closes it
  // As if the broker had answered the protocol header: the state may then be tuned.
  std::string broker_header("AMQP\x00\x00\x09\x01", 8);
  amqp_frame_t frame;
  ASSERT_EQ(amqp_handle_input(state, bytes_of(broker_header), &frame), 8);
  ASSERT_EQ(amqp_tune_connection(state, 0, kFrameMax, 0), AMQP_STATUS_OK);

  const std::vector<Publish> publishes = sample_publishes();
  PublishFrames frames(static_cast<std::size_t>(amqp_get_frame_max(state)));
  for (const Publish& publish : publishes) {
    const whizbang::rabbitmq::OutgoingProperties properties(publish.destination, publish.message);
    ASSERT_EQ(amqp_basic_publish(state, kChannel, bytes_of(publish.destination.address),
                                 bytes_of(publish.destination.routing_key), /*mandatory=*/1,
                                 /*immediate=*/0, properties.properties(),
                                 bytes_of(publish.message.envelope_json)),
              AMQP_STATUS_OK);
    ASSERT_TRUE(frames
                    .add(kChannel, bytes_of(publish.destination.address),
                         bytes_of(publish.destination.routing_key), /*mandatory=*/true,
                         *properties.properties(), bytes_of(publish.message.envelope_json))
                    .ok());
  }
  const std::string sent = read_available(fds[1]);
  amqp_destroy_connection(state);
  close(fds[1]);

  ASSERT_GT(sent.size(), 10000u);
  EXPECT_EQ(frames.bytes(), sent);
}

TEST(PublishFramesTests, AnExchangeNameLongerThanAmqpAllows_IsRefused_AndAddsNothing) {
  PublishFrames frames(kFrameMax);
  const std::string too_long(256, 'e');  // a shortstr holds at most 255 bytes
  const Publish publish = sample_publishes()[1];
  const whizbang::rabbitmq::OutgoingProperties properties(publish.destination, publish.message);
  ASSERT_TRUE(frames
                  .add(kChannel, bytes_of("inbox"), bytes_of(""), true, *properties.properties(),
                       bytes_of(publish.message.envelope_json))
                  .ok());
  const std::string before(frames.bytes());

  const absl::Status refused = frames.add(kChannel, bytes_of(too_long), bytes_of(""), true,
                                          *properties.properties(), bytes_of("{}"));

  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument) << refused;
  EXPECT_EQ(frames.bytes(), before);
}

TEST(PublishFramesTests, WriteAll_GetsMoreThanTheSocketHoldsThrough_AsThePeerReads) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  set_nonblocking(fds[0]);
  const int small = 4096;
  ASSERT_EQ(setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small), 0);
  std::string payload(1 << 20, '\0');
  for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(i * 31 % 251);

  std::string received;
  std::thread reader([&] {
    char chunk[4096];
    while (received.size() < payload.size()) {
      const ssize_t got = read(fds[1], chunk, sizeof chunk);  // blocking
      if (got <= 0) return;
      received.append(chunk, static_cast<std::size_t>(got));
    }
  });
  const absl::Status written =
      write_all(fds[0], payload, std::chrono::steady_clock::now() + std::chrono::seconds(30));
  reader.join();
  close(fds[0]);
  close(fds[1]);

  EXPECT_TRUE(written.ok()) << written;
  EXPECT_TRUE(received == payload);
}

TEST(PublishFramesTests, WriteAll_ToAClosedPeer_FailsWithAStatus) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  set_nonblocking(fds[0]);
  close(fds[1]);

  const absl::Status written =
      write_all(fds[0], "frames", std::chrono::steady_clock::now() + std::chrono::seconds(30));
  close(fds[0]);

  EXPECT_EQ(written.code(), absl::StatusCode::kUnavailable) << written;  // and no SIGPIPE
}

TEST(PublishFramesTests, WriteAll_ToAPeerThatNeverReads_FailsAtTheDeadline) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  set_nonblocking(fds[0]);
  const std::string payload(8 << 20, 'x');  // more than any socket buffer holds

  const absl::Status written =
      write_all(fds[0], payload, std::chrono::steady_clock::now() + std::chrono::milliseconds(50));
  close(fds[0]);
  close(fds[1]);

  EXPECT_EQ(written.code(), absl::StatusCode::kDeadlineExceeded) << written;
}

}  // namespace

// CorkedWrites (the RabbitMQ publisher's batching of its socket writes): corked for its scope
// only, so a batch's bytes leave when it ends and a later single publish is never held back.
#include "transport/rabbitmq/corked_writes.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <string_view>

namespace {

// A connected pair of TCP sockets on the loopback interface.
class TcpPair {
 public:
  TcpPair() {
    const int listener = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (listener < 0 || bind(listener, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
        listen(listener, 1) != 0 ||
        getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      if (listener >= 0) close(listener);
      return;
    }
    sender = socket(AF_INET, SOCK_STREAM, 0);
    if (sender >= 0 && connect(sender, reinterpret_cast<sockaddr*>(&address), length) == 0) {
      receiver = accept(listener, nullptr, nullptr);
    }
    close(listener);
  }
  ~TcpPair() {
    if (sender >= 0) close(sender);
    if (receiver >= 0) close(receiver);
  }
  bool ok() const { return sender >= 0 && receiver >= 0; }

  int sender = -1;
  int receiver = -1;
};

int cork_of(int fd) {
  int value = -1;
  socklen_t length = sizeof value;
  return getsockopt(fd, IPPROTO_TCP, TCP_CORK, &value, &length) == 0 ? value : -1;
}

TEST(CorkedWritesTests, CorksTheSocketForItsScopeOnly) {
  TcpPair pair;
  ASSERT_TRUE(pair.ok());
  EXPECT_EQ(cork_of(pair.sender), 0);
  {
    whizbang::rabbitmq::CorkedWrites corked(pair.sender);
    EXPECT_EQ(cork_of(pair.sender), 1);
  }
  EXPECT_EQ(cork_of(pair.sender), 0);
}

TEST(CorkedWritesTests, WhatWasWrittenCorked_ArrivesOnceTheScopeEnds) {
  TcpPair pair;
  ASSERT_TRUE(pair.ok());
  constexpr std::string_view kFrames = "method|header|body";
  {
    whizbang::rabbitmq::CorkedWrites corked(pair.sender);
    for (char c : kFrames) ASSERT_EQ(send(pair.sender, &c, 1, MSG_NOSIGNAL), 1);
  }
  std::array<char, 64> received{};
  std::size_t total = 0;
  while (total < kFrames.size()) {
    pollfd readable{pair.receiver, POLLIN, 0};
    ASSERT_EQ(poll(&readable, 1, 10'000), 1) << "the corked bytes never left";
    const ssize_t n = recv(pair.receiver, received.data() + total, received.size() - total, 0);
    ASSERT_GT(n, 0);
    total += static_cast<std::size_t>(n);
  }
  EXPECT_EQ(std::string_view(received.data(), total), kFrames);
}

TEST(CorkedWritesTests, NoSocketOrOneThatCannotBeCorked_IsLeftAlone) {
  {
    whizbang::rabbitmq::CorkedWrites no_socket(-1);
  }
  int unix_pair[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, unix_pair), 0);
  {
    whizbang::rabbitmq::CorkedWrites not_tcp(unix_pair[0]);
    EXPECT_EQ(send(unix_pair[0], "x", 1, MSG_NOSIGNAL), 1);
  }
  char byte = 0;
  EXPECT_EQ(recv(unix_pair[1], &byte, 1, 0), 1);
  EXPECT_EQ(byte, 'x');
  close(unix_pair[0]);
  close(unix_pair[1]);
}

}  // namespace

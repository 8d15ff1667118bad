// RawHttpClient: a blocking TCP client that sends exactly the bytes a test gives it, for the HTTP
// server's tests (http_server_test.cpp): partial heads, oversized headers, bodies nobody asked
// for. It reads responses by their Content-Length and tells EOF (or a reset) from silence.
//
//   RawHttpClient client(port);
//   client.send("GET /livez HTTP/1.1\r\nHost: t\r\n\r\n");
//   RawHttpResponse response = client.read_response();  // status 200, body "ok\n"
//   client.send("GET /livez HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
//   client.read_response();
//   EXPECT_TRUE(client.closed_by_server());
//
// Every read waits at most kReceiveGuard: a failure guard, never part of what a test asserts.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <string>
#include <string_view>

namespace http_test {

struct RawHttpResponse {
  int status = 0;  // 0: no complete response arrived
  std::string head;
  std::string body;
  bool has_header(std::string_view line) const { return head.find(line) != std::string::npos; }
};

class RawHttpClient {
 public:
  static constexpr int kReceiveGuardSeconds = 5;

  // Connects to 127.0.0.1:port, from `source` (another loopback address is another client).
  // `receive_buffer`: a fixed kernel receive buffer (no autotuning), for a client that stalls.
  explicit RawHttpClient(int port, const char* source = nullptr, int receive_buffer = 0) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    timeval guard{kReceiveGuardSeconds, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &guard, sizeof guard);
    setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &guard, sizeof guard);
    if (receive_buffer > 0) {
      setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
    }
    if (source != nullptr) {
      sockaddr_in local{};
      local.sin_family = AF_INET;
      inet_pton(AF_INET, source, &local.sin_addr);
      bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof local);
    }
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  }
  ~RawHttpClient() { close(fd_); }
  RawHttpClient(const RawHttpClient&) = delete;
  RawHttpClient& operator=(const RawHttpClient&) = delete;

  bool connected() const { return connected_; }
  int fd() const { return fd_; }

  // False once the server has closed or reset the connection.
  bool send(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t sent = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (sent <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(sent));
    }
    return true;
  }

  // One response; without a body for a HEAD request. status 0 when the connection ended first.
  RawHttpResponse read_response(bool head_request = false) {
    RawHttpResponse response;
    size_t end = 0;
    while ((end = pending_.find("\r\n\r\n")) == std::string::npos) {
      if (!receive_some()) return response;
    }
    response.head = pending_.substr(0, end + 4);
    pending_.erase(0, end + 4);
    size_t length = 0;
    if (const size_t at = response.head.find("Content-Length: "); at != std::string::npos) {
      length = std::strtoul(response.head.c_str() + at + 16, nullptr, 10);
    }
    if (head_request) length = 0;
    while (pending_.size() < length) {
      if (!receive_some()) return response;
    }
    response.body = pending_.substr(0, length);
    pending_.erase(0, length);
    if (response.head.rfind("HTTP/1.", 0) == 0) response.status = std::atoi(&response.head[9]);
    return response;
  }

  // Reads until the server closes (EOF or a reset): true then, false when the guard ran out.
  // What arrived before the end is kept (`received()`).
  bool closed_by_server() {
    while (receive_some()) {
    }
    return ended_;
  }
  const std::string& received() const { return pending_; }

  // True once the server has reset the connection or ended its side, without reading what it
  // sent before (a client that never reads); false when the guard ran out.
  bool hung_up_by_server() {
    pollfd polled{fd_, POLLRDHUP, 0};
    return poll(&polled, 1, kReceiveGuardSeconds * 1000) == 1 &&
           (polled.revents & (POLLHUP | POLLERR | POLLRDHUP)) != 0;
  }

  // The attack of a client sending its request slowly: one byte of `bytes` per `pace`, until the
  // server closes the connection (true) or the bytes run out first (false).
  bool dribble_until_closed(std::string_view bytes, std::chrono::milliseconds pace) {
    for (const char byte : bytes) {
      if (!send(std::string_view(&byte, 1))) return true;
      pollfd polled{fd_, POLLIN, 0};
      if (poll(&polled, 1, static_cast<int>(pace.count())) == 1) return closed_by_server();
    }
    return false;
  }
  bool reset_by_server() const { return reset_; }

 private:
  // False at EOF, a reset or the guard's timeout.
  bool receive_some() {
    if (ended_) return false;
    char chunk[4096];
    const ssize_t got = recv(fd_, chunk, sizeof chunk, 0);
    if (got > 0) {
      pending_.append(chunk, static_cast<size_t>(got));
      return true;
    }
    if (got == 0 || errno == ECONNRESET) {
      ended_ = true;
      reset_ = got < 0;
    }
    return false;
  }

  int fd_ = -1;
  bool connected_ = false;
  bool ended_ = false;
  bool reset_ = false;
  std::string pending_;
};

}  // namespace http_test

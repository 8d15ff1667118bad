// CorkedWrites: holds a TCP socket's partial segments back while a batch is written, and sends
// them together when it ends (TCP_CORK).
//
// rabbitmq-c writes a message as three frames and pushes each message out as it is written: on a
// connection to a local broker, every push runs the broker's receive path on the sending thread
// and wakes the broker once per message. Corked, a batch of 100 publishes leaves in a few full
// segments, and the broker reads them in a few wake-ups (docs/guide/13-rabbitmq.md, "What it
// costs"). The publisher corks a TLS connection's batches, whose records only rabbitmq-c can
// write; a plain TCP connection's batch is encoded and written at once (publish_frames.hpp). The
// cork must end before the socket is closed: it is scoped to the writing loop.
//
//   {
//     CorkedWrites corked(amqp_get_sockfd(state));
//     for (...) amqp_basic_publish(...);
//   }  // uncorked: what is held back leaves now
#pragma once

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

namespace whizbang::rabbitmq {

class CorkedWrites {
 public:
  // `fd` < 0 (no socket) corks nothing. A socket that cannot be corked is written as before.
  explicit CorkedWrites(int fd) : fd_(fd) {
    if (fd_ >= 0 && !set(1)) fd_ = -1;
  }
  ~CorkedWrites() {
    if (fd_ >= 0) (void)set(0);
  }
  CorkedWrites(const CorkedWrites&) = delete;
  CorkedWrites& operator=(const CorkedWrites&) = delete;

 private:
  bool set(int on) const { return setsockopt(fd_, IPPROTO_TCP, TCP_CORK, &on, sizeof on) == 0; }

  int fd_;
};

}  // namespace whizbang::rabbitmq

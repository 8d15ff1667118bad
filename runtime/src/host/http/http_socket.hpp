// The HTTP server's sockets: the listening socket, and the key by which it counts a client's
// connections.
//
//   absl::StatusOr<ListeningSocket> socket = listen_on("127.0.0.1", 0);  // 0: any free port
//   socket->port;                                                     // the port it got
//   std::string client = client_key(peer_address_from_accept);
#pragma once

#include <sys/socket.h>

#include <string>

#include "absl/status/statusor.h"

namespace whizbang::http {

struct ListeningSocket {
  int fd = -1;  // non-blocking, close-on-exec; the caller closes it
  int port = 0;
};

// Binds `address` (a numeric address or a host name; the first of its addresses that binds) and
// `port`, and listens. UnavailableError saying why when it cannot.
absl::StatusOr<ListeningSocket> listen_on(const std::string& address, int port);

// The peer's address as bytes, without its port: an IPv4 client connecting over IPv6 (as
// ::ffff:a.b.c.d) has the same key as over IPv4.
std::string client_key(const sockaddr_storage& peer);

}  // namespace whizbang::http

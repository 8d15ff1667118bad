#include "http/http_socket.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace whizbang::http {
namespace {

absl::Status cannot_listen(const std::string& address, int port, std::string_view why) {
  std::string message = "cannot listen on ";
  message.append(address).append(":").append(std::to_string(port)).append(": ").append(why);
  return absl::UnavailableError(message);
}

int bound_port(int fd) {
  sockaddr_storage bound{};
  socklen_t length = sizeof bound;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length) != 0) return -1;
  if (bound.ss_family == AF_INET6) {
    return ntohs(reinterpret_cast<const sockaddr_in6*>(&bound)->sin6_port);
  }
  return ntohs(reinterpret_cast<const sockaddr_in*>(&bound)->sin_port);
}

}  // namespace

absl::StatusOr<ListeningSocket> listen_on(const std::string& address, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (const int error = getaddrinfo(address.c_str(), std::to_string(port).c_str(), &hints, &found);
      error != 0) {
    return cannot_listen(address, port, gai_strerror(error));
  }
  const std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> addresses(found, &freeaddrinfo);
  std::string why = "no address";
  for (const addrinfo* candidate = found; candidate != nullptr; candidate = candidate->ai_next) {
    const int fd =
        socket(candidate->ai_family, candidate->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
               candidate->ai_protocol);
    if (fd < 0) {
      why = std::strerror(errno);
      continue;
    }
    const int yes = 1;  // a restarted service can bind while its old connections are in TIME_WAIT
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (bind(fd, candidate->ai_addr, candidate->ai_addrlen) == 0 && listen(fd, SOMAXCONN) == 0) {
      return ListeningSocket{fd, bound_port(fd)};
    }
    why = std::strerror(errno);
    ::close(fd);
  }
  return cannot_listen(address, port, why);
}

std::string client_key(const sockaddr_storage& peer) {
  if (peer.ss_family == AF_INET) {
    const auto& ipv4 = reinterpret_cast<const sockaddr_in&>(peer).sin_addr;
    return std::string(reinterpret_cast<const char*>(&ipv4), sizeof ipv4);
  }
  if (peer.ss_family == AF_INET6) {
    const auto& ipv6 = reinterpret_cast<const sockaddr_in6&>(peer).sin6_addr;
    if (IN6_IS_ADDR_V4MAPPED(&ipv6)) {
      return std::string(reinterpret_cast<const char*>(&ipv6) + 12, 4);
    }
    return std::string(reinterpret_cast<const char*>(&ipv6), sizeof ipv6);
  }
  return std::string();  // (a stream socket's peer is one of the two)
}

}  // namespace whizbang::http

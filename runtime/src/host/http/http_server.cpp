#include "http/http_server.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <optional>

#include "http/http_socket.hpp"

namespace whizbang::http {
namespace {

// Connections accepted per round of the loop: a burst of new ones cannot starve the open ones.
constexpr int kAcceptBatch = 16;
// Out of file descriptors, the pending connection stays ready: poll() would return at once.
constexpr auto kAcceptPause = std::chrono::milliseconds(100);

}  // namespace

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::start(const std::string& address, int port,
                                                              HttpRoutes routes,
                                                              HttpLimits limits) {
  std::unique_ptr<HttpServer> server(new HttpServer(std::move(routes), limits));
  server->wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  server->answered_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (server->wake_fd_ < 0 || server->answered_fd_ < 0) {
    return absl::UnavailableError(std::string("HTTP server: eventfd: ") + std::strerror(errno));
  }
  absl::StatusOr<ListeningSocket> listening = listen_on(address, port);
  if (!listening.ok()) return listening.status();
  server->listen_fd_ = listening->fd;
  server->port_ = listening->port;
  server->worker_ = std::make_unique<HttpWorker>(
      server->limits_.max_deferred_queue,
      [raw = server.get()](std::uint64_t ticket, HttpResponse response) {
        {
          const std::lock_guard<std::mutex> lock(raw->answered_mutex_);
          raw->answered_.emplace_back(ticket, std::move(response));
        }
        const std::uint64_t one = 1;
        [[maybe_unused]] const ssize_t written = write(raw->answered_fd_, &one, sizeof one);
      });
  server->thread_ = std::thread([raw = server.get()] { raw->run(); });
  return server;
}

HttpServer::~HttpServer() {
  stop();
  if (listen_fd_ >= 0) ::close(listen_fd_);  // (only when the thread never started)
  if (wake_fd_ >= 0) ::close(wake_fd_);
  if (answered_fd_ >= 0) ::close(answered_fd_);
}

HttpServerStats HttpServer::stats() const {
  return HttpServerStats{largest_input_.load(), accepted_.load(), refused_.load()};
}

void HttpServer::stop() {
  const std::lock_guard<std::mutex> lock(stop_mutex_);
  // The worker first: it finishes the handler it runs (its answer then goes nowhere).
  if (worker_) worker_->stop();
  if (!thread_.joinable()) return;
  const std::uint64_t one = 1;
  // An eventfd's write fails only when its counter would overflow: it is already signalled.
  [[maybe_unused]] const ssize_t written = write(wake_fd_, &one, sizeof one);
  thread_.join();
}

void HttpServer::run() {
  std::vector<pollfd> polled;
  while (true) {
    Clock::time_point now = Clock::now();
    polled.clear();
    polled.push_back({wake_fd_, POLLIN, 0});
    // A negative descriptor is skipped by poll(): not accepting while out of descriptors.
    polled.push_back({now >= accepting_again_at_ ? listen_fd_ : -1, POLLIN, 0});
    polled.push_back({answered_fd_, POLLIN, 0});
    for (const auto& connection : connections_) {
      polled.push_back({connection->fd(), connection->wanted_events(), 0});
    }
    if (poll(polled.data(), polled.size(), poll_timeout(now)) < 0) {
      if (errno == EINTR) continue;
      break;  // (out of memory or a broken invariant: end as stop() would, never spin)
    }
    if (polled[0].revents != 0) break;  // stop()
    now = Clock::now();
    constexpr std::size_t kFirst = 3;  // wake, listen, answered; then the connections
    for (std::size_t i = 0; i < connections_.size(); ++i) {
      if (polled[i + kFirst].revents != 0) {
        connections_[i]->on_ready(polled[i + kFirst].revents, now);
      }
    }
    if (polled[2].revents != 0) deliver_answers(now);
    for (const auto& connection : connections_) {
      if (!connection->closed() && connection->deadline() <= now) connection->on_deadline(now);
    }
    // Accepted after the open connections had their turn, so caps count only open ones.
    if ((polled[1].revents & POLLIN) != 0) accept_connections(now);
    std::size_t largest = largest_input_.load(std::memory_order_relaxed);
    for (const auto& connection : connections_) {
      largest = std::max(largest, connection->largest_input());
    }
    largest_input_.store(largest, std::memory_order_relaxed);
    std::erase_if(connections_, [](const auto& connection) { return connection->closed(); });
  }
  connections_.clear();  // closes every socket: idle, slow and mid-request clients see EOF
  ::close(listen_fd_);   // new connections are refused from here on
  listen_fd_ = -1;
}

int HttpServer::poll_timeout(Clock::time_point now) const {
  std::optional<Clock::time_point> nearest;
  if (now < accepting_again_at_) nearest = accepting_again_at_;
  for (const auto& connection : connections_) {
    nearest = std::min(nearest.value_or(connection->deadline()), connection->deadline());
  }
  if (!nearest.has_value()) return -1;
  if (*nearest <= now) return 0;
  // Rounded up: waking a little early would only poll again.
  const auto wait = std::chrono::ceil<std::chrono::milliseconds>(*nearest - now).count();
  return static_cast<int>(std::min<decltype(wait)>(wait, INT_MAX));
}

void HttpServer::accept_connections(Clock::time_point now) {
  for (int i = 0; i < kAcceptBatch; ++i) {
    sockaddr_storage peer{};
    socklen_t length = sizeof peer;
    const int fd = accept4(listen_fd_, reinterpret_cast<sockaddr*>(&peer), &length,
                           SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == ECONNABORTED || errno == EINTR) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        accepting_again_at_ = now + kAcceptPause;
      }
      return;  // EAGAIN: none pending
    }
    std::string client = client_key(peer);
    if (!admits(client)) {
      refuse(fd);
      continue;
    }
    accepted_.fetch_add(1, std::memory_order_relaxed);
    connections_.push_back(
        std::make_unique<HttpConnection>(fd, std::move(client), limits_, routes_, *worker_, now));
  }
}

bool HttpServer::admits(const std::string& client) const {
  std::size_t open = 0;
  std::size_t from_client = 0;
  for (const auto& connection : connections_) {
    if (connection->closed()) continue;
    ++open;
    if (connection->client() == client) ++from_client;
  }
  return open < limits_.max_connections && from_client < limits_.max_connections_per_client;
}

void HttpServer::deliver_answers(Clock::time_point now) {
  std::uint64_t count = 0;
  [[maybe_unused]] const ssize_t read_bytes = read(answered_fd_, &count, sizeof count);
  std::vector<std::pair<std::uint64_t, HttpResponse>> answers;
  {
    const std::lock_guard<std::mutex> lock(answered_mutex_);
    answers.swap(answered_);
  }
  for (auto& [ticket, response] : answers) {
    for (const auto& connection : connections_) connection->on_response(ticket, response, now);
  }
}

void HttpServer::refuse(int fd) {
  refused_.fetch_add(1, std::memory_order_relaxed);
  static const std::string kRefusal =
      serialize_response(HttpResponse::text(503, "too many connections\n"), false, true);
  // One try, never waiting: a client that cannot take these bytes at once only misses the reason.
  [[maybe_unused]] const ssize_t sent =
      send(fd, kRefusal.data(), kRefusal.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  ::close(fd);
}

}  // namespace whizbang::http

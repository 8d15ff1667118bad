// HttpServer: the service runner's HTTP/1.1 server (docs/guide/14-running-services.md). One
// thread polls the listening socket, every connection's non-blocking socket, an eventfd that
// stop() writes and one the worker writes; inline handlers run on that thread, deferred ones
// (HttpRoutes::add_deferred: those that wait on a store) on the worker's (HttpWorker), whose
// answers come back through the queue `answered_`. No thread waits on a client, so a slow client
// can never delay another's request, and HttpLimits bound what each client costs and for how long.
//
//   HttpRoutes routes;
//   routes.get("/livez", [](const HttpRequest&) { return HttpResponse::text(200, "ok\n"); });
//   absl::StatusOr<std::unique_ptr<HttpServer>> server =
//       HttpServer::start("127.0.0.1", 0, std::move(routes));  // 0: any free port
//   int port = (*server)->port();
//   (*server)->stop();  // closes every connection at once and returns
//
// Why not cpp-httplib (which the runner used before): its server runs one pool thread per
// connection, so eight clients sending a header byte a second held every thread and /livez went
// unanswered, and none of its options bounds the time a request head may take.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "http/http_connection.hpp"
#include "http/http_limits.hpp"
#include "http/http_routes.hpp"
#include "http/http_worker.hpp"

namespace whizbang::http {

// What the server has done so far; for tests (not part of the runner's documented behaviour).
struct HttpServerStats {
  std::size_t largest_input = 0;  // the most bytes of input one connection held at once
  std::uint64_t accepted = 0;     // connections served
  std::uint64_t refused = 0;      // connections answered 503 at a connection cap
};

class HttpServer {
 public:
  // Listens on address:port (0: any free port) and serves `routes` on a thread of its own.
  static absl::StatusOr<std::unique_ptr<HttpServer>> start(const std::string& address, int port,
                                                           HttpRoutes routes,
                                                           HttpLimits limits = {});
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const { return port_; }
  HttpServerStats stats() const;

  // Closes the listening socket and every connection (idle, slow or mid-request) without waiting
  // for any client, and returns once the server's thread has ended. Idempotent.
  void stop();

 private:
  using Clock = HttpConnection::Clock;

  HttpServer(HttpRoutes routes, HttpLimits limits) : routes_(std::move(routes)), limits_(limits) {}

  void run();
  // The milliseconds poll() may sleep: until the nearest deadline; -1 without one.
  int poll_timeout(Clock::time_point now) const;
  void accept_connections(Clock::time_point now);
  // Within the connection caps: a connection from `client` may be served.
  bool admits(const std::string& client) const;
  void refuse(int fd);
  // The worker's answers: handed to their connections (on the server's thread).
  void deliver_answers(Clock::time_point now);

  const HttpRoutes routes_;
  const HttpLimits limits_;
  int listen_fd_ = -1;
  int wake_fd_ = -1;
  int answered_fd_ = -1;  // written by the worker when it adds to answered_
  int port_ = -1;
  std::vector<std::unique_ptr<HttpConnection>> connections_;  // the server's thread only
  Clock::time_point accepting_again_at_{};  // out of file descriptors: when to try again
  std::thread thread_;
  std::mutex stop_mutex_;
  std::atomic<std::size_t> largest_input_{0};
  std::atomic<std::uint64_t> accepted_{0};
  std::atomic<std::uint64_t> refused_{0};
  std::mutex answered_mutex_;
  std::vector<std::pair<std::uint64_t, HttpResponse>> answered_;
  // Last: stopped and destroyed first, while the routes its jobs use still exist.
  std::unique_ptr<HttpWorker> worker_;
};

}  // namespace whizbang::http

// HttpWorker: the HTTP server's second thread, which runs deferred handlers (HttpRoutes::
// add_deferred) one at a time, so a handler that waits on a store never holds the thread that
// answers /livez. Requests queue up to a bound; each answer goes to `done` on the worker's thread
// (the server then hands it to its connection on its own thread).
//
//   HttpWorker worker(16, [&](std::uint64_t ticket, HttpResponse response) { ... });
//   if (!worker.submit(ticket, request, route)) { /* queue full: answer 503 */ }
//   worker.stop();  // finishes the handler running now, drops the queued ones
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "http/http_routes.hpp"

namespace whizbang::http {

class HttpWorker {
 public:
  using Done = std::function<void(std::uint64_t ticket, HttpResponse response)>;

  HttpWorker(std::size_t max_queued, Done done);
  ~HttpWorker() { stop(); }
  HttpWorker(const HttpWorker&) = delete;
  HttpWorker& operator=(const HttpWorker&) = delete;

  // Queues `request` for `route` (which must outlive the worker). False when the queue is full.
  bool submit(std::uint64_t ticket, HttpRequest request, const HttpRoute& route);
  // Idempotent; returns once the thread has ended.
  void stop();

 private:
  struct Job {
    std::uint64_t ticket;
    HttpRequest request;
    const HttpRoute* route;
  };
  void run();

  const std::size_t max_queued_;
  const Done done_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace whizbang::http

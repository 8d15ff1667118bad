// HttpConnection: one client of the HTTP server (HttpServer): what it has sent (never more than
// a request head's worth), the response going back, and the deadline of whatever the connection
// is waiting for. The server calls it when its socket is ready or its deadline has passed; it
// never blocks, so one client can never delay another.
//
//   HttpConnection connection(fd, client, limits, routes, now);
//   // the server's loop: poll({connection.fd(), connection.wanted_events()}) until
//   // connection.deadline(), then
//   connection.on_ready(revents, now);  // or connection.on_deadline(now) once it has passed
//   if (connection.closed()) { /* forget it */ }
//
// A connection is in one of five phases:
//   awaiting a request  kept alive with nothing received: closed after keep_alive_idle;
//   reading a head      408 and close at head_deadline (from accept, or from the first byte);
//   reading a body      (a route that takes one) 408 and close at body_deadline;
//   waiting             for a deferred handler on the worker (HttpWorker): 503 and close at
//                       handler_deadline; nothing is read meanwhile;
//   writing a response  reset at write_deadline; then closed, or awaiting the next request.
// Requests are answered one at a time, in order: while a response is being written nothing more
// is read, so a pipelining client holds at most one head of input and one response of output.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "http/http_limits.hpp"
#include "http/http_request_parser.hpp"
#include "http/http_response.hpp"
#include "http/http_routes.hpp"
#include "http/http_worker.hpp"

namespace whizbang::http {

class HttpConnection {
 public:
  using Clock = std::chrono::steady_clock;

  // Takes `fd`, a connected non-blocking socket; `client` identifies its peer's address (the
  // per-client cap counts connections by it).
  // `worker` runs the deferred routes' handlers.
  HttpConnection(int fd, std::string client, const HttpLimits& limits, const HttpRoutes& routes,
                 HttpWorker& worker, Clock::time_point now);
  ~HttpConnection() { close(); }
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  int fd() const { return fd_; }
  const std::string& client() const { return client_; }
  bool closed() const { return fd_ < 0; }
  // POLLIN while it reads, POLLOUT while a response waits to be written.
  short wanted_events() const;
  Clock::time_point deadline() const { return deadline_; }
  // The most bytes of input it has held at once (a test's view of the head limit).
  std::size_t largest_input() const { return largest_input_; }

  // The socket is ready (poll's revents): reads or writes what it can and answers what it read.
  void on_ready(short revents, Clock::time_point now);
  // The deadline has passed: 408 for a partial head, a reset for a stalled response, else close.
  void on_deadline(Clock::time_point now);
  // A deferred handler's answer: written if the connection still waits for `ticket`.
  void on_response(std::uint64_t ticket, const HttpResponse& response, Clock::time_point now);
  // Closes the socket now, whatever the phase (the server stopping).
  void close();

 private:
  enum class Phase { AwaitingRequest, ReadingHead, ReadingBody, Waiting, Writing };

  void receive(Clock::time_point now);
  // Writes what is pending and answers the complete heads received, until it has to wait.
  void advance(Clock::time_point now);
  void answer_head(Clock::time_point now);
  // The body has arrived (or there is none): hands the request to the worker.
  void defer(Clock::time_point now);
  void respond(const HttpResponse& response, bool keep_alive, bool with_body,
               Clock::time_point now);
  // True once the whole response is written; false while it waits for the socket (or closed).
  bool write_pending();
  void await_next_request(Clock::time_point now);
  // Closes with a reset: the kernel drops what the client never read instead of keeping it.
  void abort();

  int fd_;
  std::string client_;
  const HttpLimits& limits_;
  const HttpRoutes& routes_;
  HttpWorker& worker_;
  Phase phase_ = Phase::ReadingHead;
  Clock::time_point deadline_;
  std::string input_;
  std::size_t largest_input_ = 0;
  HttpRequestParser parser_;
  std::string output_;
  std::size_t written_ = 0;
  bool keep_alive_after_write_ = false;
  // The request of a deferred route, while its body is read and its handler runs.
  HttpRequest deferred_;
  const HttpRoute* deferred_route_ = nullptr;
  std::uint64_t ticket_ = 0;
};

}  // namespace whizbang::http

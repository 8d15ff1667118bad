// HttpLimits: what one client may cost the service runner's HTTP server (HttpServer), and what it
// gets beyond that (docs/guide/14-running-services.md, "HTTP limits"). The runner uses the
// defaults; tests shorten the deadlines so that nothing waits long.
//
//   whizbang::http::HttpLimits limits;                    // the runner's limits
//   limits.head_deadline = std::chrono::milliseconds(200);  // 408 after 200 ms instead of 5 s
//   auto server = whizbang::http::HttpServer::start("127.0.0.1", 0, std::move(routes), limits);
//
// Every bound holds per connection whatever the client does, so a client can cost the server at
// most max_head_bytes of input, one response of output and one of the max_connections places,
// each for a bounded time.
#pragma once

#include <chrono>
#include <cstddef>

namespace whizbang::http {

struct HttpLimits {
  // The request line (method, target, version): 414 and close beyond it.
  std::size_t max_request_line_bytes = 8 * 1024;
  // The whole head (request line, header lines, blank line): 431 and close beyond it. It is also
  // the most the server holds of a connection's input, besides the body of a route that takes one
  // (HttpRoutes: up to its max_body).
  std::size_t max_head_bytes = 16 * 1024;
  // Header lines in a head: 431 and close beyond them.
  std::size_t max_header_lines = 64;
  // The time a head may take to arrive: from accept for a connection's first request, from its
  // first byte for a later one. 408 and close once it passes with part of a head received
  // (closed silently with nothing received). This is what ends a client sending a byte a second.
  std::chrono::milliseconds head_deadline{5000};
  // The time a body may take to arrive, from the end of its head: 408 and close once it passes.
  std::chrono::milliseconds body_deadline{5000};
  // The time a deferred handler (HttpRoutes::add_deferred) may take from when its request is
  // read: 503 and close once it passes (its late answer is dropped).
  std::chrono::milliseconds handler_deadline{30000};
  // Requests waiting for the worker thread: a request beyond them is answered 503 at once.
  std::size_t max_deferred_queue = 16;
  // A kept-alive connection with no request under way is closed after this.
  std::chrono::milliseconds keep_alive_idle{5000};
  // The time a response may take to be written from when it is ready; beyond it the connection
  // is reset (a client that does not read must not keep its response in memory).
  std::chrono::milliseconds write_deadline{5000};
  // Open connections in all and from one client address (IPv4 or IPv6): a connection beyond
  // either is answered 503 and closed at once.
  std::size_t max_connections = 64;
  std::size_t max_connections_per_client = 8;
};

}  // namespace whizbang::http

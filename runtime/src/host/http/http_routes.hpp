// HttpRoutes: the HTTP server's route table: the methods each path answers and their handlers.
// HEAD is answered wherever GET is: the GET handler's response, sent without its body.
//
//   HttpRoutes routes;
//   routes.get("/livez", [](const HttpRequest&) { return HttpResponse::text(200, "ok\n"); });
//   routes.add_deferred("POST", "/api/v1/dead-letters/requeue", requeue, 64 * 1024);
//   routes.add_prefix_deferred("GET", "/api/v1/dead-letters/", show_one);
//   // an unknown path: 404; a method the path does not answer: 405 with Allow: GET, HEAD
//
// Inline handlers (add, get) run on the server's one thread, between the reads and writes of
// every other connection: they must be fast and never block (the runner's probes read in-memory
// counters). Deferred handlers (add_deferred) run on the server's worker thread (HttpWorker), one
// at a time, so they may block on a store; the server goes on serving the probes meanwhile.
//
// Bodies: only a deferred route accepts one, of at most its max_body bytes with Content-Length
// (413 beyond, before a byte of it is read; 400 for Transfer-Encoding); the server reads it within
// HttpLimits::body_deadline before the handler runs. A body sent to any other route is answered
// 413, and the server closes the connection without reading it.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <variant>

#include "http/http_request_parser.hpp"
#include "http/http_response.hpp"

namespace whizbang::http {

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

struct HttpRoute {
  HttpHandler handler;
  bool deferred = false;     // runs on the worker thread
  std::size_t max_body = 0;  // the largest body it takes; 0: none
};

class HttpRoutes {
 public:
  // `method` as sent on the wire ("GET", "POST"); `path` exactly, without a query.
  void add(std::string method, std::string path, HttpHandler handler);
  void get(std::string path, HttpHandler handler) {
    add("GET", std::move(path), std::move(handler));
  }
  // A route whose handler runs on the worker thread, taking a body of up to `max_body` bytes.
  void add_deferred(std::string method, std::string path, HttpHandler handler,
                    std::size_t max_body = 0);
  // Every path that starts with `prefix` and matches no exact path (the longest prefix wins);
  // the handler finds the rest in HttpRequest::path.
  void add_prefix_deferred(std::string method, std::string prefix, HttpHandler handler,
                           std::size_t max_body = 0);

  // The route answering `request`, or the response to send instead (404, 405 with Allow, 413,
  // 400 for a body framed by Transfer-Encoding).
  std::variant<const HttpRoute*, HttpResponse> route(const HttpRequest& request) const;
  // The handler's response; 500 if it throws (one failing handler must not end the thread).
  static HttpResponse invoke(const HttpRoute& route, const HttpRequest& request);
  // route() and invoke() in one, on the caller's thread (whatever the route's kind).
  HttpResponse respond(const HttpRequest& request) const;

 private:
  using Handlers = std::map<std::string, HttpRoute, std::less<>>;  // by method

  static std::string allowed_methods(const Handlers& handlers);
  const Handlers* find_path(const std::string& path) const;

  std::map<std::string, Handlers, std::less<>> routes_;    // by path
  std::map<std::string, Handlers, std::less<>> prefixes_;  // by prefix
};

}  // namespace whizbang::http

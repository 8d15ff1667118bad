// HttpRoutes: the HTTP server's route table: the methods each path answers and their handlers.
// HEAD is answered wherever GET is: the GET handler's response, sent without its body.
//
//   HttpRoutes routes;
//   routes.get("/livez", [](const HttpRequest&) { return HttpResponse::text(200, "ok\n"); });
//   HttpResponse response = routes.respond(request);
//   // an unknown path: 404; a method the path does not answer: 405 with Allow: GET, HEAD
//
// Handlers run on the server's one thread, between the reads and writes of every other
// connection: they must be fast and never block (the service runner's read in-memory counters).
//
// Bodies: no route accepts one yet. A request with one (Content-Length above 0, or any
// Transfer-Encoding) is answered 413 once its path and method are known, and the server closes
// the connection without reading the body. A route that takes a bounded body (a JSON API's POST)
// would carry its limit here, and the server would read up to that many bytes, within a deadline,
// before calling its handler.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "http/http_request_parser.hpp"
#include "http/http_response.hpp"

namespace whizbang::http {

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

class HttpRoutes {
 public:
  // `method` as sent on the wire ("GET", "POST"); `path` exactly, without a query.
  void add(std::string method, std::string path, HttpHandler handler);
  void get(std::string path, HttpHandler handler) {
    add("GET", std::move(path), std::move(handler));
  }

  // The handler's response, or 404, 405 (with Allow) or 413 instead of it; 500 if it throws.
  HttpResponse respond(const HttpRequest& request) const;

 private:
  using Handlers = std::map<std::string, HttpHandler, std::less<>>;  // by method

  static std::string allowed_methods(const Handlers& handlers);

  std::map<std::string, Handlers, std::less<>> routes_;  // by path
};

}  // namespace whizbang::http

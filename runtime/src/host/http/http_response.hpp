// HttpResponse: what a handler of the service runner's HTTP server answers, and its bytes on the
// wire. Every response carries Content-Length and says whether the connection stays open, so a
// client never has to read to EOF to find its end.
//
//   HttpResponse ready = HttpResponse::text(200, "ready\n");
//   std::string bytes = serialize_response(ready, /*keep_alive=*/true, /*with_body=*/true);
//   // "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 6\r\n"
//   // "Connection: keep-alive\r\n\r\nready\n"
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace whizbang::http {

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain";
  std::string body;
  // Further headers, e.g. {"Allow", "GET, HEAD"}; never Content-Length or Connection.
  std::vector<std::pair<std::string, std::string>> headers;

  static HttpResponse text(int status, std::string body, std::string content_type = "text/plain") {
    HttpResponse response;
    response.status = status;
    response.body = std::move(body);
    response.content_type = std::move(content_type);
    return response;
  }
};

// The status line's reason phrase ("Not Found"); "Unknown" for a status not listed.
std::string_view reason_phrase(int status);

// Status line, headers and (unless `with_body` is false: a HEAD request) the body. Content-Length
// is the body's length either way.
std::string serialize_response(const HttpResponse& response, bool keep_alive, bool with_body);

}  // namespace whizbang::http

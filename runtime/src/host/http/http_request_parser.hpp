// HttpRequestParser: reads an HTTP/1.0 or HTTP/1.1 request head (request line, header lines,
// blank line) from the bytes a connection has received so far, within HttpLimits. It is
// incremental: each call looks only at the bytes that arrived since the last one, so a client
// sending its head a byte at a time costs a byte's work per byte.
//
//   HttpRequestParser parser(limits);
//   input += bytes_just_received;  // the same buffer each time, appended to
//   switch (parser.parse(input)) {
//     case HttpParseState::NeedMore: break;  // wait for more bytes
//     case HttpParseState::Complete:         // parser.request(); the body (if any) follows
//       input.erase(0, parser.head_size());  // what remains: the next pipelined request
//       parser.reset();
//       break;
//     case HttpParseState::Failed: break;    // answer parser.failure(), then close
//   }
//
// Strict where leniency lets a client smuggle or hide a request: single spaces in the request
// line, a target of visible ASCII, no control characters (NUL included) in header values, no
// folded header lines, no whitespace before a header's colon, one Content-Length (or identical
// ones), not both Content-Length and Transfer-Encoding, a Host header in HTTP/1.1. Lines may end
// in CRLF or LF, and blank lines before the request line are skipped (RFC 9112).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/http_limits.hpp"

namespace whizbang::http {

// A request as a handler sees it: its head, and the body of a route that takes one (HttpRoutes).
struct HttpRequest {
  std::string method;     // case-sensitive, as sent: "GET", "HEAD"
  std::string target;     // as sent: "/metrics?x=1" (or absolute: "http://host/metrics")
  std::string path;       // the target's path, without scheme, host and query: "/metrics"
  std::string query;      // after '?', without it; empty without one
  int minor_version = 1;  // HTTP/1.<minor_version>: 0 or 1
  // In the order sent; names lower-cased (header names are case-insensitive), values trimmed.
  std::vector<std::pair<std::string, std::string>> headers;

  // What the headers say about the connection and the body.
  bool keep_alive = true;  // HTTP/1.1 unless "Connection: close"; 1.0 with "keep-alive"
  std::optional<std::uint64_t> content_length;
  bool has_transfer_encoding = false;
  // Read by the connection, not the parser: the body (routes that take one) and the client's
  // address (as HttpConnection::client() has it: the peer's address bytes).
  std::string body;
  std::string client;

  // A body follows the head: Content-Length above 0, or any Transfer-Encoding.
  bool has_body() const { return has_transfer_encoding || content_length.value_or(0) > 0; }
  // The first value of a header, by case-insensitive name; nullptr without one.
  const std::string* header(std::string_view name) const;
};

enum class HttpParseState { NeedMore, Complete, Failed };

// Why a head was refused: the status to answer (400, 414, 431, 505) and a short reason.
struct HttpParseFailure {
  int status = 400;
  std::string reason;
};

class HttpRequestParser {
 public:
  explicit HttpRequestParser(const HttpLimits& limits) : limits_(limits) {}

  // Continues reading the head at the start of `input`, which holds what parse() saw before
  // plus what has arrived since. Failed and Complete are final until reset().
  HttpParseState parse(std::string_view input);

  const HttpRequest& request() const { return request_; }
  // The bytes of `input` the head took (blank lines before it and its final blank line included).
  std::size_t head_size() const { return scanned_; }
  const HttpParseFailure& failure() const { return failure_; }

  // Ready for the next request on the connection.
  void reset();

 private:
  HttpParseState fail(int status, std::string reason);
  HttpParseState read_line(std::string_view line);
  bool read_request_line(std::string_view line);
  bool read_target();
  bool read_header_line(std::string_view line);
  HttpParseState finish();

  HttpLimits limits_;
  HttpParseState state_ = HttpParseState::NeedMore;
  std::size_t scanned_ = 0;   // up to here `input` is read as complete lines
  std::size_t searched_ = 0;  // up to here `input` holds no line end not yet read
  bool have_request_line_ = false;
  std::size_t header_lines_ = 0;
  HttpRequest request_;
  HttpParseFailure failure_;
};

}  // namespace whizbang::http

#include "http/http_response.hpp"

namespace whizbang::http {

std::string_view reason_phrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 308:
      return "Permanent Redirect";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 413:
      return "Content Too Large";
    case 414:
      return "URI Too Long";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Unknown";
  }
}

std::string serialize_response(const HttpResponse& response, bool keep_alive, bool with_body) {
  std::string bytes;
  bytes.reserve(128 + (with_body ? response.body.size() : 0));
  // Appended piece by piece: g++ 12 warns falsely on "literal" + std::string at -O3.
  bytes.append("HTTP/1.1 ");
  bytes.append(std::to_string(response.status));
  bytes.append(" ");
  bytes.append(reason_phrase(response.status));
  bytes.append("\r\nContent-Type: ");
  bytes.append(response.content_type);
  bytes.append("\r\nContent-Length: ");
  bytes.append(std::to_string(response.body.size()));
  bytes.append(keep_alive ? "\r\nConnection: keep-alive" : "\r\nConnection: close");
  for (const auto& [name, value] : response.headers) {
    bytes.append("\r\n");
    bytes.append(name);
    bytes.append(": ");
    bytes.append(value);
  }
  bytes.append("\r\n\r\n");
  if (with_body) bytes.append(response.body);
  return bytes;
}

}  // namespace whizbang::http

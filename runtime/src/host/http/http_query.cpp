#include "http/http_query.hpp"

#include "fmt/format.h"

namespace whizbang::http {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

absl::StatusOr<std::string> percent_decode(std::string_view text) {
  std::string decoded;
  decoded.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '+') {
      decoded.push_back(' ');
    } else if (c == '%') {
      const int high = i + 2 < text.size() ? hex_value(text[i + 1]) : -1;
      const int low = i + 2 < text.size() ? hex_value(text[i + 2]) : -1;
      if (high < 0 || low < 0) {
        return absl::InvalidArgumentError(
            fmt::format("malformed percent-escape in '{}'", std::string(text)));
      }
      const char byte = static_cast<char>(high * 16 + low);
      if (byte == '\0') return absl::InvalidArgumentError("%00 in a query is refused");
      decoded.push_back(byte);
      i += 2;
    } else {
      decoded.push_back(c);
    }
  }
  return decoded;
}

absl::StatusOr<QueryParameters> parse_query(std::string_view query) {
  QueryParameters parameters;
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;  // "a=1&&b=2"
    const std::size_t equals = pair.find('=');
    absl::StatusOr<std::string> name = percent_decode(pair.substr(0, equals));
    if (!name.ok()) return name.status();
    absl::StatusOr<std::string> value = percent_decode(
        equals == std::string_view::npos ? std::string_view() : pair.substr(equals + 1));
    if (!value.ok()) return value.status();
    parameters.emplace_back(*std::move(name), *std::move(value));
  }
  return parameters;
}

}  // namespace whizbang::http

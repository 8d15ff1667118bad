#include "http/http_request_parser.hpp"

#include <algorithm>
#include <cctype>

#include "absl/strings/match.h"
#include "whizbang/internal/absl_view.hpp"

namespace whizbang::http {
namespace {

// RFC 9110 token characters: methods and header names.
bool is_token_char(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

bool is_token(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return is_token_char(static_cast<unsigned char>(c));
  });
}

// Visible ASCII: what a request target may hold (percent-encoding carries anything else).
bool is_visible_ascii(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) {
    return static_cast<unsigned char>(c) > 0x20 && static_cast<unsigned char>(c) < 0x7f;
  });
}

// A header value's bytes: tab, space, visible ASCII and (obsolete but legal) bytes above 0x7f.
bool is_field_value(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte == '\t' || (byte >= 0x20 && byte != 0x7f);
  });
}

std::string_view trim_whitespace(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

std::string lower_case(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return lower;
}

// Calls `each` with every element of a comma-separated header value, trimmed.
template <typename Each>
void for_each_element(std::string_view value, Each each) {
  while (true) {
    const std::size_t comma = value.find(',');
    each(trim_whitespace(value.substr(0, comma)));
    if (comma == std::string_view::npos) return;
    value.remove_prefix(comma + 1);
  }
}

// A Content-Length value: 1 to 19 digits (so it fits in 64 bits); nullopt otherwise.
std::optional<std::uint64_t> parse_length(std::string_view text) {
  if (text.empty() || text.size() > 19) return std::nullopt;
  std::uint64_t length = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    length = length * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return length;
}

}  // namespace

const std::string* HttpRequest::header(std::string_view name) const {
  for (const auto& [header_name, value] : headers) {
    if (absl::EqualsIgnoreCase(header_name, internal::absl_view(name))) return &value;
  }
  return nullptr;
}

HttpParseState HttpRequestParser::parse(std::string_view input) {
  while (state_ == HttpParseState::NeedMore) {
    // Limits apply to what has arrived: an endless line fails without waiting for its end.
    const std::size_t newline = input.find('\n', std::max(scanned_, searched_));
    searched_ = newline == std::string_view::npos ? input.size() : newline + 1;
    std::string_view line = input.substr(
        scanned_, newline == std::string_view::npos ? std::string_view::npos : newline - scanned_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!have_request_line_ && line.size() > limits_.max_request_line_bytes) {
      return fail(414, "request line too long");
    }
    if (newline == std::string_view::npos) {
      if (input.size() >= limits_.max_head_bytes) return fail(431, "request head too large");
      return state_;
    }
    if (newline + 1 > limits_.max_head_bytes) return fail(431, "request head too large");
    scanned_ = newline + 1;
    state_ = read_line(line);
  }
  return state_;
}

void HttpRequestParser::reset() {
  state_ = HttpParseState::NeedMore;
  scanned_ = 0;
  searched_ = 0;
  have_request_line_ = false;
  header_lines_ = 0;
  request_ = HttpRequest();
  failure_ = HttpParseFailure();
}

HttpParseState HttpRequestParser::fail(int status, std::string reason) {
  failure_ = HttpParseFailure{status, std::move(reason)};
  state_ = HttpParseState::Failed;
  return state_;
}

HttpParseState HttpRequestParser::read_line(std::string_view line) {
  if (!have_request_line_) {
    if (line.empty()) return HttpParseState::NeedMore;  // blank lines before a request: skipped
    if (!read_request_line(line)) return state_;
    have_request_line_ = true;
    return HttpParseState::NeedMore;
  }
  if (line.empty()) return finish();
  if (++header_lines_ > limits_.max_header_lines) return fail(431, "too many header lines");
  if (!read_header_line(line)) return state_;
  return HttpParseState::NeedMore;
}

bool HttpRequestParser::read_request_line(std::string_view line) {
  const std::size_t first_space = line.find(' ');
  const std::size_t second_space =
      first_space == std::string_view::npos ? first_space : line.find(' ', first_space + 1);
  if (second_space == std::string_view::npos ||
      line.find(' ', second_space + 1) != std::string_view::npos) {
    fail(400, "malformed request line");
    return false;
  }
  const std::string_view method = line.substr(0, first_space);
  const std::string_view target = line.substr(first_space + 1, second_space - first_space - 1);
  const std::string_view version = line.substr(second_space + 1);
  if (!is_token(method)) {
    fail(400, "malformed method");
    return false;
  }
  if (target.empty() || !is_visible_ascii(target)) {
    fail(400, "request target is not visible ASCII");
    return false;
  }
  if (version == "HTTP/1.1" || version == "HTTP/1.0") {
    request_.minor_version = version.back() - '0';
  } else {
    const bool well_formed = version.size() == 8 && version.substr(0, 5) == "HTTP/" &&
                             std::isdigit(static_cast<unsigned char>(version[5])) &&
                             version[6] == '.' &&
                             std::isdigit(static_cast<unsigned char>(version[7]));
    fail(well_formed ? 505 : 400, well_formed ? "HTTP version not supported" : "malformed version");
    return false;
  }
  request_.method = std::string(method);
  request_.target = std::string(target);
  return read_target();
}

bool HttpRequestParser::read_target() {
  std::string_view rest = request_.target;
  if (rest == "*") {               // asterisk-form (OPTIONS *): no route has that path
    request_.path.push_back('*');  // (assigning a literal: a false -Wrestrict from g++ 12 -O3)
    return true;
  }
  if (rest.front() != '/') {
    // Absolute-form, which HTTP/1.1 servers must accept: the path and query after the authority.
    const std::size_t scheme_end = rest.find("://");
    const std::string scheme =
        lower_case(rest.substr(0, scheme_end == std::string_view::npos ? 0 : scheme_end));
    if (scheme != "http" && scheme != "https") {
      fail(400, "request target is neither a path nor an http URL");
      return false;
    }
    rest.remove_prefix(scheme_end + 3);
    const std::size_t path_start = rest.find_first_of("/?");
    rest = path_start == std::string_view::npos ? std::string_view() : rest.substr(path_start);
  }
  const std::size_t question = rest.find('?');
  request_.path = std::string(rest.substr(0, question));
  if (request_.path.empty()) request_.path.push_back('/');
  if (question != std::string_view::npos) request_.query = std::string(rest.substr(question + 1));
  return true;
}

bool HttpRequestParser::read_header_line(std::string_view line) {
  if (line.front() == ' ' || line.front() == '\t') {
    fail(400, "folded header line");  // obsolete line folding: refused, as RFC 9112 allows
    return false;
  }
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos || !is_token(line.substr(0, colon))) {
    fail(400, "malformed header line");
    return false;
  }
  const std::string_view value = trim_whitespace(line.substr(colon + 1));
  if (!is_field_value(value)) {
    fail(400, "control character in a header value");
    return false;
  }
  request_.headers.emplace_back(lower_case(line.substr(0, colon)), std::string(value));
  return true;
}

// What the headers say about the host, the body and the connection, checked as a whole.
HttpParseState HttpRequestParser::finish() {
  std::size_t hosts = 0;
  bool close = false;
  bool keep_alive = false;
  bool bad_length = false;
  for (const auto& [name, value] : request_.headers) {
    if (name == "host") {
      ++hosts;
    } else if (name == "content-length") {
      for_each_element(value, [&](std::string_view element) {
        const std::optional<std::uint64_t> length = parse_length(element);
        bad_length = bad_length || !length.has_value() ||
                     request_.content_length.value_or(*length) != *length;
        if (length.has_value()) request_.content_length = length;
      });
    } else if (name == "transfer-encoding") {
      request_.has_transfer_encoding = true;
    } else if (name == "connection") {
      for_each_element(value, [&](std::string_view token) {
        close = close || absl::EqualsIgnoreCase(internal::absl_view(token), "close");
        keep_alive = keep_alive || absl::EqualsIgnoreCase(internal::absl_view(token), "keep-alive");
      });
    }
  }
  if (hosts > 1 || (hosts == 0 && request_.minor_version == 1)) {
    return fail(400, "an HTTP/1.1 request needs exactly one Host header");
  }
  if (bad_length) return fail(400, "malformed Content-Length");
  // Framing a server cannot trust (RFC 9112 6.1): a body could be read two ways.
  if (request_.has_transfer_encoding && request_.content_length.has_value()) {
    return fail(400, "both Content-Length and Transfer-Encoding");
  }
  if (request_.has_transfer_encoding && request_.minor_version == 0) {
    return fail(400, "Transfer-Encoding in an HTTP/1.0 request");
  }
  request_.keep_alive = !close && (request_.minor_version == 1 || keep_alive);
  return HttpParseState::Complete;
}

}  // namespace whizbang::http

// parse_query: a request target's query string ("a=1&b=x%20y") as its decoded name/value pairs,
// in order. '+' is a space and %XX a byte (RFC 3986, HTML forms); a malformed escape (a '%' not
// followed by two hex digits) or a decoded NUL is an error, never guessed at.
//
//   auto query = parse_query(request.query);  // [("source", "inbox"), ("limit", "10")]
//   if (!query.ok()) return bad_request(query.status());
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace whizbang::http {

using QueryParameters = std::vector<std::pair<std::string, std::string>>;

// InvalidArgumentError naming the bad part.
absl::StatusOr<std::string> percent_decode(std::string_view text);
absl::StatusOr<QueryParameters> parse_query(std::string_view query);

}  // namespace whizbang::http

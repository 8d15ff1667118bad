// The operator API's JSON (docs/guide/19-operating-services.md): dead letters as JSON, filters
// from a query string or a request body, cursors, RFC 3339 times, error answers.
#pragma once

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "http/http_query.hpp"
#include "http/http_response.hpp"
#include "whizbang/store/dead_letter_operations.hpp"

namespace whizbang::operator_api {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

http::HttpResponse json_response(int status, std::string body);
// {"error": "<text>"}
http::HttpResponse error_response(int status, std::string_view text);
// The status's message as the error.
http::HttpResponse error_response(int status, const absl::Status& error);

std::string format_time(TimePoint time);
absl::StatusOr<TimePoint> parse_time(std::string_view text);

std::string encode_cursor(const DeadLetterCursor& cursor);
absl::StatusOr<DeadLetterCursor> decode_cursor(std::string_view text);

void write_string(JsonWriter& json, std::string_view text);
// What names a DeadLetter: source, id, message_type, target (without braces).
void write_dead_letter_key_members(JsonWriter& json, const DeadLetter& letter);
// A DeadLetter's members (without braces: the caller may add more).
void write_dead_letter_members(JsonWriter& json, const DeadLetter& letter);

// A GET query's filter, limit and cursor. Unknown names and bad values: InvalidArgument.
struct ListQuery {
  DeadLetterFilter filter;
  std::size_t limit = 50;
  std::optional<DeadLetterCursor> cursor;
};
absl::StatusOr<ListQuery> parse_list_query(const http::QueryParameters& query, bool with_paging);
// A body's "filter" object, with the keys of the GET query (no limit or cursor).
absl::StatusOr<DeadLetterFilter> parse_filter_object(const rapidjson::Value& object);

}  // namespace whizbang::operator_api

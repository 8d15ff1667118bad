#include "service_runner_operator_json.hpp"

#include <charconv>

#include "absl/time/time.h"
#include "fmt/format.h"
#include "whizbang/internal/absl_view.hpp"
#include "whizbang/observability/logging.hpp"

namespace whizbang::operator_api {
namespace {

absl::Status invalid_input(std::string text) { return absl::InvalidArgumentError(std::move(text)); }

// Applies one filter key; false when `name` is not a filter key.
absl::StatusOr<bool> apply_filter_key(DeadLetterFilter& filter, std::string_view name,
                                      const std::string& value) {
  if (name == "source") {
    filter.source = parse_dead_letter_source(value);
    if (!filter.source) {
      return invalid_input(fmt::format(
          "source: '{}' is not one of outbox, inbox, perspective, lifecycle, detached", value));
    }
  } else if (name == "target") {
    filter.target = value;
  } else if (name == "message_type") {
    filter.message_type = value;
  } else if (name == "reason") {
    filter.reason = parse_failure_reason(value);
    if (!filter.reason)
      return invalid_input(fmt::format("reason: '{}' is not a FailureReason", value));
  } else if (name == "error") {
    filter.error_contains = value;
  } else if (name == "since" || name == "until") {
    absl::StatusOr<TimePoint> time = parse_time(value);
    if (!time.ok()) return invalid_input(fmt::format("{}: {}", name, time.status().message()));
    (name == "since" ? filter.since : filter.until) = *time;
  } else {
    return false;
  }
  if (value.empty()) return invalid_input(fmt::format("{}: empty", name));
  return true;
}

}  // namespace

http::HttpResponse json_response(int status, std::string body) {
  http::HttpResponse response =
      http::HttpResponse::text(status, std::move(body), "application/json");
  response.headers.emplace_back("Cache-Control", "no-store");
  return response;
}

http::HttpResponse error_response(int status, std::string_view text) {
  rapidjson::StringBuffer buffer;
  JsonWriter json(buffer);
  json.StartObject();
  json.Key("error");
  write_string(json, text);
  json.EndObject();
  return json_response(status, buffer.GetString());
}

http::HttpResponse error_response(int status, const absl::Status& error) {
  return error_response(status, std::string_view(error.message().data(), error.message().size()));
}

std::string format_time(TimePoint time) {
  return absl::FormatTime(absl::RFC3339_full, absl::FromUnixMicros(to_unix_micros(time)),
                          absl::UTCTimeZone());
}

absl::StatusOr<TimePoint> parse_time(std::string_view text) {
  absl::Time time;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, internal::absl_view(text), &time, &error)) {
    return invalid_input(fmt::format("'{}' is not an RFC 3339 time ({})", text, error));
  }
  // Within what a TimePoint holds (nanoseconds: about 1678 to 2262).
  const std::int64_t micros = absl::ToUnixMicros(time);
  if (micros >= to_unix_micros(TimePoint::max()) || micros <= to_unix_micros(TimePoint::min())) {
    return invalid_input(fmt::format("'{}' is out of range", text));
  }
  return from_unix_micros(micros);
}

// "<micros>.<source>.<id>": opaque to clients, checked when it comes back.
std::string encode_cursor(const DeadLetterCursor& cursor) {
  return fmt::format("{}.{}.{}", to_unix_micros(cursor.dead_lettered_at),
                     static_cast<int>(cursor.source), cursor.id.uuid().to_string());
}

absl::StatusOr<DeadLetterCursor> decode_cursor(std::string_view text) {
  const std::size_t first = text.find('.');
  const std::size_t second = first == std::string_view::npos ? first : text.find('.', first + 1);
  if (second == std::string_view::npos) return invalid_input("cursor: not one this API gave");
  std::int64_t micros = 0;
  int source = 0;
  const std::string_view micros_text = text.substr(0, first);
  const std::string_view source_text = text.substr(first + 1, second - first - 1);
  const auto [micros_end, micros_error] =
      std::from_chars(micros_text.data(), micros_text.data() + micros_text.size(), micros);
  const auto [source_end, source_error] =
      std::from_chars(source_text.data(), source_text.data() + source_text.size(), source);
  absl::StatusOr<Uuid> id = Uuid::parse(text.substr(second + 1));
  if (micros_error != std::errc() || micros_end != micros_text.data() + micros_text.size() ||
      source_error != std::errc() || source_end != source_text.data() + source_text.size() ||
      source < 0 || source > 4 || !id.ok()) {
    return invalid_input("cursor: not one this API gave");
  }
  return DeadLetterCursor{from_unix_micros(micros), MessageId::from_trusted(*id),
                          static_cast<DeadLetterSource>(source)};
}

void write_string(JsonWriter& json, std::string_view text) {
  json.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

void write_dead_letter_key_members(JsonWriter& json, const DeadLetter& letter) {
  json.Key("source");
  write_string(json, dead_letter_source_name(letter.source));
  json.Key("id");
  write_string(json, letter.id.uuid().to_string());
  json.Key("message_type");
  write_string(json, letter.message_type);
  json.Key("target");
  write_string(json, letter.target);
}

void write_dead_letter_members(JsonWriter& json, const DeadLetter& letter) {
  write_dead_letter_key_members(json, letter);
  json.Key("stream_id");
  if (letter.stream_id) {
    write_string(json, letter.stream_id->to_string());
  } else {
    json.Null();
  }
  json.Key("attempts");
  json.Int(letter.attempts);
  json.Key("error");
  write_string(json, letter.error);
  json.Key("reason");
  write_string(json, failure_reason_name(letter.reason));
  json.Key("dead_lettered_at");
  write_string(json, format_time(letter.dead_lettered_at));
  json.Key("group");
  write_string(json, dead_letter_group_key(letter));
}

absl::StatusOr<ListQuery> parse_list_query(const http::QueryParameters& query, bool with_paging) {
  ListQuery parsed;
  for (const auto& [name, value] : query) {
    absl::StatusOr<bool> applied = apply_filter_key(parsed.filter, name, value);
    if (!applied.ok()) return applied.status();
    if (*applied) continue;
    if (with_paging && name == "limit") {
      std::size_t limit = 0;
      const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), limit);
      if (error != std::errc() || end != value.data() + value.size() || limit < 1 ||
          limit > kMaxDeadLetterPage) {
        return invalid_input(
            fmt::format("limit: '{}' is not a number from 1 to {}", value, kMaxDeadLetterPage));
      }
      parsed.limit = limit;
    } else if (with_paging && name == "cursor") {
      absl::StatusOr<DeadLetterCursor> cursor = decode_cursor(value);
      if (!cursor.ok()) return cursor.status();
      parsed.cursor = *cursor;
    } else {
      return invalid_input(fmt::format("unknown parameter '{}'", name));
    }
  }
  return parsed;
}

absl::StatusOr<DeadLetterFilter> parse_filter_object(const rapidjson::Value& object) {
  if (!object.IsObject()) return invalid_input("filter: expected an object");
  DeadLetterFilter filter;
  for (const auto& member : object.GetObject()) {
    const std::string name(member.name.GetString(), member.name.GetStringLength());
    if (!member.value.IsString())
      return invalid_input(fmt::format("filter.{}: expected a string", name));
    const std::string value(member.value.GetString(), member.value.GetStringLength());
    absl::StatusOr<bool> applied = apply_filter_key(filter, name, value);
    if (!applied.ok()) return applied.status();
    if (!*applied) return invalid_input(fmt::format("filter: unknown key '{}'", name));
  }
  return filter;
}

}  // namespace whizbang::operator_api

// The envelope JSON's value readers: each reads one member and names its path in the shape
// error when the member is not what the envelope format says.
#include <string>

#include "dotnet_time.hpp"
#include "envelope_json_parts.hpp"
#include "fmt/format.h"

namespace whizbang::envelope_json {

absl::Status shape_error(std::string_view path, std::string_view expected) {
  return absl::InvalidArgumentError(fmt::format("envelope JSON: {} must be {}", path, expected));
}

absl::Status shape_error(const JsonPath& path, std::string_view expected) {
  return shape_error(path.text(), expected);
}

std::string JsonPath::text() const {
  std::string out;
  append_to(out);
  return out;
}

void JsonPath::append_to(std::string& out) const {
  if (parent_ == nullptr) {
    out.append(name_);
    return;
  }
  parent_->append_to(out);
  if (index_ == kNoIndex) {
    out.append(".").append(name_);
  } else {
    out.append(fmt::format("[{}]", index_));
  }
}

// One pass over the object's members, no temporary key Value (rapidjson's FindMember builds one
// per lookup).
std::ptrdiff_t member_index(const Value& object, std::string_view name) {
  if (!object.IsObject()) return -1;
  const auto begin = object.MemberBegin();
  for (rapidjson::SizeType i = 0; i < object.MemberCount(); ++i) {
    if (same_name(key_text(begin[i].name), name)) return i;
  }
  return -1;
}

const Value* member(const Value& object, std::string_view name) {
  const std::ptrdiff_t at = member_index(object, name);
  return at < 0 ? nullptr : &object.MemberBegin()[at].value;
}

absl::Status read_string(const Members& object, std::string_view name, std::string& out,
                         const JsonPath& path) {
  const Value* value = member(object, name);
  if (value == nullptr) return absl::OkStatus();
  if (!value->IsString()) return shape_error(path.member(name), "a string");
  out.assign(value->GetString(), value->GetStringLength());
  return absl::OkStatus();
}

absl::Status read_int64(const Members& object, std::string_view name, std::int64_t& out,
                        const JsonPath& path, bool required) {
  const Value* value = member(object, name);
  if (value == nullptr) {
    return required ? shape_error(path.member(name), "present") : absl::OkStatus();
  }
  if (!value->IsInt64()) return shape_error(path.member(name), "an integer");
  out = value->GetInt64();
  return absl::OkStatus();
}

// TimePoint counts nanoseconds in an int64, so only about +/-292 years of microseconds convert;
// beyond that duration_cast overflows (undefined behaviour; in practice a wrapped time that does
// not round-trip). A corrupt "ts"/"at" is therefore a shape error, not a silently wrong time.
absl::Status read_time(const Members& object, std::string_view name, TimePoint& out,
                       const JsonPath& path, std::string_view long_name) {
  constexpr std::int64_t kMaxMicros =
      std::chrono::duration_cast<std::chrono::microseconds>(TimePoint::duration::max()).count();
  const Value* value = long_name.empty() ? member(object, name) : member(object, name, long_name);
  if (value == nullptr) return absl::OkStatus();
  // Whizbang .NET (and this runtime since schema 1.1) write an ISO-8601 string with an offset;
  // integer microseconds are what earlier envelopes of this runtime hold.
  if (value->IsString()) {
    std::optional<TimePoint> time = dotnet_time::parse_timestamp(
        std::string_view(value->GetString(), value->GetStringLength()));
    if (!time) {
      return shape_error(path.member(name),
                         "an ISO-8601 time such as 2026-03-09T17:30:01.693249+00:00");
    }
    out = *time;
    return absl::OkStatus();
  }
  if (!value->IsInt64()) {
    return shape_error(path.member(name), "an ISO-8601 string or an integer");
  }
  const std::int64_t micros = value->GetInt64();
  if (micros > kMaxMicros || micros < -kMaxMicros) {
    return shape_error(path.member(name), "microseconds within +/-292 years of 1970");
  }
  out = from_unix_micros(micros);
  return absl::OkStatus();
}

// A hop duration: a .NET TimeSpan string ("00:00:01.5000000") or integer microseconds (earlier
// envelopes of this runtime).
absl::Status read_duration(const Value& value, std::optional<std::chrono::microseconds>& out,
                           const JsonPath& path) {
  if (value.IsInt64()) {
    out = std::chrono::microseconds(value.GetInt64());
    return absl::OkStatus();
  }
  if (value.IsString()) {
    out = dotnet_time::parse_timespan(std::string_view(value.GetString(), value.GetStringLength()));
    if (out) return absl::OkStatus();
  }
  return shape_error(path, "a TimeSpan string such as 00:00:01.5000000, or an integer");
}

absl::StatusOr<Uuid> read_uuid_value(const Value& value, const JsonPath& path) {
  if (!value.IsString()) return shape_error(path, "a uuid string");
  std::optional<Uuid> id =
      internal::parse_uuid(std::string_view(value.GetString(), value.GetStringLength()));
  if (!id) return shape_error(path, "a uuid string");
  return *id;
}

absl::Status read_text(const Members& object, std::string_view name, std::string_view long_name,
                       std::string& out, const JsonPath& path) {
  const Value* value = member(object, name, long_name);
  if (value == nullptr || value->IsNull()) return absl::OkStatus();
  if (!value->IsString()) return shape_error(path.member(name), "a string");
  out.assign(value->GetString(), value->GetStringLength());
  return absl::OkStatus();
}

}  // namespace whizbang::envelope_json

// JSON codec support for generated message code. Not for direct use.
//
// Generated code specializes `JsonCodec<T>` for every message type and every nested plain struct
// (write + read of its public data members) and builds `MessageTypeInfo` with
// `make_message_type_info<T>`. Everything else (numbers, strings, containers, ids, time points)
// is handled by the overloads below, so the generator only emits one line per member.
//
// Encoding (documented for users in message/message_type.hpp): enums as their underlying integer,
// Uuid and MessageId as hyphenated lowercase strings, system_clock::time_point as int64
// microseconds since the Unix epoch, empty optionals as null; DateTime, DateOnly, TimeOnly and
// TimeSpan (message/dotnet_date_time.hpp) as .NET's text in both styles. Decoding never throws or
// crashes: a wrong JSON type or an out-of-range number is InvalidArgument naming the JSON path
// (e.g.
// "$.items[2].qty").
//
// A message declared with [[whizbang::dotnet_type(...)]] is encoded in the .NET style instead
// (JsonStyle::DotNet), as System.Text.Json reads a C# record: members under their C# property
// names (PascalCase) and time points as .NET's round-trip "O" text (100 ns ticks). Generated codecs
// carry both names of every member, so a nested struct serves messages of either style.
#pragma once

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <ratio>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "whizbang/ids/message_id.hpp"
#include "whizbang/ids/uuid.hpp"
#include "whizbang/internal/bounded_json.hpp"
#include "whizbang/message/any_message.hpp"
#include "whizbang/message/dotnet_date_time.hpp"
#include "whizbang/message/uuid_text.hpp"

namespace whizbang {

// Specialized by generated code:
//   static void write(internal::JsonWriter& writer, const T& value);
//   static absl::Status read(const internal::JsonValue& json, T& out, const std::string& path);
template <class T>
struct JsonCodec;

namespace internal {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;
using JsonValue = rapidjson::Value;

// How a payload is spelled: as this library writes it (member names as declared, times as
// integer microseconds) or as a Whizbang .NET service does (PascalCase names, "O" times).
enum class JsonStyle : std::uint8_t { Native, DotNet };

// A member's name in each style.
struct MemberName {
  std::string_view native;
  std::string_view dotnet;
  constexpr std::string_view in(JsonStyle style) const {
    return style == JsonStyle::DotNet ? dotnet : native;
  }
};

// .NET's round-trip ("O") text of a time in 100 ns ticks since the Unix epoch,
// "2026-03-09T17:30:01.6932491+00:00"; and back from what System.Text.Json reads as a
// DateTimeOffset (no offset: UTC), nullopt when malformed or outside the years 1 to 9999. In
// message/dotnet_date_time*.cpp.
void append_dotnet_time(std::string& out, std::int64_t ticks_since_epoch);
std::optional<std::int64_t> parse_dotnet_time(std::string_view text);

inline absl::Status json_type_error(const std::string& path, std::string_view expected) {
  return absl::InvalidArgumentError(path + ": expected " + std::string(expected));
}

// ---- type classification ------------------------------------------------------------------

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <class T>
struct IsVector : std::false_type {};
template <class T, class A>
struct IsVector<std::vector<T, A>> : std::true_type {};
template <class T>
struct IsStringMap : std::false_type {};
template <class T, class C, class A>
struct IsStringMap<std::map<std::string, T, C, A>> : std::true_type {};
template <class T>
struct IsTimePoint : std::false_type {};
template <class D>
struct IsTimePoint<std::chrono::time_point<std::chrono::system_clock, D>> : std::true_type {};

// ---- write ----------------------------------------------------------------------------------

template <class T>
void write_value(JsonWriter& writer, const T& value, JsonStyle style = JsonStyle::Native) {
  if constexpr (std::is_same_v<T, bool>) {
    writer.Bool(value);
  } else if constexpr (std::is_enum_v<T>) {
    write_value(writer, static_cast<std::underlying_type_t<T>>(value), style);
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    writer.Int64(static_cast<std::int64_t>(value));
  } else if constexpr (std::is_integral_v<T>) {
    writer.Uint64(static_cast<std::uint64_t>(value));
  } else if constexpr (std::is_floating_point_v<T>) {
    writer.Double(static_cast<double>(value));
  } else if constexpr (std::is_same_v<T, std::string>) {
    writer.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
  } else if constexpr (std::is_same_v<T, Uuid>) {
    write_uuid_string(writer, value);
  } else if constexpr (std::is_same_v<T, MessageId>) {
    write_uuid_string(writer, value.uuid());
  } else if constexpr (IsTimePoint<T>::value) {
    if (style == JsonStyle::DotNet) {
      std::string text;
      append_dotnet_time(text, std::chrono::floor<TimeSpan>(value.time_since_epoch()).count());
      writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
    } else {
      writer.Int64(static_cast<std::int64_t>(
          std::chrono::duration_cast<std::chrono::microseconds>(value.time_since_epoch()).count()));
    }
  } else if constexpr (kIsDotNetTime<T>) {
    const std::string text = to_dotnet_text(value);
    writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
  } else if constexpr (IsOptional<T>::value) {
    if (value.has_value()) {
      write_value(writer, *value, style);
    } else {
      writer.Null();
    }
  } else if constexpr (IsVector<T>::value) {
    writer.StartArray();
    for (const auto& item : value) write_value(writer, item, style);
    writer.EndArray();
  } else if constexpr (IsStringMap<T>::value) {
    writer.StartObject();
    for (const auto& [key, item] : value) {
      writer.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
      write_value(writer, item, style);
    }
    writer.EndObject();
  } else {
    JsonCodec<T>::write(writer, value, style);
  }
}

template <class T>
void write_member(JsonWriter& writer, std::string_view name, const T& value,
                  JsonStyle style = JsonStyle::Native) {
  writer.Key(name.data(), static_cast<rapidjson::SizeType>(name.size()));
  write_value(writer, value, style);
}

// Generated codecs write one member per line with it.
template <class T>
void write_member(JsonWriter& writer, JsonStyle style, MemberName name, const T& value) {
  write_member(writer, name.in(style), value, style);
}

// ---- read -----------------------------------------------------------------------------------

// A time point `since_epoch` after 1970: a finer duration than the received one (nanoseconds:
// about +/-292 years) overflows converting larger values, undefined behaviour, in practice a
// wrapped time; they are rejected instead. A coarser one is rounded down.
template <class T, class D>
absl::Status time_point_from(D since_epoch, T& out, const std::string& path) {
  if constexpr (std::ratio_less_equal_v<typename T::duration::period, typename D::period>) {
    constexpr D kMax = std::chrono::duration_cast<D>(T::duration::max());
    if (since_epoch > kMax || since_epoch < -kMax) {
      return json_type_error(path, "a time within the time point's range");
    }
  }
  out = T(std::chrono::floor<typename T::duration>(since_epoch));
  return absl::OkStatus();
}

template <class T>
absl::Status read_value(const JsonValue& json, T& out, const std::string& path,
                        JsonStyle style = JsonStyle::Native) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!json.IsBool()) return json_type_error(path, "bool");
    out = json.GetBool();
  } else if constexpr (std::is_enum_v<T>) {
    std::underlying_type_t<T> raw{};
    absl::Status status = read_value(json, raw, path, style);
    if (!status.ok()) return status;
    out = static_cast<T>(raw);
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    if (!json.IsInt64()) return json_type_error(path, "integer");
    const std::int64_t raw = json.GetInt64();
    if (raw < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
        raw > static_cast<std::int64_t>(std::numeric_limits<T>::max())) {
      return json_type_error(path, "integer in range");
    }
    out = static_cast<T>(raw);
  } else if constexpr (std::is_integral_v<T>) {
    if (!json.IsUint64()) return json_type_error(path, "unsigned integer");
    const std::uint64_t raw = json.GetUint64();
    if (raw > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) {
      return json_type_error(path, "unsigned integer in range");
    }
    out = static_cast<T>(raw);
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!json.IsNumber()) return json_type_error(path, "number");
    out = static_cast<T>(json.GetDouble());
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!json.IsString()) return json_type_error(path, "string");
    out.assign(json.GetString(), json.GetStringLength());
  } else if constexpr (std::is_same_v<T, Uuid> || std::is_same_v<T, MessageId>) {
    if (!json.IsString()) return json_type_error(path, "uuid string");
    const std::optional<Uuid> id =
        parse_uuid(std::string_view(json.GetString(), json.GetStringLength()));
    if (!id) return json_type_error(path, "uuid string");
    if constexpr (std::is_same_v<T, Uuid>) {
      out = *id;
    } else {
      // The nil id is what an unset member holds (and writes): it reads back as unset.
      if (!id->is_nil() && (id->version() != 7 || id->variant_bits() != 2)) {
        return json_type_error(path, "version 7 message id (or the nil id)");
      }
      out = MessageId::from_trusted(*id);
    }
  } else if constexpr (IsTimePoint<T>::value) {
    if (style == JsonStyle::DotNet) {
      const std::optional<std::int64_t> ticks =
          json.IsString()
              ? parse_dotnet_time(std::string_view(json.GetString(), json.GetStringLength()))
              : std::nullopt;
      if (!ticks) return json_type_error(path, "ISO-8601 date and time with offset");
      return time_point_from(TimeSpan(*ticks), out, path);
    }
    if (!json.IsInt64()) return json_type_error(path, "integer microseconds");
    return time_point_from(std::chrono::microseconds(json.GetInt64()), out, path);
  } else if constexpr (kIsDotNetTime<T>) {
    if (!json.IsString()) return json_type_error(path, "string");
    return read_dotnet_text(std::string_view(json.GetString(), json.GetStringLength()), out, path);
  } else if constexpr (IsOptional<T>::value) {
    if (json.IsNull()) {
      out.reset();
      return absl::OkStatus();
    }
    typename T::value_type value{};
    absl::Status status = read_value(json, value, path, style);
    if (!status.ok()) return status;
    out = std::move(value);
  } else if constexpr (IsVector<T>::value) {
    if (!json.IsArray()) return json_type_error(path, "array");
    out.clear();
    out.reserve(json.Size());
    for (rapidjson::SizeType i = 0; i < json.Size(); ++i) {
      typename T::value_type item{};
      absl::Status status = read_value(json[i], item, path + "[" + std::to_string(i) + "]", style);
      if (!status.ok()) return status;
      out.push_back(std::move(item));
    }
  } else if constexpr (IsStringMap<T>::value) {
    if (!json.IsObject()) return json_type_error(path, "object");
    out.clear();
    for (auto it = json.MemberBegin(); it != json.MemberEnd(); ++it) {
      std::string key(it->name.GetString(), it->name.GetStringLength());
      typename T::mapped_type item{};
      absl::Status status = read_value(it->value, item, path + "." + key, style);
      if (!status.ok()) return status;
      out.emplace(std::move(key), std::move(item));
    }
  } else {
    if (!json.IsObject()) return json_type_error(path, "object");
    return JsonCodec<T>::read(json, out, path, style);
  }
  return absl::OkStatus();
}

// An absent member keeps `out` as it is (the default); a present one must decode.
template <class T>
absl::Status read_member(const JsonValue& object, std::string_view name, T& out,
                         const std::string& path, JsonStyle style = JsonStyle::Native) {
  auto it = object.FindMember(rapidjson::Value(
      rapidjson::StringRef(name.data(), static_cast<rapidjson::SizeType>(name.size()))));
  if (it == object.MemberEnd()) return absl::OkStatus();
  return read_value(it->value, out, path + "." + std::string(name), style);
}

// Reads the members of one object in turn; after the first failure the rest are skipped and
// status() reports it. Generated codecs read one member per line with it:
//   internal::MemberReader reader(json, path, style);
//   reader.read({"order_id", "OrderId"}, out.order_id);
//   return reader.status();
class MemberReader {
 public:
  MemberReader(const JsonValue& object, const std::string& path,
               JsonStyle style = JsonStyle::Native)
      : object_(object), path_(path), style_(style) {}

  template <class T>
  void read(MemberName name, T& out) {
    if (status_.ok()) status_ = read_member(object_, name.in(style_), out, path_, style_);
  }
  const absl::Status& status() const { return status_; }

 private:
  const JsonValue& object_;
  const std::string& path_;
  JsonStyle style_;
  absl::Status status_;
};

// ---- MessageTypeInfo entry points ---------------------------------------------------------

template <class T, JsonStyle Style = JsonStyle::Native>
std::string message_to_json(const void* message) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  write_value(writer, *static_cast<const T*>(message), Style);
  return std::string(buffer.GetString(), buffer.GetSize());
}

template <class T, JsonStyle Style = JsonStyle::Native>
void message_write_json(const void* message, void* writer) {
  write_value(*static_cast<JsonWriter*>(writer), *static_cast<const T*>(message), Style);
}

template <class T, JsonStyle Style = JsonStyle::Native>
absl::StatusOr<AnyMessage> message_from_json_value(const void* value) {
  auto message = std::make_shared<T>();
  absl::Status status = read_value(*static_cast<const JsonValue*>(value), *message, "$", Style);
  if (!status.ok()) return status;
  return AnyMessage::from_parts(std::shared_ptr<const void>(std::move(message)),
                                MessageTraits<T>::info());
}

template <class T, JsonStyle Style = JsonStyle::Native>
absl::StatusOr<AnyMessage> message_from_json(std::string_view json) {
  rapidjson::Document document;
  // Bounded nesting: stored models and payloads are untrusted input (see bounded_json.hpp).
  if (const BoundedParseResult parsed = parse_bounded(json, document); parsed.IsError()) {
    return absl::InvalidArgumentError("malformed JSON " + describe_parse_error(parsed));
  }
  return message_from_json_value<T, Style>(static_cast<const JsonValue*>(&document));
}

// ---- PerspectiveInfo model entry points ----------------------------------------------------

template <class T>
std::shared_ptr<void> new_value() {
  return std::make_shared<T>();
}

template <class T>
absl::Status value_from_json(std::string_view json, void* out) {
  rapidjson::Document document;
  // Bounded nesting: stored models and payloads are untrusted input (see bounded_json.hpp).
  if (const BoundedParseResult parsed = parse_bounded(json, document); parsed.IsError()) {
    return absl::InvalidArgumentError("malformed JSON " + describe_parse_error(parsed));
  }
  return read_value(static_cast<const JsonValue&>(document), *static_cast<T*>(out), "$");
}

// MessageTypeInfo with the codec entry points of one style.
template <class T, JsonStyle Style>
constexpr MessageTypeInfo message_type_info_in_style(
    std::string_view wire_name, std::string_view cpp_name, MessageKind kind,
    std::optional<DispatchModes> default_routing, SourceLocation source,
    std::string_view dotnet_type, std::uint32_t version,
    absl::StatusOr<AnyMessage> (*upcast)(const void*, std::uint32_t)) {
  return MessageTypeInfo{wire_name,
                         cpp_name,
                         kind,
                         default_routing,
                         source,
                         &message_to_json<T, Style>,
                         &message_from_json<T, Style>,
                         &message_from_json_value<T, Style>,
                         &message_write_json<T, Style>,
                         dotnet_type,
                         version,
                         upcast};
}

// A type with a .NET identity (`dotnet_type` not empty, "Ns.Type, Assembly") is encoded in the
// .NET style; any other in the native one. A type with [[whizbang::version(N)]], N > 1, passes
// its version and its generated upcast function.
template <class T>
constexpr MessageTypeInfo make_message_type_info(
    std::string_view wire_name, std::string_view cpp_name, MessageKind kind,
    std::optional<DispatchModes> default_routing, SourceLocation source,
    std::string_view dotnet_type = {}, std::uint32_t version = 1,
    absl::StatusOr<AnyMessage> (*upcast)(const void*, std::uint32_t) = nullptr) {
  return dotnet_type.empty()
             ? message_type_info_in_style<T, JsonStyle::Native>(
                   wire_name, cpp_name, kind, default_routing, source, dotnet_type, version, upcast)
             : message_type_info_in_style<T, JsonStyle::DotNet>(wire_name, cpp_name, kind,
                                                                default_routing, source,
                                                                dotnet_type, version, upcast);
}

}  // namespace internal
}  // namespace whizbang

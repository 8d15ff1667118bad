// MessageTypeInfo: what the runtime knows about one message type, as `whizbang-gen` describes it
// (a MessageTraits<T> specialization per type, in the generated whizbang_messages.hpp).
// Part of the registry contract (whizbang/registry/registry.hpp).
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "whizbang/dispatch_modes.hpp"

namespace whizbang {

class AnyMessage;

enum class MessageKind : std::uint8_t {
  Event = 0,
  Command = 1,
};

constexpr std::string_view to_string(MessageKind kind) {
  return kind == MessageKind::Event ? "event" : "command";
}

// Where a type was declared, relative to the generator's --root (the project source dir).
struct SourceLocation {
  std::string_view file;
  std::uint32_t line = 0;
};

// Everything the runtime knows about one message type. One instance per type per program: its
// address is the type's identity (`AnyMessage::get_if`, `Registry::index_of`).
//
// JSON (RapidJSON): an object with one member per public data member, named as the member.
// (A type with a .NET identity, see `dotnet_type`, names them as C# properties instead and
// writes time points as .NET's round-trip text: docs/guide/15-dotnet-services.md.)
// Arithmetic as numbers, bool, enums as their underlying integer, std::string, std::optional
// (null or absent when empty), std::vector (array), std::map<std::string, T> (object), nested
// structs (object), Uuid/MessageId (hyphenated lowercase string),
// std::chrono::system_clock::time_point (integer microseconds since the Unix epoch), DateTime,
// DateOnly, TimeOnly and TimeSpan (.NET's text, message/dotnet_date_time.hpp). Decoding
// ignores unknown members, keeps the default for absent ones and returns InvalidArgument (naming
// the JSON path) for a wrong type or an out-of-range number; it never crashes.
struct MessageTypeInfo {
  // Stable name on the wire and in derived ids: the qualified C++ name (`shop::OrderCreated`)
  // unless the type carries [[whizbang::wire_name("...")]].
  std::string_view wire_name;
  // The qualified C++ name.
  std::string_view cpp_name;
  MessageKind kind = MessageKind::Event;
  // [[whizbang::default_routing(...)]] on the type: the highest-priority cascade route.
  std::optional<DispatchModes> default_routing;
  SourceLocation source;

  // Codec entry points (see whizbang/message/json_codec.hpp for the typed forms).
  // `message` points at an instance of this type.
  std::string (*to_json)(const void* message) = nullptr;
  absl::StatusOr<AnyMessage> (*from_json)(std::string_view json) = nullptr;
  // `rapidjson_value` is a `const rapidjson::Value*` (an already-parsed payload member).
  absl::StatusOr<AnyMessage> (*from_json_value)(const void* rapidjson_value) = nullptr;
  // `rapidjson_writer` is a `rapidjson::Writer<rapidjson::StringBuffer>*`.
  void (*write_json)(const void* message, void* rapidjson_writer) = nullptr;

  // [[whizbang::dotnet_type("Ns.Type, Assembly")]] on the type: the .NET type the payload is
  // shared with (sent as the EnvelopeType a Whizbang .NET service resolves); empty otherwise.
  std::string_view dotnet_type;

  // [[whizbang::version(N)]] on the type (1 when absent): the version of its payload's shape.
  // Older stored or delivered shapes are upcast to it (docs/guide/07-perspectives.md).
  std::uint32_t version = 1;
  // Decodes a payload of an older `version` with that version's shape and applies the
  // [[whizbang::upcaster]] chain up to `version` above; InvalidArgument naming the type, the
  // version and the known ones when no chain starts there. nullptr for a type at version 1.
  // Callers use decode_payload (whizbang/message/payload_version.hpp), which picks this or
  // from_json_value.
  absl::StatusOr<AnyMessage> (*upcast)(const void* rapidjson_value,
                                       std::uint32_t version) = nullptr;
};

// Specialized by generated code (whizbang_messages.hpp) for every message type:
//   template <> struct MessageTraits<shop::OrderCreated> {
//     static constexpr MessageTypeInfo kInfo{...};
//     static const MessageTypeInfo& info() { return kInfo; }
//   };
template <class T>
struct MessageTraits;

template <class T>
concept GeneratedMessage = requires {
  { MessageTraits<T>::info() } -> std::same_as<const MessageTypeInfo&>;
};

}  // namespace whizbang

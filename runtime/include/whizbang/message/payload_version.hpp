// Payload versions: which shape of its type a payload was written in, and reading any known one.
//
// A message type declares the version of its current shape with [[whizbang::version(N)]]
// (MessageTypeInfo::version). Whoever writes a payload writes it in its current shape and says so
// in hop metadata: kPayloadVersionKey ("whizbang.v") on the envelope's last hop, as a decimal
// string, only when the version is above 1 (so envelopes of unversioned types are unchanged,
// and a Whizbang .NET peer sees one more metadata entry at most). A reader takes the version from
// the LAST hop that carries the key (absent: 1) and decodes with decode_payload, which upcasts an
// older shape through the type's generated [[whizbang::upcaster]] chain. Every read path goes
// through deserialize_envelope, which does this (docs/guide/07-perspectives.md).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "absl/status/statusor.h"
#include "whizbang/message/any_message.hpp"
#include "whizbang/message/envelope.hpp"
#include "whizbang/message/message_type.hpp"

namespace whizbang {

inline constexpr std::string_view kPayloadVersionKey = "whizbang.v";

// The payload version the hops declare: the last hop with kPayloadVersionKey, 1 when none has it.
// InvalidArgument when the value is not a decimal integer >= 1.
absl::StatusOr<std::uint32_t> payload_version(std::span<const MessageHop> hops);

// Parses one kPayloadVersionKey value ("3"); InvalidArgument naming it otherwise.
absl::StatusOr<std::uint32_t> parse_payload_version(std::string_view text);

// The payload version a stored event's metadata ({"MessageId":…,"Hops":[…]}, as wh_event_store
// keeps it) declares: its hops' "md" (or .NET's "Metadata"), the last one with the key; 1 when
// none has it. InvalidArgument for metadata that is not such JSON or a malformed version.
absl::StatusOr<std::uint32_t> stored_payload_version(std::string_view metadata_json);

// Decodes `rapidjson_value` (a `const rapidjson::Value*`), written at shape `version` of `info`:
// the current shape directly, an older one through info.upcast. InvalidArgument naming the type,
// the version and the versions this build reads when it has no path from `version` (a newer
// version than the code, or a gap).
absl::StatusOr<AnyMessage> decode_payload(const MessageTypeInfo& info, const void* rapidjson_value,
                                          std::uint32_t version);

}  // namespace whizbang

// Envelope JSON: the wire and storage form of an Envelope (RapidJSON, short member names).
//
// Shape (members in this order; optional ones omitted when empty, so equal envelopes always
// produce equal bytes and serialize(deserialize(bytes)) == bytes):
//
//   {"v":1,                           version
//    "id":"0190…",                    message id
//    "t":"shop::OrderCreated",        payload wire name (ours: makes the envelope self-describing)
//    "p":{…},                         payload, written by the type's MessageTypeInfo::write_json
//    "h":[{"ty":1,                    hop type, omitted when Current
//          "ca":"…","co":"…",         causation / correlation id
//          "ct":"…",                  causation type
//          "si":{"sn":"orders","ii":"…","hn":"host","pi":42},   service instance
//          "ts":1718000000000000,     timestamp, integer microseconds since the Unix epoch
//          "to":"orders","st":"…",    topic, stream id
//          "sc":{"u":"…","t":"…"},    security scope (user, tenant)
//          "md":{"k":"v"},            metadata
//          "du":1500}],               duration, microseconds
//    "dc":{"m":5,"s":0,"d":false},    dispatch context: mode, source, is default dispatch
//    "ri":[{"r":"shop::Mailer","s":14,"at":…,"du":…,"sn":"orders","pe":"…"}],
//                                     receptor invocation records (stage as its integer)
//    "ss":"…"}                        source service id, omitted while nil
//
// DispatchContext::handler_name is never written: a handling's envelope is byte-identical with
// or without it. An envelope without "dc" (reference v1) reads as {Outbox, Local, false}.
//
//   std::string json = whizbang::serialize_envelope(envelope);
//   absl::StatusOr<whizbang::Envelope> back = whizbang::deserialize_envelope(
//       json, [&](std::string_view name) { return registry.find_message(name); });
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "whizbang/message/any_message.hpp"
#include "whizbang/message/envelope.hpp"

namespace whizbang {

// Maps a payload wire name to its type; nullptr when the type is unknown.
using MessageTypeResolverRef = absl::FunctionRef<const MessageTypeInfo*(std::string_view)>;
// The owning form, for components that keep a resolver (workers).
using MessageTypeResolver = std::function<const MessageTypeInfo*(std::string_view)>;

std::string serialize_envelope(const Envelope& envelope);
// Appends to `out` (reuses its capacity on hot paths).
void serialize_envelope(const Envelope& envelope, std::string& out);

// InvalidArgument for malformed JSON or a member of the wrong shape (the message names the
// offset or member), NotFound for a payload type `resolver` does not know. Never crashes.
absl::StatusOr<Envelope> deserialize_envelope(std::string_view json,
                                              MessageTypeResolverRef resolver);

// The payload wire name ("t") of a serialized envelope without decoding the payload;
// InvalidArgument when `json` is not an envelope.
absl::StatusOr<std::string> peek_envelope_type(std::string_view json);

}  // namespace whizbang

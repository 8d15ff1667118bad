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
//          "ts":"2024-06-10T06:13:20.000001+00:00",   timestamp, ISO-8601 (as .NET writes it)
//          "to":"orders","st":"…",    topic, stream id
//          "sc":{"v":{"Sc":{"t":"…","u":"…"}}},     security scope as a .NET ScopeDelta
//          "md":{"AggregateId":"…","k":"v"},        metadata; the stream id again (.NET reads it)
//          "du":"00:00:00.0015000"}], duration, a .NET TimeSpan
//    "dc":{"m":5,"s":0,"d":false},    dispatch context: mode, source, is default dispatch
//    "rin":[{"r":"shop::Mailer","s":14,"at":"…+00:00","du":"00:00:00.0015000","sn":"orders",
//            "pe":"…"}],             receptor invocation records, in .NET's shape ("sn" always)
//    "ss":"…",                        source service id, omitted while nil
//    "sid":…,"sseq":…,"cbid":…,"cbseq":…,"tgt":…,"sto":…,"pri":…}
//                                     what a .NET sender wrote (Envelope::dotnet), as it came
//
// DispatchContext::handler_name is never written: a handling's envelope is byte-identical with
// or without it. An envelope without "dc" (reference v1) reads as {Outbox, Local, false}.
//
// Times: an ISO-8601 "ts" must lie within about +/-292 years of 1970 (what TimePoint holds).
// Reading also accepts what earlier envelopes of this runtime hold (integer-microsecond "ts" and
// "du", a flat "sc":{"u","t"}) and what Whizbang .NET writes: hop members by their long names
// ("Timestamp", "ServiceInstance", …), any ISO-8601 offset, a free-form "st" (a non-uuid stream
// key is not a stream id here), the stream id in "md":{"AggregateId"}, and metadata values of
// any JSON type (kept as their JSON text). Records are read from "rin" and from "ri" (where
// earlier versions of this runtime wrote them, with integer-microsecond "at" and "du"). Members
// this runtime does not know are skipped (an envelope "sg" signature is checked before decoding).
//
//   std::string json = whizbang::serialize_envelope(envelope);
//   absl::StatusOr<whizbang::Envelope> back = whizbang::deserialize_envelope(
//       json, [&](std::string_view name) { return registry.find_message(name); });
#pragma once

#include <cstddef>
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

// The most a received envelope may hold (InboxWorkerOptions / HostOptions::envelope_limits).
// The defaults are far above what the runtime writes (a few hops and records, payloads of
// kilobytes); an envelope beyond them is refused before it is decoded (InvalidArgument), so the
// inbox dead-letters it instead of spending memory and time on it. What a service wrote itself
// (its outbox, its event store) is read without limits.
struct EnvelopeLimits {
  std::size_t max_bytes = std::size_t{1} << 20;  // 1 MiB of JSON
  std::size_t max_hops = 64;
  std::size_t max_receptor_invocations = 256;

  static constexpr EnvelopeLimits none() {
    constexpr std::size_t kAny = static_cast<std::size_t>(-1);
    return {kAny, kAny, kAny};
  }
};

std::string serialize_envelope(const Envelope& envelope);
// Appends to `out` (reuses its capacity on hot paths).
void serialize_envelope(const Envelope& envelope, std::string& out);

// InvalidArgument for malformed JSON or a member of the wrong shape (the message names the
// offset or member), NotFound for a payload type `resolver` does not know. Never crashes.
//
// The payload's type is the body's "t". An envelope from Whizbang .NET has none: its type
// travels beside it (a transport header, a stored row's type column), given as `message_type`.
// A payload whose type neither names is InvalidArgument, never dropped; so is a "t" that names
// another type than `message_type`.
absl::StatusOr<Envelope> deserialize_envelope(
    std::string_view json, MessageTypeResolverRef resolver, std::string_view message_type = {},
    const EnvelopeLimits& limits = EnvelopeLimits::none());

// The payload wire name ("t") of a serialized envelope without decoding the payload;
// InvalidArgument when `json` is not an envelope.
absl::StatusOr<std::string> peek_envelope_type(std::string_view json);

}  // namespace whizbang

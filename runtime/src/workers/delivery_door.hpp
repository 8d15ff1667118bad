// The inbox's door: what a delivered message must be before it is stored, deduplicated or
// counted (docs/guide/16-security.md, "What a sender on the broker can and cannot do").
//
// A transport hands the inbox whatever a sender put on the broker. Before the message takes an
// inbox deduplication slot, becomes a row or a metric label, the door checks, cheapest first:
//   - its type: known to this service, at most kMaxMessageTypeBytes, valid UTF-8 with no
//     control character (a PostgreSQL text column refuses invalid UTF-8 and cuts at a NUL);
//   - its transport id: a UUIDv7;
//   - its envelope: within EnvelopeLimits::max_bytes; well-formed JSON read strictly (so valid
//     UTF-8 with no raw NUL); an "id" equal to the transport id (or a copy re-published under
//     another id would take that id's deduplication slot); a "t", when present, naming the same
//     type; within the hop and invocation-record limits; a signature the service's signing mode
//     accepts.
// What fails is refused with a kind (a metric label of a fixed set) and a reason for operators;
// what passes comes back with the fields its inbox row takes from the envelope.
//
//   const DeliveryDoor door{resolver, options.envelope_limits, options.signing};
//   DoorVerdict verdict = door.check(delivered);
//   if (verdict.refused) refuse(delivered, *verdict.refused, verdict.reason);
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "whizbang/ids/uuid.hpp"
#include "whizbang/message/envelope_json.hpp"
#include "whizbang/message/message_type.hpp"
#include "whizbang/observability/span_data.hpp"
#include "whizbang/security/envelope_signing.hpp"
#include "whizbang/transport/transport.hpp"

namespace whizbang {

// Why the door refused a delivery. to_string() gives the metric label value.
enum class RefusalKind : std::uint8_t {
  InvalidText,   // the type is not valid UTF-8, has control characters or is too long
  InvalidId,     // the transport id is not a UUIDv7
  TooLarge,      // the envelope is over EnvelopeLimits::max_bytes
  UnknownType,   // no message type of this service has that name
  Malformed,     // the envelope is not a well-formed envelope (JSON, UTF-8, NUL, shape)
  IdMismatch,    // the envelope's id is not the transport id
  TypeMismatch,  // the envelope's "t" names another type than the transport's
  OverLimits,    // more hops or invocation records than EnvelopeLimits allows
  Signature,     // unsigned under Require, or a signature that does not verify
  Unstorable,    // passed the door, but the store kept refusing it (InboxWorker)
};
std::string_view to_string(RefusalKind kind);

// The longest message type name a delivery may carry (a .NET assembly-qualified name of a
// generic type runs to a few hundred bytes).
inline constexpr std::size_t kMaxMessageTypeBytes = 1024;

struct DoorVerdict {
  std::optional<RefusalKind> refused;
  std::string reason;  // why it was refused
  // Of an admitted delivery: its type, and what its inbox row takes from the envelope (the
  // sending service "ss", nil when absent; the first hop's stream "st", or the
  // "md.AggregateId" a Whizbang .NET sender writes).
  const MessageTypeInfo* type = nullptr;
  Uuid source_service;
  std::optional<Uuid> stream_id;
  // The last hop's valid `tp`, read only when the door was asked to (tracing on): the parent of
  // the delivery's receive span.
  std::optional<TraceContext> trace_parent;
};

class DeliveryDoor {
 public:
  DeliveryDoor(const MessageTypeResolver& resolver, const EnvelopeLimits& limits,
               const EnvelopeSigning& signing, bool read_trace_parent = false)
      : resolver_(resolver),
        limits_(limits),
        signing_(signing),
        read_trace_parent_(read_trace_parent) {}

  DoorVerdict check(const TransportMessage& delivered) const;

 private:
  const MessageTypeResolver& resolver_;
  const EnvelopeLimits& limits_;
  const EnvelopeSigning& signing_;
  bool read_trace_parent_ = false;
};

// True when `text` is valid UTF-8 without control characters (C0 and DEL): what a type name,
// a log line or a metric label may hold.
bool is_clean_text(std::string_view text);

}  // namespace whizbang

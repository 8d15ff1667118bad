// DeliveryReceipt: what send(), publish() and publish_at() report back. A failure is not a
// receipt: it is the error status the call returns (docs/guide/11-failures.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "whizbang/ids/message_id.hpp"
#include "whizbang/ids/uuid.hpp"
#include "whizbang/message/static_or_owned_string.hpp"

namespace whizbang {

// The numbers are those of .NET Whizbang's DeliveryStatus, which also has Failed = 3; here a
// failed delivery is a returned error instead.
enum class DeliveryStatus : std::uint8_t {
  Accepted = 0,   // written to the outbox for the service that owns it; handled there later
  Queued = 1,     // scheduled (publish_at): kept in the outbox, published when it is due
  Delivered = 2,  // handled in this process before the call returned
};

struct DeliveryReceipt {
  MessageId message_id;
  DeliveryStatus status = DeliveryStatus::Delivered;
  // The handling receptor (delivered by send), the message type's destination (published) or
  // the outbox destination (accepted, queued). Borrowed from text that lives as long as the
  // program where there is such text (a receptor's id, a type's default destination), so a
  // publish allocates nothing for it; `destination.view()` or `.str()` to read it.
  StaticOrOwnedString destination;
  std::optional<MessageId> correlation_id;
  std::optional<MessageId> causation_id;
  std::optional<Uuid> stream_id;
  // A send or publish with an idempotency key whose dispatch happened before (the retry of a
  // request): nothing was done this time, and `message_id` is the first dispatch's.
  bool duplicate = false;

  static DeliveryReceipt delivered(MessageId id, StaticOrOwnedString destination,
                                   std::optional<MessageId> correlation_id = std::nullopt,
                                   std::optional<MessageId> causation_id = std::nullopt,
                                   std::optional<Uuid> stream_id = std::nullopt) {
    return {
        id,       DeliveryStatus::Delivered, std::move(destination), correlation_id, causation_id,
        stream_id};
  }
  static DeliveryReceipt accepted(MessageId id, StaticOrOwnedString destination,
                                  std::optional<MessageId> correlation_id = std::nullopt,
                                  std::optional<MessageId> causation_id = std::nullopt,
                                  std::optional<Uuid> stream_id = std::nullopt) {
    return {
        id,       DeliveryStatus::Accepted, std::move(destination), correlation_id, causation_id,
        stream_id};
  }
  static DeliveryReceipt queued(MessageId id, StaticOrOwnedString destination,
                                std::optional<Uuid> stream_id) {
    return {id,           DeliveryStatus::Queued, std::move(destination),
            std::nullopt, std::nullopt,           stream_id};
  }
};

}  // namespace whizbang

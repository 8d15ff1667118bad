// DeliveryReceipt: what send() and publish() report back.
#pragma once

#include <optional>
#include <string>

#include "whizbang/ids/message_id.hpp"
#include "whizbang/ids/uuid.hpp"

namespace whizbang {

enum class DeliveryStatus : std::uint8_t {
  Accepted = 0,  // queued for another service (outbox)
  Queued = 1,
  Delivered = 2,  // handled in process
  Failed = 3,
};

struct DeliveryReceipt {
  MessageId message_id;
  DeliveryStatus status = DeliveryStatus::Delivered;
  // The handling receptor (local) or the outbox topic (accepted).
  std::string destination;
  std::optional<MessageId> correlation_id;
  std::optional<MessageId> causation_id;
  std::optional<Uuid> stream_id;
};

}  // namespace whizbang

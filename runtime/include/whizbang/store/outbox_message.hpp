// Rows the dispatcher hands to a store: outbox messages (to publish or persist) and inbox
// messages (received, to handle).
#pragma once

#include <optional>
#include <string>

#include "whizbang/ids/message_id.hpp"
#include "whizbang/ids/uuid.hpp"
#include "whizbang/message/envelope.hpp"

namespace whizbang {

// A message leaving this service (or only persisting). `message_id` is the outbox primary key:
// a derived emission id makes a retried handling's row a duplicate the store drops.
struct OutboxMessage {
  MessageId message_id;
  // The transport topic. nullopt = event-store only: stored to wh_event_store, never transported.
  std::optional<std::string> destination;
  // The payload's wire name.
  std::string message_type;
  // The whole envelope, serialized (whizbang/message/envelope_json.hpp).
  std::string envelope_json;
  std::optional<Uuid> stream_id;
  bool is_event = false;
  std::optional<SecurityScope> scope;
  // Not claimed before this time (Dispatcher::publish_at). nullopt: due now.
  std::optional<TimePoint> scheduled_for;
};

// One row of store_outbox_messages' answer; one per input row, duplicates included.
struct StoredOutboxRow {
  MessageId message_id;
  std::optional<Uuid> stream_id;
  bool was_newly_created = false;
};

// A message received from the transport, to be handled by `handler_name`.
struct InboxMessage {
  MessageId message_id;
  std::string handler_name;
  std::string message_type;
  std::string envelope_json;
  std::optional<Uuid> stream_id;
  bool is_event = false;
  // The publishing service's id; nil (all zero) = unknown, replaced by the receiving service's id.
  Uuid source_service_id;
};

}  // namespace whizbang

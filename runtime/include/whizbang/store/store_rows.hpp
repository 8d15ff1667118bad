// Read-side views of stored rows, for tests, tooling and the exactly-once guardrail.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "whizbang/message/envelope.hpp"
#include "whizbang/store/outbox_message.hpp"
#include "whizbang/store/work_item.hpp"

namespace whizbang {

// Lease and retry state shared by outbox and inbox rows.
struct RowState {
  MessageStatus status = MessageStatus::None;
  int attempts = 0;
  std::string error;
  FailureReason failure_reason = FailureReason::Unknown;
  std::optional<Uuid> instance_id;
  std::optional<TimePoint> lease_expiry;
  std::optional<TimePoint> scheduled_for;
  std::optional<TimePoint> processed_at;
  std::optional<TimePoint> published_at;
  // Set when the row was dead-lettered: it is never offered again until requeued.
  std::optional<TimePoint> dead_lettered_at;
  TimePoint created_at{};
};

struct OutboxRow {
  OutboxMessage message;
  RowState state;
};

struct InboxRow {
  InboxMessage message;
  RowState state;
};

// One wh_event_store row. `event_data` is the payload ("p" of the envelope); `metadata` is
// {"MessageId":…,"Hops":[…]}.
struct StoredEvent {
  MessageId event_id;
  Uuid stream_id;
  std::string event_type;
  std::string event_data;
  std::string metadata;
  std::int64_t version = 0;
  TimePoint created_at{};
};

// One wh_perspective_events row: "perspective P has event E of stream S to apply".
struct PerspectiveEventRow {
  MessageId event_work_id;
  Uuid stream_id;
  std::string perspective_name;
  MessageId event_id;
  // The event's version in its stream: a stream's perspective events apply in this order.
  std::int64_t stream_version = 0;
  std::optional<Uuid> instance_id;
  std::optional<TimePoint> lease_expiry;
  int status = 0;
  int attempts = 0;
  std::string error;
  std::optional<TimePoint> scheduled_for;
  std::optional<TimePoint> dead_lettered_at;
  FailureReason failure_reason = FailureReason::Unknown;
};

// One perspective event handed to a perspective worker (leased to this instance), with the event
// it applies as wh_event_store holds it.
struct PerspectiveWork {
  MessageId event_work_id;
  Uuid stream_id;
  std::string perspective_name;
  MessageId event_id;
  std::string event_type;
  std::string event_data;  // the payload JSON
  std::string metadata;    // {"MessageId":…,"Hops":[…]}
  std::int64_t version = 0;
  int attempts = 0;
};

// What complete_perspective_work did: the events whose last perspective event this call
// removed (every perspective of the event has completed: the WhenAll gate opens once, here).
struct PerspectiveCompletion {
  std::vector<MessageId> events_completed;
  // The perspective events this call completed: those leased to this instance (or to nobody).
  // An id missing here was completed already, or taken over by another instance.
  std::vector<MessageId> work_completed;
};

// An event whose every perspective completed, waiting for its PostAllPerspectives and
// PostLifecycle stages (wh_lifecycle_completions). Created in the transaction that completes the
// event's last perspective event, deleted when those stages succeeded: a crash in between leaves
// it to be claimed again, so the gate's stages run until they succeed.
struct LifecycleWork {
  MessageId event_id;
  Uuid stream_id;
  std::string event_type;
  std::string event_data;  // the payload JSON
  std::string metadata;    // {"MessageId":…,"Hops":[…]}
  int attempts = 0;
};

// A Detached stage's receptor invocation handed to an executor (wh_detached_work). Written when
// it is scheduled — in the transaction of the handling that schedules it — and deleted in the
// transaction that runs it, so a process that dies in between leaves it to be run by another
// cycle (the host's detached worker) instead of losing it.
struct DetachedWork {
  MessageId work_id;
  MessageId message_id;
  std::string message_type;  // the payload's wire name
  std::string receptor_id;
  Stage stage = Stage::PostInboxDetached;
  std::string perspective;  // for perspective-scoped stages
  std::string envelope_json;
  int attempts = 0;
};

// Where a dead letter lives.
enum class DeadLetterSource : std::uint8_t {
  Outbox = 0,
  Inbox = 1,
  PerspectiveEvent = 2,
  LifecycleCompletion = 3,
  DetachedWork = 4,
};
std::string_view to_string(DeadLetterSource source);

// One dead-lettered row (WorkStore::dead_letters).
struct DeadLetter {
  DeadLetterSource source = DeadLetterSource::Outbox;
  // The row's key: message id (outbox, inbox), event_work_id (perspective event), event id
  // (lifecycle completion), work id (detached work). requeue_dead_letters() takes it.
  MessageId id;
  // The message's wire name (for perspective rows: the event's).
  std::string message_type;
  // Destination (outbox), handler (inbox), perspective name, or receptor (detached work).
  std::string target;
  std::optional<Uuid> stream_id;
  int attempts = 0;
  std::string error;
  FailureReason reason = FailureReason::Unknown;
  TimePoint dead_lettered_at{};
};

// What WorkStore::purge removed.
struct PurgeCounts {
  std::int64_t inbox_deduplication = 0;
  std::int64_t outbox_tombstones = 0;
  std::int64_t receptor_invocations = 0;
  std::int64_t service_instances = 0;
  std::int64_t refused_deliveries = 0;
  std::int64_t dispatch_keys = 0;
  // The transactions the purge took: each removes at most RetentionOptions::purge_batch_size
  // rows, so a worker waits for one batch at most, never for the whole purge.
  std::int64_t transactions = 0;
};

// The handler name of an inbox row that keeps a delivery the inbox refused at its door (a dead
// letter from the start, purged by RetentionOptions::refused_deliveries).
inline constexpr std::string_view kRefusedDeliveryHandler = "refused delivery";

// One wh_perspective_models row: a perspective's model for one stream.
struct PerspectiveModelRow {
  std::string model_json;
  // The last event applied (models apply a stream's events in event-id order).
  MessageId last_event_id;
  TimePoint updated_at{};
};

// One stored model of a perspective and the stream it is for (list_perspective_models).
struct PerspectiveModelEntry {
  Uuid stream_id;
  PerspectiveModelRow row;
};

}  // namespace whizbang

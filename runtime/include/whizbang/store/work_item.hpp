// The vocabulary of work coordination: status flags, failure reasons, the work a batch hands out
// and what the caller reports back (docs/guide/06-stores-and-workers.md).
//
//   whizbang::WorkBatchRequest request;
//   request.completions.push_back({WorkSource::Outbox, id, MessageStatus::Published});
//   absl::StatusOr<std::vector<WorkItem>> work = store.process_work_batch(request);
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "whizbang/ids/message_id.hpp"
#include "whizbang/ids/uuid.hpp"
#include "whizbang/message/envelope.hpp"
#include "whizbang/retry/backoff.hpp"
#include "whizbang/retry/retry_policy.hpp"
#include "whizbang/store/outbox_message.hpp"

namespace whizbang {

// Bit flags (values are stored and must not change).
enum class MessageStatus : std::uint32_t {
  None = 0,
  Stored = 1,
  EventStored = 2,
  Published = 4,
  Failed = 32768,
};
constexpr MessageStatus operator|(MessageStatus a, MessageStatus b) {
  return static_cast<MessageStatus>(static_cast<std::uint32_t>(a) | static_cast<std::uint32_t>(b));
}
constexpr bool has_status(MessageStatus status, MessageStatus flag) {
  return (static_cast<std::uint32_t>(status) & static_cast<std::uint32_t>(flag)) != 0;
}

// Why a row failed (values match the reference's MessageFailureReason).
enum class FailureReason : int {
  None = 0,
  TransportNotReady = 1,
  TransportException = 2,
  SerializationError = 3,
  ValidationError = 4,
  MaxAttemptsExceeded = 5,
  LeaseExpired = 6,
  EventStorageFailure = 7,
  Unknown = 99,
};

enum class WorkSource : std::uint8_t {
  Outbox = 0,
  Inbox = 1,
};

// One row handed out by process_work_batch, leased to the calling instance.
//
// Stream order: a row with a stream id is handed out only while no earlier row of its stream is
// pending elsewhere (leased to another instance, or waiting for a retry or a schedule); rows of a
// stream come in message-id order. A worker that fails a row releases the later rows of its
// stream it holds (a completion with flags None), so they wait for the retry. Dead letters do
// not hold their stream back.
struct WorkItem {
  WorkSource source = WorkSource::Outbox;
  MessageId message_id;
  // Outbox: the transport topic; nullopt = event-store only (skip the transport).
  std::optional<std::string> destination;
  // Inbox: the handler (row within the service) that handles it.
  std::string handler_name;
  std::string message_type;
  std::string envelope_json;
  std::optional<Uuid> stream_id;
  bool is_event = false;
  MessageStatus status = MessageStatus::None;
  int attempts = 0;
  // Stored by this very call (request.new_outbox / new_inbox).
  bool is_newly_stored = false;
  // Its previous lease lapsed without a completion: the handling or publish runs again.
  bool is_orphaned = false;
  std::string error;
  // Inbox: the publishing service's id (the receiving service's when unknown).
  Uuid source_service_id;
  TimePoint lease_expiry{};
};

// "Done with this row": the flags are OR-ed into its status. Outbox rows with Published and inbox
// rows with EventStored are deleted (kept with processed_at set in debug mode); flags None only
// releases the lease. Completions and failures apply only to rows leased to this instance (or
// not leased at all): once another instance has claimed a row whose lease lapsed, it is theirs.
struct WorkCompletion {
  WorkSource source = WorkSource::Outbox;
  MessageId message_id;
  MessageStatus status = MessageStatus::None;
};

// "This row failed": Failed is set, attempts incremented, the error and reason kept, the lease
// released and the row rescheduled with backoff (now + 30 s × min(2^min(attempts + 1, 10), 10):
// 60 s, 120 s, 240 s, then 300 s). The failure that brings attempts to StoreOptions::max_attempts
// dead-letters the row instead (reason MaxAttemptsExceeded, the last error kept). A dead letter
// is never offered again and never deleted: it stays, with its attempts and error, until
// requeue_dead_letters() gives it a fresh set of attempts.
struct WorkFailure {
  WorkSource source = WorkSource::Outbox;
  MessageId message_id;
  MessageStatus status = MessageStatus::None;
  std::string error;
  FailureReason reason = FailureReason::Unknown;
  // Dead-letter now, whatever the attempts: a corrupt row or unknown type (quarantine), a
  // permanent failure (whizbang/retry/failure.hpp).
  bool dead_letter = false;
  // The retry policy's decision (whizbang/store/retry_policies.hpp): the wait before the next
  // attempt and the attempts that dead-letter. Unset: kStoreRetryBackoff and
  // StoreOptions::max_attempts.
  std::optional<RetryDecision> retry = std::nullopt;
};

struct WorkLease {
  WorkSource source = WorkSource::Outbox;
  MessageId message_id;
};

// One call of the coordination cycle. Phases run in this order, in one transaction: heartbeat,
// completions, failures, storage of new rows, claiming (fresh and orphaned rows), event-store
// append and perspective events, lease renewals, then the answer.
struct WorkBatchRequest {
  std::vector<WorkCompletion> completions;
  std::vector<WorkFailure> failures;
  std::vector<OutboxMessage> new_outbox;
  // Stored with the receiving service id `receiving_service_id`.
  std::vector<InboxMessage> new_inbox;
  Uuid receiving_service_id;
  std::vector<WorkLease> renewals;
  bool claim_outbox = true;
  bool claim_inbox = true;
  // Claim only outbox rows without a destination (event-store only): a host with no transport
  // still stores its events, and its rows for other services wait for one.
  bool event_store_outbox_only = false;
  // Keep completed rows (processed_at/published_at set) instead of deleting them.
  bool debug_mode = false;
  // Per source.
  std::size_t max_items = 100;
};

// The retry schedule of a failed row (outbox, inbox, perspective event, lifecycle completion,
// detached work): 60 s before the first retry, doubling, at most 300 s (60, 120, 240, 300, ...).
// Both SQL backends build their failing statements from its fields (store/sql_shapes.hpp); the
// memory store calls failure_backoff().
inline constexpr Backoff kStoreRetryBackoff = kDefaultRetryBackoff;

// The backoff of a row's next attempt after its `attempts`-th failure (attempts before it):
// kStoreRetryBackoff's wait before retry attempts_before + 1.
constexpr std::chrono::seconds failure_backoff(int attempts_before) {
  return std::chrono::duration_cast<std::chrono::seconds>(
      kStoreRetryBackoff.delay(attempts_before + 1));
}
static_assert(failure_backoff(0) == std::chrono::seconds(60) &&
              failure_backoff(1) == std::chrono::seconds(120) &&
              failure_backoff(2) == std::chrono::seconds(240) &&
              failure_backoff(3) == std::chrono::seconds(300) &&
              failure_backoff(9) == std::chrono::seconds(300));

// Kept for source compatibility only: the schedule before kStoreRetryBackoff, spelled as
// unit × min(2^min(attempts + 1, max exponent), max factor). Same schedule; nothing reads them.
inline constexpr std::chrono::seconds kFailureBackoffUnit{30};
inline constexpr int kFailureBackoffMaxExponent = 10;
inline constexpr int kFailureBackoffMaxFactor = 10;

}  // namespace whizbang

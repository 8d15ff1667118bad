// Helpers every WorkStore backend shares: clock, dedup reporting, event-store row extraction.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "whizbang/internal/status_macros.hpp"  // WB_RETURN_IF_ERROR, WB_ASSIGN_OR_RETURN
#include "whizbang/store/outbox_message.hpp"
#include "whizbang/store/store_options.hpp"
#include "whizbang/store/store_rows.hpp"
#include "whizbang/store/work_item.hpp"

namespace whizbang::store_internal {

// How often an instance rewrites its heartbeat row (wh_service_instances), busy or idle: the row
// only tells operators and the purge which instances live, so a work cycle that writes it every
// time would pay an upsert per claim for nothing. Micros.
inline constexpr std::int64_t kHeartbeatInterval = 10'000'000;
// Whether a work cycle at `now` writes the heartbeat, last written at `last` (none yet: it does).
inline bool heartbeat_due(std::optional<std::int64_t> last, std::int64_t now) {
  return !last || now - *last >= kHeartbeatInterval;
}

// Whether a work cycle writes nothing a caller was promised durable: no completion, failure or
// new row; only claims, renewals and what claiming does (the event-store append, quarantine),
// all of which a re-claim does again should a power loss undo them.
inline bool claims_only(const WorkBatchRequest& request) {
  return request.completions.empty() && request.failures.empty() && request.new_outbox.empty() &&
         request.new_inbox.empty();
}

// Fills in defaults: the system clock, a fresh instance id.
StoreOptions normalize(StoreOptions options);

// For every row with was_newly_created = false: +1 on the emission-dedup counter tagged with the
// row's message type, and a Debug line (EventId 110) naming it. Quiet without metrics/logger.
void report_deduplicated(const StoreOptions& options, std::span<const OutboxMessage> messages,
                         std::span<const StoredOutboxRow> rows);

// A failure a store recorded: counted, and warned about when it dead-lettered the row.
struct RecordedFailure {
  std::string_view table;
  MessageId id;
  std::string message_type;  // for perspective rows: the perspective
  int attempts = 0;          // after this failure
  bool dead_lettered = false;
  std::optional<Uuid> stream_id;
  std::string_view error;
};
// +1 on `whizbang.work_coordinator.failed{message_type}`; when dead-lettered also +1 on
// `…dead_lettered{message_type}` and a Warning (EventId 141) naming the row, its attempts, its
// error and the stream it no longer holds back.
void report_failure(const StoreOptions& options, const RecordedFailure& failure);

// Logs EventId 143 (Information) when a purge removed anything.
void report_purged(const StoreOptions& options, const PurgeCounts& counts);

// What wh_event_store keeps of an envelope: the payload and {"MessageId","Hops"}.
struct EventParts {
  std::string event_data;
  std::string metadata;
};
// InvalidArgument when `envelope_json` is not a well-formed envelope.
absl::StatusOr<EventParts> event_parts(std::string_view envelope_json);

// The scope as stored in the scope column: {"u":…,"t":…}.
std::string scope_json(const SecurityScope& scope);
std::optional<SecurityScope> parse_scope_json(std::string_view json);

}  // namespace whizbang::store_internal

// DeadLetterOperations: the operator's role over dead letters
// (docs/guide/19-operating-services.md): list them filtered and a page at a time, group them by
// cause, look at one with its envelope and the receptors already recorded as fired for its message,
// requeue or discard a selection. The runner's operator API calls it through WorkStore; the SQL
// backends filter and page in SQL, so a large dead-letter table is never read whole.
//
//   DeadLetterFilter filter;
//   filter.source = DeadLetterSource::Inbox;
//   absl::StatusOr<DeadLetterPage> page = store.list_dead_letters(filter, 50, std::nullopt);
//   // page->next: where the next page starts (stable: keyset on dead_lettered_at, id, source)
//   store.discard_dead_letters(keys, "order cancelled by hand");  // kept, with its reason
//
// Discarding moves a dead letter out of its work table into wh_discarded_dead_letters (with the
// reason, the time and its envelope): it is no longer listed, counted, requeued or claimed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "whizbang/store/store_rows.hpp"

namespace whizbang {

// Which dead letters; every member that is set must match.
struct DeadLetterFilter {
  std::optional<DeadLetterSource> source;
  std::optional<std::string> target;        // exact
  std::optional<std::string> message_type;  // exact
  std::optional<FailureReason> reason;
  std::optional<std::string> error_contains;    // a substring of the error
  std::optional<TimePoint> since;               // dead_lettered_at >= since
  std::optional<TimePoint> until;               // dead_lettered_at <= until
  std::optional<std::string> error_first_line;  // the error's first line, exactly (a group)
};

// One dead letter by its source and row key (DeadLetter::id).
struct DeadLetterKey {
  DeadLetterSource source = DeadLetterSource::Outbox;
  MessageId id;
  friend bool operator==(const DeadLetterKey&, const DeadLetterKey&) = default;
};

// Where a page of list_dead_letters ends: the order's key of its last row.
struct DeadLetterCursor {
  TimePoint dead_lettered_at{};
  MessageId id;
  DeadLetterSource source = DeadLetterSource::Outbox;
};

struct DeadLetterPage {
  std::vector<DeadLetter> items;
  std::optional<DeadLetterCursor> next;  // nullopt: this was the last page
};

// Dead letters of one cause: same source, target, message type, reason and error's first line.
struct DeadLetterGroup {
  std::string key;  // dead_letter_group_key(...)
  DeadLetterSource source = DeadLetterSource::Outbox;
  std::string target;
  std::string message_type;
  FailureReason reason = FailureReason::Unknown;
  std::string error_first_line;
  std::int64_t count = 0;
  TimePoint first_at{};
  TimePoint last_at{};
};

// One dead letter with what it carries. `envelope_json`: the stored envelope (outbox, inbox,
// detached work); for perspective and lifecycle rows the event as the event store keeps it,
// `event_data` (the payload) and `metadata` ({"MessageId":…,"Hops":[…]}), envelope_json empty.
struct DeadLetterDetail {
  DeadLetter letter;
  MessageId message_id;  // the message the receptors ran for (invocation records' key)
  std::string envelope_json;
  std::string event_data;
  std::string metadata;
  // wh_receptor_invocations of message_id: the receptors already recorded as fired.
  std::vector<ReceptorInvocationRecord> invocations;
};

struct DiscardedDeadLetter {
  DeadLetter letter;
  TimePoint discarded_at{};
  std::string discard_reason;
};

// Pending work and dead letters, for an operator's overview.
struct WorkBacklog {
  std::int64_t outbox = 0;        // pending rows (not dead-lettered)
  std::int64_t inbox = 0;         // pending rows (not dead-lettered)
  std::int64_t perspectives = 0;  // pending perspective events (not dead-lettered)
  std::int64_t dead_letters = 0;  // every kind (discarded ones left out)
};

class DeadLetterOperations {
 public:
  virtual ~DeadLetterOperations() = default;

  // Matching dead letters ordered by (dead_lettered_at, id, source), after `after`; at most
  // `limit` (1..kMaxDeadLetterPage).
  virtual absl::StatusOr<DeadLetterPage> list_dead_letters(
      const DeadLetterFilter& filter, std::size_t limit,
      const std::optional<DeadLetterCursor>& after) = 0;
  // Matching dead letters grouped by cause, oldest group first; at most kMaxDeadLetterGroups.
  virtual absl::StatusOr<std::vector<DeadLetterGroup>> dead_letter_groups(
      const DeadLetterFilter& filter) = 0;
  // One dead letter; nullopt when there is none with that key (or it is not dead-lettered).
  virtual absl::StatusOr<std::optional<DeadLetterDetail>> find_dead_letter(
      const DeadLetterKey& key) = 0;
  // Requeues these dead letters (a fresh set of attempts, due now), in one transaction. Keys that
  // name no dead letter are skipped. Returns how many were requeued.
  virtual absl::StatusOr<std::size_t> requeue_dead_letter_keys(
      std::span<const DeadLetterKey> keys) = 0;
  // Moves these dead letters to wh_discarded_dead_letters with `reason`, in one transaction.
  virtual absl::StatusOr<std::size_t> discard_dead_letters(std::span<const DeadLetterKey> keys,
                                                           std::string_view reason) = 0;
  // Discarded dead letters, most recently discarded first, at most `limit`.
  virtual absl::StatusOr<std::vector<DiscardedDeadLetter>> discarded_dead_letters(
      std::size_t limit) = 0;
  virtual absl::StatusOr<WorkBacklog> work_backlog() = 0;
};

inline constexpr std::size_t kMaxDeadLetterPage = 200;
inline constexpr std::size_t kMaxDeadLetterGroups = 1000;
// The most dead letters one requeue or discard by filter or group selects.
inline constexpr std::size_t kMaxDeadLettersSelected = 10000;

// "outbox", "inbox", "perspective", "lifecycle", "detached": the operator API's names.
std::string_view dead_letter_source_name(DeadLetterSource source);
std::optional<DeadLetterSource> parse_dead_letter_source(std::string_view name);
// "MaxAttemptsExceeded": the enumerator's name (an unknown value as its number).
std::string failure_reason_name(FailureReason reason);
std::optional<FailureReason> parse_failure_reason(std::string_view name);
// The error's first line: up to its first newline.
std::string_view error_first_line(std::string_view error);
// A short stable key naming a group: hex of a hash of its source, target, type, reason and line.
std::string dead_letter_group_key(DeadLetterSource source, std::string_view target,
                                  std::string_view message_type, FailureReason reason,
                                  std::string_view first_line);
std::string dead_letter_group_key(const DeadLetter& letter);

// The keys of the dead letters `filter` matches, at most `max` (paging through the store).
absl::StatusOr<std::vector<DeadLetterKey>> select_dead_letters(DeadLetterOperations& store,
                                                               const DeadLetterFilter& filter,
                                                               std::size_t max);
// The group with this key, or nullopt.
absl::StatusOr<std::optional<DeadLetterGroup>> find_dead_letter_group(DeadLetterOperations& store,
                                                                      std::string_view key);

}  // namespace whizbang

// The stored rows as both SQL backends decode them, from the column lists of their sql.hpp (the
// same order in both). A Reader is one backend's row cursor, sqlite::Use or postgres::Query: the
// same accessors (uuid, text, int64, boolean and their optional_ forms, is_null, step).
#pragma once

#include <chrono>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "store_support.hpp"
#include "whizbang/store/store_inspector.hpp"
#include "whizbang/store/store_rows.hpp"
#include "whizbang/store/work_item.hpp"

namespace whizbang::store_internal {

template <class Reader>
std::optional<TimePoint> optional_time(const Reader& row, int column) {
  const std::optional<std::int64_t> micros = row.optional_int64(column);
  if (!micros) return std::nullopt;
  return from_unix_micros(*micros);
}

// Columns 7..17 of the outbox and inbox lists: lease and retry state.
template <class Reader>
RowState decode_row_state(const Reader& row) {
  RowState state;
  state.status = static_cast<MessageStatus>(row.int64(7));
  state.attempts = static_cast<int>(row.int64(8));
  state.error = row.text(9);
  state.failure_reason = static_cast<FailureReason>(row.int64(10));
  state.instance_id = row.optional_uuid(11);
  state.lease_expiry = optional_time(row, 12);
  state.scheduled_for = optional_time(row, 13);
  state.processed_at = optional_time(row, 14);
  state.published_at = optional_time(row, 15);
  state.created_at = from_unix_micros(row.int64(16));
  state.dead_lettered_at = optional_time(row, 17);
  return state;
}

template <class Reader>
OutboxRow decode_outbox_row(const Reader& row) {
  OutboxRow out;
  out.message.message_id = MessageId::from_trusted(row.uuid(0));
  out.message.destination = row.optional_text(1);
  out.message.message_type = row.text(2);
  out.message.envelope_json = row.text(3);
  if (std::optional<std::string> scope = row.optional_text(4)) {
    out.message.scope = parse_scope_json(*scope);
  }
  out.message.stream_id = row.optional_uuid(5);
  out.message.is_event = row.boolean(6);
  out.state = decode_row_state(row);
  return out;
}

template <class Reader>
InboxRow decode_inbox_row(const Reader& row) {
  InboxRow out;
  out.message.message_id = MessageId::from_trusted(row.uuid(0));
  out.message.handler_name = row.text(1);
  out.message.message_type = row.text(2);
  out.message.envelope_json = row.text(3);
  out.message.source_service_id = row.uuid(4);
  out.message.stream_id = row.optional_uuid(5);
  out.message.is_event = row.boolean(6);
  out.state = decode_row_state(row);
  return out;
}

template <class Reader>
StoredEvent decode_event_row(const Reader& row) {
  return {MessageId::from_trusted(row.uuid(0)),
          row.uuid(1),
          row.text(2),
          row.text(3),
          row.text(4),
          row.int64(5),
          from_unix_micros(row.int64(6))};
}

template <class Reader>
PerspectiveEventRow decode_perspective_event_row(const Reader& row) {
  PerspectiveEventRow out;
  out.event_work_id = MessageId::from_trusted(row.uuid(0));
  out.stream_id = row.uuid(1);
  out.perspective_name = row.text(2);
  out.event_id = MessageId::from_trusted(row.uuid(3));
  out.instance_id = row.optional_uuid(4);
  out.lease_expiry = optional_time(row, 5);
  out.status = static_cast<int>(row.int64(6));
  out.attempts = static_cast<int>(row.int64(7));
  out.error = row.text(8);
  out.scheduled_for = optional_time(row, 9);
  out.dead_lettered_at = optional_time(row, 10);
  out.failure_reason = static_cast<FailureReason>(row.int64(11));
  out.stream_version = row.int64(12);
  return out;
}

template <class Reader>
StoredReceptorInvocation decode_receptor_invocation_row(const Reader& row) {
  StoredReceptorInvocation out;
  out.message_id = MessageId::from_trusted(row.uuid(0));
  out.record.receptor_id = row.text(1);
  out.record.service_name = row.text(2);
  out.record.perspective = row.text(3);
  out.record.stage = static_cast<Stage>(row.int64(4));
  out.record.completed_at = from_unix_micros(row.int64(5));
  out.record.duration = std::chrono::microseconds(row.int64(6));
  return out;
}

template <class Reader>
DeadLetter decode_dead_letter(const Reader& row) {
  DeadLetter letter;
  letter.source = static_cast<DeadLetterSource>(row.int64(0));
  letter.id = MessageId::from_trusted(row.uuid(1));
  letter.message_type = row.text(2);
  letter.target = row.text(3);
  letter.stream_id = row.optional_uuid(4);
  letter.attempts = static_cast<int>(row.int64(5));
  letter.error = row.text(6);
  letter.reason = static_cast<FailureReason>(row.int64(7));
  letter.dead_lettered_at = from_unix_micros(row.int64(8));
  return letter;
}

// ---- claimed work: the claim queries' column lists (the same in both backends) ---------------

// A claimed outbox or inbox row: message_id, destination | handler_name, message_type,
// event_data, stream_id, is_event, status, attempts, error, the lease before this claim
// (instance, expiry), NULL | source_service_id. `now` and `lease_expiry` are the claim's.
template <class Reader>
WorkItem decode_claimed_item(const Reader& row, WorkSource source, std::int64_t now,
                             std::int64_t lease_expiry) {
  WorkItem item;
  item.source = source;
  item.message_id = MessageId::from_trusted(row.uuid(0));
  if (source == WorkSource::Outbox) {
    item.destination = row.optional_text(1);
  } else {
    item.handler_name = row.text(1);
    item.source_service_id = row.uuid(11);
  }
  item.message_type = row.text(2);
  item.envelope_json = row.text(3);
  item.stream_id = row.optional_uuid(4);
  item.is_event = row.boolean(5);
  item.status = static_cast<MessageStatus>(row.int64(6));
  item.attempts = static_cast<int>(row.int64(7));
  item.error = row.text(8);
  const std::optional<std::int64_t> old_lease = row.optional_int64(10);
  item.is_orphaned = !row.is_null(9) && old_lease && *old_lease < now;
  item.lease_expiry = from_unix_micros(lease_expiry);
  return item;
}

// event_work_id, stream_id, perspective_name, event_id, event_type, event_data, metadata,
// version, attempts.
template <class Reader>
PerspectiveWork decode_perspective_work(const Reader& row) {
  PerspectiveWork item;
  item.event_work_id = MessageId::from_trusted(row.uuid(0));
  item.stream_id = row.uuid(1);
  item.perspective_name = row.text(2);
  item.event_id = MessageId::from_trusted(row.uuid(3));
  item.event_type = row.text(4);
  item.event_data = row.text(5);
  item.metadata = row.text(6);
  item.version = row.int64(7);
  item.attempts = static_cast<int>(row.int64(8));
  return item;
}

// event_id, stream_id, event_type, event_data, metadata, attempts.
template <class Reader>
LifecycleWork decode_lifecycle_work(const Reader& row) {
  return {MessageId::from_trusted(row.uuid(0)), row.uuid(1), row.text(2), row.text(3), row.text(4),
          static_cast<int>(row.int64(5))};
}

// work_id, message_id, receptor_id, stage, perspective, envelope, attempts, message_type.
template <class Reader>
DetachedWork decode_detached_work(const Reader& row) {
  DetachedWork item;
  item.work_id = MessageId::from_trusted(row.uuid(0));
  item.message_id = MessageId::from_trusted(row.uuid(1));
  item.receptor_id = row.text(2);
  item.stage = static_cast<Stage>(row.int64(3));
  item.perspective = row.text(4);
  item.envelope_json = row.text(5);
  item.attempts = static_cast<int>(row.int64(6));
  item.message_type = row.text(7);
  return item;
}

// find_receptor_invocations: receptor_id, stage, completed_at, duration_us, service_name,
// perspective.
template <class Reader>
ReceptorInvocationRecord decode_invocation_record(const Reader& row) {
  ReceptorInvocationRecord record;
  record.receptor_id = row.text(0);
  record.stage = static_cast<Stage>(row.int64(1));
  record.completed_at = from_unix_micros(row.int64(2));
  record.duration = std::chrono::microseconds(row.int64(3));
  record.service_name = row.text(4);
  record.perspective = row.text(5);
  return record;
}

// Every row `reader` steps through (running its statement first), decoded.
template <class Row, class Reader, class Decode>
absl::StatusOr<std::vector<Row>> collect_rows(Reader& reader, Decode decode) {
  std::vector<Row> rows;
  while (true) {
    absl::StatusOr<bool> row = reader.step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    rows.push_back(decode(reader));
  }
  return rows;
}

}  // namespace whizbang::store_internal

// The stored rows as both SQL backends decode them, from the column lists of their sql.hpp (the
// same order in both). A Reader is one backend's row cursor, sqlite::Use or postgres::Query: the
// same accessors (uuid, text, int64, boolean and their optional_ forms, is_null, step).
#pragma once

#include <chrono>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "store/store_support.hpp"
#include "whizbang/store/store_inspector.hpp"
#include "whizbang/store/store_rows.hpp"

namespace whizbang::store_internal {

template <class Reader>
std::optional<TimePoint> optional_time(const Reader& row, int column) {
  const std::optional<std::int64_t> micros = row.optional_int64(column);
  if (!micros) return std::nullopt;
  return from_micros(*micros);
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
  state.created_at = from_micros(row.int64(16));
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
          from_micros(row.int64(6))};
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
  out.record.completed_at = from_micros(row.int64(5));
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
  letter.dead_lettered_at = from_micros(row.int64(8));
  return letter;
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

#include "store/postgres/row_decoding.hpp"

#include "store/store_support.hpp"

namespace whizbang::postgres {

namespace {

using store_internal::from_micros;

std::optional<TimePoint> optional_time(const Query& query, int column) {
  std::optional<std::int64_t> micros = query.optional_int64(column);
  if (!micros) return std::nullopt;
  return from_micros(*micros);
}

// Columns 7..17 of the outbox and inbox reads: lease and retry state.
RowState decode_row_state(const Query& query) {
  RowState state;
  state.status = static_cast<MessageStatus>(query.int64(7));
  state.attempts = static_cast<int>(query.int64(8));
  state.error = query.text(9);
  state.failure_reason = static_cast<FailureReason>(query.int64(10));
  state.instance_id = query.optional_uuid(11);
  state.lease_expiry = optional_time(query, 12);
  state.scheduled_for = optional_time(query, 13);
  state.processed_at = optional_time(query, 14);
  state.published_at = optional_time(query, 15);
  state.created_at = from_micros(query.int64(16));
  state.dead_lettered_at = optional_time(query, 17);
  return state;
}

}  // namespace

OutboxRow decode_outbox_row(const Query& query) {
  OutboxRow row;
  row.message.message_id = MessageId::from_trusted(query.uuid(0));
  row.message.destination = query.optional_text(1);
  row.message.message_type = query.text(2);
  row.message.envelope_json = query.text(3);
  if (std::optional<std::string> scope = query.optional_text(4)) {
    row.message.scope = store_internal::parse_scope_json(*scope);
  }
  row.message.stream_id = query.optional_uuid(5);
  row.message.is_event = query.boolean(6);
  row.state = decode_row_state(query);
  return row;
}

InboxRow decode_inbox_row(const Query& query) {
  InboxRow row;
  row.message.message_id = MessageId::from_trusted(query.uuid(0));
  row.message.handler_name = query.text(1);
  row.message.message_type = query.text(2);
  row.message.envelope_json = query.text(3);
  row.message.source_service_id = query.uuid(4);
  row.message.stream_id = query.optional_uuid(5);
  row.message.is_event = query.boolean(6);
  row.state = decode_row_state(query);
  return row;
}

StoredEvent decode_event_row(const Query& query) {
  return {MessageId::from_trusted(query.uuid(0)),
          query.uuid(1),
          query.text(2),
          query.text(3),
          query.text(4),
          query.int64(5),
          from_micros(query.int64(6))};
}

PerspectiveEventRow decode_perspective_event_row(const Query& query) {
  PerspectiveEventRow row;
  row.event_work_id = MessageId::from_trusted(query.uuid(0));
  row.stream_id = query.uuid(1);
  row.perspective_name = query.text(2);
  row.event_id = MessageId::from_trusted(query.uuid(3));
  row.instance_id = query.optional_uuid(4);
  row.lease_expiry = optional_time(query, 5);
  row.status = static_cast<int>(query.int64(6));
  row.attempts = static_cast<int>(query.int64(7));
  row.error = query.text(8);
  row.scheduled_for = optional_time(query, 9);
  row.dead_lettered_at = optional_time(query, 10);
  row.failure_reason = static_cast<FailureReason>(query.int64(11));
  return row;
}

DeadLetter decode_dead_letter(const Query& query) {
  DeadLetter letter;
  letter.source = static_cast<DeadLetterSource>(query.int64(0));
  letter.id = MessageId::from_trusted(query.uuid(1));
  letter.message_type = query.text(2);
  letter.target = query.text(3);
  letter.stream_id = query.optional_uuid(4);
  letter.attempts = static_cast<int>(query.int64(5));
  letter.error = query.text(6);
  letter.reason = static_cast<FailureReason>(query.int64(7));
  letter.dead_lettered_at = from_micros(query.int64(8));
  return letter;
}

StoredReceptorInvocation decode_receptor_invocation_row(const Query& query) {
  StoredReceptorInvocation row;
  row.message_id = MessageId::from_trusted(query.uuid(0));
  row.record.receptor_id = query.text(1);
  row.record.service_name = query.text(2);
  row.record.perspective = query.text(3);
  row.record.stage = static_cast<Stage>(query.int64(4));
  row.record.completed_at = from_micros(query.int64(5));
  row.record.duration = std::chrono::microseconds(query.int64(6));
  return row;
}

}  // namespace whizbang::postgres

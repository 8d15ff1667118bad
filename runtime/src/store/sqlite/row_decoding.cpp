#include "store/sqlite/row_decoding.hpp"

#include "store/store_support.hpp"

namespace whizbang::sqlite {

namespace {

using store_internal::from_micros;

std::optional<TimePoint> optional_time(const Use& use, int column) {
  std::optional<std::int64_t> micros = use.optional_int64(column);
  if (!micros) return std::nullopt;
  return from_micros(*micros);
}

// Columns 7..17 of the outbox and inbox lists: lease and retry state.
RowState decode_row_state(const Use& use) {
  RowState state;
  state.status = static_cast<MessageStatus>(use.int64(7));
  state.attempts = static_cast<int>(use.int64(8));
  state.error = use.text(9);
  state.failure_reason = static_cast<FailureReason>(use.int64(10));
  state.instance_id = use.optional_uuid(11);
  state.lease_expiry = optional_time(use, 12);
  state.scheduled_for = optional_time(use, 13);
  state.processed_at = optional_time(use, 14);
  state.published_at = optional_time(use, 15);
  state.created_at = from_micros(use.int64(16));
  state.dead_lettered_at = optional_time(use, 17);
  return state;
}

}  // namespace

OutboxRow decode_outbox_row(const Use& use) {
  OutboxRow row;
  row.message.message_id = MessageId::from_trusted(use.uuid(0));
  row.message.destination = use.optional_text(1);
  row.message.message_type = use.text(2);
  row.message.envelope_json = use.text(3);
  if (std::optional<std::string> scope = use.optional_text(4)) {
    row.message.scope = store_internal::parse_scope_json(*scope);
  }
  row.message.stream_id = use.optional_uuid(5);
  row.message.is_event = use.int64(6) != 0;
  row.state = decode_row_state(use);
  return row;
}

InboxRow decode_inbox_row(const Use& use) {
  InboxRow row;
  row.message.message_id = MessageId::from_trusted(use.uuid(0));
  row.message.handler_name = use.text(1);
  row.message.message_type = use.text(2);
  row.message.envelope_json = use.text(3);
  row.message.source_service_id = use.uuid(4);
  row.message.stream_id = use.optional_uuid(5);
  row.message.is_event = use.int64(6) != 0;
  row.state = decode_row_state(use);
  return row;
}

StoredEvent decode_event_row(const Use& use) {
  return {MessageId::from_trusted(use.uuid(0)),
          use.uuid(1),
          use.text(2),
          use.text(3),
          use.text(4),
          use.int64(5),
          from_micros(use.int64(6))};
}

PerspectiveEventRow decode_perspective_event_row(const Use& use) {
  PerspectiveEventRow row;
  row.event_work_id = MessageId::from_trusted(use.uuid(0));
  row.stream_id = use.uuid(1);
  row.perspective_name = use.text(2);
  row.event_id = MessageId::from_trusted(use.uuid(3));
  row.instance_id = use.optional_uuid(4);
  row.lease_expiry = optional_time(use, 5);
  row.status = static_cast<int>(use.int64(6));
  row.attempts = static_cast<int>(use.int64(7));
  row.error = use.text(8);
  row.scheduled_for = optional_time(use, 9);
  row.dead_lettered_at = optional_time(use, 10);
  row.failure_reason = static_cast<FailureReason>(use.int64(11));
  return row;
}

StoredReceptorInvocation decode_receptor_invocation_row(const Use& use) {
  StoredReceptorInvocation row;
  row.message_id = MessageId::from_trusted(use.uuid(0));
  row.record.receptor_id = use.text(1);
  row.record.service_name = use.text(2);
  row.record.perspective = use.text(3);
  row.record.stage = static_cast<Stage>(use.int64(4));
  row.record.completed_at = from_micros(use.int64(5));
  row.record.duration = std::chrono::microseconds(use.int64(6));
  return row;
}

DeadLetter decode_dead_letter(const Use& use) {
  DeadLetter letter;
  letter.source = static_cast<DeadLetterSource>(use.int64(0));
  letter.id = MessageId::from_trusted(use.uuid(1));
  letter.message_type = use.text(2);
  letter.target = use.text(3);
  letter.stream_id = use.optional_uuid(4);
  letter.attempts = static_cast<int>(use.int64(5));
  letter.error = use.text(6);
  letter.reason = static_cast<FailureReason>(use.int64(7));
  letter.dead_lettered_at = from_micros(use.int64(8));
  return letter;
}

}  // namespace whizbang::sqlite

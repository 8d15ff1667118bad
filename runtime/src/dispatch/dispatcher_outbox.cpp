// Dispatcher: the outbox row of an envelope, written to the store or the deferred channel.
#include "dispatcher_internal.hpp"

#include "whizbang/dispatch/sync_token.hpp"
#include "whizbang/observability/trace_names.hpp"

namespace whizbang {

absl::Status Dispatcher::write_outbox(const Envelope& envelope,
                                      std::optional<std::string> destination,
                                      std::optional<TimePoint> scheduled_for, Span* span) {
  OutboxMessage row;
  row.scheduled_for = scheduled_for;
  row.message_id = envelope.message_id;
  row.destination = std::move(destination);
  row.message_type = std::string(envelope.payload.info()->wire_name);
  row.stream_id = envelope.stream_id();
  row.is_event = envelope.payload.info()->kind == MessageKind::Event;
  row.scope = envelope.current_scope();
  Envelope stored = envelope;
  stored.dispatch_context.mode =
      row.destination ? DispatchModes::Outbox : DispatchModes::EventStore;
  stored.dispatch_context.source = MessageSource::Outbox;
  stored.dispatch_context.is_default_dispatch = false;
  stored.hops.back().topic = row.destination.value_or("(event-store)");
  if (stored.source_service_id.is_nil()) stored.source_service_id = options_.source_service_id;
  if (options_.serialize) row.envelope_json = options_.serialize(stored);
  // Read-your-writes: an event row with a stream goes to the event store (sync_token.hpp).
  if (row.is_event && row.stream_id) {
    EmissionCapture::record(row.message_id, *envelope.payload.info(), *row.stream_id);
  }
  if (options_.store != nullptr && !defers_outside_transaction()) {
    absl::StatusOr<std::vector<StoredOutboxRow>> stored_rows =
        options_.store->store_outbox_messages({&row, 1});
    if (span != nullptr && stored_rows.ok() && !stored_rows->empty() &&
        !stored_rows->front().was_newly_created) {
      span->set_bool(span_attributes::kDeduplicated, true);  // a re-run handling's emission
    }
    return stored_rows.status();
  }
  if (options_.defer) {
    options_.defer(std::move(row));
    return absl::OkStatus();
  }
  log(options_.logger, spdlog::level::warn, log_events::kOutboxRowDropped,
      "no store and no deferred channel: outbox row for {} ({}) dropped", row.message_type,
      row.message_id);
  return absl::OkStatus();
}

bool Dispatcher::defers_outside_transaction() const {
  return options_.publish_outside_transaction == PublishOutsideTransaction::Defer &&
         options_.defer && options_.in_transaction && !options_.in_transaction();
}

}  // namespace whizbang

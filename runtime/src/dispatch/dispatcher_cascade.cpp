// Dispatcher: running a receptor and cascading what it returns to local receptors, the event
// store and the outbox.
#include "dispatcher_internal.hpp"

#include "whizbang/dispatch/message_tracing.hpp"
#include "whizbang/internal/fast_clock.hpp"
#include "whizbang/retry/failure.hpp"

namespace whizbang {

using dispatch_internal::CollectingSink;
using dispatch_internal::context_of;

namespace {
// Runs `invoke` (a receptor's invocation) with the envelope's MessageContext current.
template <class Invoke>
absl::Status in_message_context(const Envelope& envelope, Invoke&& invoke) {
  const MessageContext context = context_of(envelope);
  ScopedMessageContext scope(context);
  return invoke();
}
}  // namespace

absl::Status Dispatcher::run_receptor(const ReceptorInfo& receptor, const Envelope& handling) {
  return run_and_cascade(receptor, EmissionSource::of(handling), nullptr);
}

absl::Status Dispatcher::run_receptor(const ReceptorInfo& receptor, const Envelope& envelope,
                                      std::string_view handler) {
  EmissionSequence sequence;
  return run_and_cascade(receptor, EmissionSource::of(envelope, handler, sequence), nullptr);
}

absl::StatusOr<std::size_t> Dispatcher::run_receptor_without_emitting(const ReceptorInfo& receptor,
                                                                      const Envelope& envelope) {
  CollectingSink sink(options_.logger);
  if (absl::Status status = in_message_context(
          envelope, [&] { return invoke_contained(receptor, envelope.payload, sink, nullptr); });
      !status.ok()) {
    return status;
  }
  return sink.emitted.size();
}

absl::Status Dispatcher::invoke_contained(const ReceptorInfo& receptor, const AnyMessage& message,
                                          CascadeSink& sink, std::shared_ptr<void>* response) {
  // Receptors fail by throwing: the exception stops here, as a status naming the receptor, so
  // that no caller (application thread, worker, executor) ever sees it unwind.
  try {
    return registry_.invoke(receptor, receptors_, message, sink, response);
  } catch (...) {
    return status_from_current_exception(fmt::format("receptor {}", receptor.id));
  }
}

absl::Status Dispatcher::run_and_cascade(const ReceptorInfo& receptor, const EmissionSource& source,
                                         std::shared_ptr<void>* response) {
  const Envelope& envelope = *source.envelope;
  CollectingSink sink(options_.logger);
  if (absl::Status status = in_message_context(
          envelope, [&] { return invoke_contained(receptor, envelope.payload, sink, response); });
      !status.ok()) {
    return status;
  }
  if (sink.emitted.empty() && receptor.response_key != nullptr) {
    log(options_.logger, spdlog::level::debug, log_events::kCascadeNothingExtracted,
        "[CASCADE] {} returned no messages to cascade", receptor.id);
  }
  for (auto& [message, mode] : sink.emitted) {
    absl::StatusOr<CascadeRecord> record = cascade(message, &source, mode);
    if (!record.ok()) return record.status();
  }
  return absl::OkStatus();
}

absl::StatusOr<CascadeRecord> Dispatcher::cascade(const AnyMessage& message,
                                                  const EmissionSource* source, DispatchModes mode,
                                                  const MessageId* root_id) {
  if (!message) return absl::InvalidArgumentError("cannot cascade an empty AnyMessage");
  if (mode == DispatchModes::None) return CascadeRecord{message, MessageId(), mode};
  const MessageTypeInfo& type = *message.info();
  if (mode == DispatchModes::Outbox && type.kind == MessageKind::Command &&
      is_owned(type, options_.owned_domains)) {
    mode = DispatchModes::Local;  // this service owns the command: handle it here
  }
  std::int64_t ordinal = -1;
  const MessageId id =
      source == nullptr && root_id != nullptr ? *root_id : emission_id(type, source, &ordinal);
  Envelope envelope = child_envelope(message, id, source);
  // The receptors it runs here are children of its dispatch span; its hop carries the span.
  Span span = trace_dispatch(envelope, mode, source, ordinal);
  TraceScope trace(span.context());
  absl::StatusOr<CascadeRecord> record = dispatch_envelope(envelope, mode, span);
  if (!record.ok()) mark_failed(span, record.status());
  return record;
}

absl::StatusOr<CascadeRecord> Dispatcher::dispatch_envelope(Envelope& envelope, DispatchModes mode,
                                                            Span& span) {
  const MessageTypeInfo& type = *envelope.payload.info();
  const MessageId& id = envelope.message_id;
  const bool stored =
      has_flag(mode, DispatchModes::Outbox) ||
      (type.kind == MessageKind::Event && has_flag(mode, DispatchModes::EventStore));
  if (has_flag(mode, DispatchModes::LocalDispatch)) {
    std::vector<ReceptorInvocationRecord> records;
    const bool record = stored && records_local_invocations();
    if (absl::Status status = publish_local(envelope, record ? &records : nullptr); !status.ok()) {
      return status;
    }
    for (ReceptorInvocationRecord& r : records) {
      if (absl::Status status = options_.dedup_store->record_invocation(envelope, r);
          !status.ok()) {
        return status;
      }
      envelope.receptor_invocations.push_back(std::move(r));
    }
  }
  const bool is_event = type.kind == MessageKind::Event;
  if (is_event && has_flag(mode, DispatchModes::EventStore) &&
      !has_flag(mode, DispatchModes::Outbox)) {
    if (absl::Status status = write_outbox(envelope, std::nullopt, std::nullopt, &span);
        !status.ok()) {
      return status;
    }
  }
  if (has_flag(mode, DispatchModes::Outbox)) {
    if (absl::Status status =
            write_outbox(envelope, destination_for(type).str(), std::nullopt, &span);
        !status.ok()) {
      return status;
    }
  }
  return CascadeRecord{envelope.payload, id, mode};
}

absl::StatusOr<CascadeRecord> Dispatcher::cascade_message(const AnyMessage& message,
                                                          const Envelope* source,
                                                          DispatchModes mode) {
  return unit_of_work<CascadeRecord>([&]() -> absl::StatusOr<CascadeRecord> {
    if (source == nullptr) return cascade(message, nullptr, mode);
    const EmissionSource emission_source = EmissionSource::of(*source);
    return cascade(message, &emission_source, mode);
  });
}

bool Dispatcher::records_local_invocations() const {
  return options_.dedup_store != nullptr &&
         options_.guardrails.tracking != ReceptorInvocationTracking::Off;
}

absl::Status Dispatcher::publish_local(const Envelope& envelope,
                                       std::vector<ReceptorInvocationRecord>* records) {
  const Entry* entry = entry_for(*envelope.payload.info());
  if (entry == nullptr) return absl::OkStatus();
  for (const ReceptorInfo* receptor : entry->default_stage) {
    const TimePoint started = records != nullptr ? internal::FastClock::now() : TimePoint();
    // Each receptor is its own handling: its own handler name and emission sequence, so one
    // receptor's emissions never shift another's ordinals.
    Span span =
        start_receptor_span(tracer(), *receptor, envelope.message_id, Stage::LocalImmediateInline);
    TraceScope trace(span.context());
    span.set_string(span_attributes::kExactlyOnceDecision, span_values::kDecisionFired);
    if (absl::Status status = run_receptor(*receptor, envelope, receptor->id); !status.ok()) {
      mark_failed(span, status);
      return status;
    }
    if (records != nullptr) {
      const TimePoint completed = internal::FastClock::now();
      ReceptorInvocationRecord& record = records->emplace_back(
          StaticOrOwnedString::Borrowed{receptor->id}, Stage::LocalImmediateInline, completed,
          internal::FastClock::elapsed(started, completed));
      record.service_name = options_.self.service_name;
    }
  }
  return absl::OkStatus();
}

}  // namespace whizbang

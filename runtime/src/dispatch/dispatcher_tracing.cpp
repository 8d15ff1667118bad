// Dispatcher: the span of a dispatch and the trace context its hop carries
// (docs/guide/18-tracing.md).
#include "dispatcher_internal.hpp"

#include "whizbang/dispatch/message_tracing.hpp"
#include "whizbang/security/security_context.hpp"

namespace whizbang {

namespace sa = span_attributes;

Span Dispatcher::trace_dispatch(Envelope& envelope, DispatchModes mode,
                                const EmissionSource* source, std::int64_t ordinal) const {
  if (!options_.tracer) [[likely]] {
    // Tracing off: the hop carries on the context the caller or the handling made current.
    if (const TraceContext* current = TraceScope::current()) [[unlikely]] {
      envelope.hops.back().trace_parent = current->traceparent();
    }
    return {};
  }
  const std::string_view type = envelope.payload.info()->wire_name;
  Span span(options_.tracer.get(), span_names::kDispatchPrefix, type, SpanKind::Internal,
            TraceScope::current());
  stamp_trace_parent(envelope, span.context());
  if (!span.recording()) return span;
  span.set_string(sa::kMessagingSystem, span_values::kSystemWhizbang)
      .set_string(sa::kMessagingMessageId, envelope.message_id.to_string())
      .set_string(sa::kMessageType, type)
      .set_string(sa::kDispatchMode, to_string(mode))
      .set_string(sa::kServiceName, options_.self.service_name);
  if (source != nullptr && ordinal >= 0) {
    span.set_string(sa::kEmissionDerivedFrom, source->derive_from.to_string())
        .set_int(sa::kEmissionOrdinal, ordinal);
    if (!source->handler.empty()) span.set_string(sa::kHandler, source->handler);
  }
  return span;
}

absl::StatusOr<DeliveryReceipt> Dispatcher::publish_to_void_receptors_traced(
    const AnyMessage& message, const Entry& entry, const MessageId& id,
    const MessageContext& context) {
  const std::string_view type = message.info()->wire_name;
  Span span(options_.tracer.get(), span_names::kDispatchPrefix, type, SpanKind::Internal,
            TraceScope::current());
  TraceScope trace(span.context());
  if (span.recording()) {
    span.set_string(sa::kMessagingSystem, span_values::kSystemWhizbang)
        .set_string(sa::kMessagingMessageId, id.to_string())
        .set_string(sa::kMessageType, type)
        .set_string(sa::kDispatchMode, to_string(DispatchModes::LocalNoPersist))
        .set_string(sa::kServiceName, options_.self.service_name);
  }
  dispatch_internal::DiscardingSink sink;
  for (const ReceptorInfo* receptor : entry.default_stage) {
    Span receptor_span = start_receptor_span(tracer(), *receptor, id, Stage::LocalImmediateInline);
    TraceScope receptor_trace(receptor_span.context());
    receptor_span.set_string(sa::kExactlyOnceDecision, span_values::kDecisionFired);
    ScopedMessageContext scope(context);
    if (absl::Status status = invoke_contained(*receptor, message, sink, nullptr); !status.ok()) {
      mark_failed(receptor_span, status);
      mark_failed(span, status);
      return status;
    }
  }
  return DeliveryReceipt::delivered(id, destination_for(&entry, *message.info()), std::nullopt,
                                    std::nullopt, id.uuid());
}

}  // namespace whizbang

#include "whizbang/dispatch/message_tracing.hpp"

#include <string>

#include "absl/status/status.h"

namespace whizbang {

namespace sa = span_attributes;

IncomingTrace read_incoming_trace(const Envelope& envelope, Metrics* metrics) {
  IncomingTrace incoming;
  for (auto hop = envelope.hops.rbegin(); hop != envelope.hops.rend(); ++hop) {
    if (hop->trace_parent.empty()) continue;
    if (std::optional<TraceContext> context = TraceContext::parse(hop->trace_parent)) {
      incoming.context = context;
      break;
    }
    incoming.saw_invalid = true;
  }
  if (incoming.saw_invalid && metrics != nullptr) {
    metrics->add(metric_names::kTracingMeter, metric_names::kTraceParentInvalid, 1, {});
  }
  return incoming;
}

void stamp_trace_parent(Envelope& envelope, const TraceContext* context) {
  if (envelope.hops.empty()) return;
  if (context == nullptr) context = TraceScope::current();
  if (context != nullptr) envelope.hops.back().trace_parent = context->traceparent();
}

SpanId handling_span_id(const MessageId& message_id, std::string_view handler, int attempt) {
  std::string key = message_id.to_string();
  key.append("|").append(handler).append("|").append(std::to_string(attempt));
  return derive_span_id(key);
}

Span start_handling_span(const Tracer* tracer, const Envelope& envelope,
                         const IncomingTrace& incoming, std::string_view handler, int attempt,
                         std::string_view system) {
  if (tracer == nullptr) return {};
  TraceId own_trace;
  own_trace.bytes = envelope.message_id.uuid().bytes();
  const SpanId span_id = handling_span_id(envelope.message_id, handler, attempt);
  const std::string_view type =
      envelope.payload ? envelope.payload.info()->wire_name : std::string_view("(none)");
  Span span(tracer, span_names::kProcessPrefix, type, SpanKind::Consumer,
            incoming.context ? &*incoming.context : nullptr, &own_trace, &span_id);
  if (!span.recording()) return span;
  span.set_string(sa::kMessagingSystem, system)
      .set_string(sa::kMessagingOperationType, span_values::kOperationProcess)
      .set_string(sa::kMessagingMessageId, envelope.message_id.to_string())
      .set_string(sa::kMessageType, type)
      .set_string(sa::kHandler, handler)
      .set_int(sa::kAttempt, attempt);
  if (!envelope.topic().empty()) span.set_string(sa::kMessagingDestinationName, envelope.topic());
  if (std::optional<MessageId> correlation = envelope.correlation_id()) {
    span.set_string(sa::kMessagingConversationId, correlation->to_string());
  }
  if (incoming.saw_invalid) span.set_bool(sa::kTraceParentInvalid, true);
  if (attempt > 0) {
    TraceContext earlier = *span.context();
    earlier.span_id = handling_span_id(envelope.message_id, handler, attempt - 1);
    span.add_link(earlier);
  }
  return span;
}

Span start_receptor_span(const Tracer* tracer, const ReceptorInfo& receptor,
                         const MessageId& message_id, Stage stage) {
  if (tracer == nullptr) return {};
  Span span(tracer, span_names::kReceptorPrefix, receptor.id, SpanKind::Internal,
            TraceScope::current());
  if (!span.recording()) return span;
  span.set_string(sa::kReceptorId, receptor.id)
      .set_string(sa::kStage, to_string(stage))
      .set_string(sa::kMessagingMessageId, message_id.to_string());
  return span;
}

void mark_failed(Span& span, const absl::Status& status) {
  if (!span.recording() || status.ok()) return;
  span.set_error(absl::StatusCodeToString(status.code()), std::string(status.message()));
}

}  // namespace whizbang

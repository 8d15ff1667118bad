// Trace context on envelopes, and the spans the runtime starts for messages
// (docs/guide/18-tracing.md). Span names and attribute keys: observability/trace_names.hpp.
//
// Propagation: every hop carries the W3C traceparent of the span that wrote it (`tp`). A handling
// continues the trace of the LAST hop with a valid `tp`; a malformed one is ignored and counted
// (metric_names::kTraceParentInvalid), and an envelope with none starts a new trace. With tracing
// off (null Tracer) the incoming context is still made current, so hops written while handling
// carry it on unchanged.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "whizbang/message/envelope.hpp"
#include "whizbang/observability/metrics.hpp"
#include "whizbang/observability/trace_names.hpp"
#include "whizbang/observability/tracer.hpp"
#include "whizbang/registry/receptor_info.hpp"

namespace whizbang {

struct IncomingTrace {
  std::optional<TraceContext> context;  // from the last hop with a valid `tp`
  bool saw_invalid = false;             // a later hop's `tp` was malformed (and skipped)
};
// Reads the hops from the last one back; counts a skipped invalid `tp` on `metrics` (may be
// null) under metric_names::kTraceParentInvalid. Tracing off, the handling makes `context`
// current (TraceScope) so what it writes carries the trace on.
IncomingTrace read_incoming_trace(const Envelope& envelope, Metrics* metrics);

// Stamps the last hop of `envelope` (being written by this service) with `context`, else with
// the thread's current context (TraceScope); leaves it as it is when there is neither.
void stamp_trace_parent(Envelope& envelope, const TraceContext* context);

// The span of one handling of a received message (Consumer, "process <type>"). It continues the
// incoming trace (or starts one whose trace id is the message id's 16 bytes, so every attempt of
// the handling shares it); its span id derives from (message id, handler, attempt), and attempt
// n > 0 links to attempt n - 1. `system` is span_values::kSystemRabbitMq or kSystemWhizbang.
Span start_handling_span(const Tracer* tracer, const Envelope& envelope,
                         const IncomingTrace& incoming, std::string_view handler, int attempt,
                         std::string_view system);
// The span id start_handling_span gives that attempt.
SpanId handling_span_id(const MessageId& message_id, std::string_view handler, int attempt);

// The span of one receptor firing at a stage (Internal, "receptor <id>"), under the thread's
// current context. The caller adds the exactly-once decision.
Span start_receptor_span(const Tracer* tracer, const ReceptorInfo& receptor,
                         const MessageId& message_id, Stage stage);

// Status Error and an exception event from a failed status.
void mark_failed(Span& span, const absl::Status& status);

}  // namespace whizbang
